"""The next-release command: a new torch wheel to a triage list (issue 40 item 4).

    python tools/release.py 2.16.0 --wheel ~/.cache/advisor-wheels/torch-2.16.0-...whl

Mines the new wheel on both sides: Python (the API index gains the release; the coverage ledger gains its new
items) and C++ (docs/evidence/torch-cxx-texts.json gains the release; the C++ ledger its new texts). New ledger
entries carry `"untriaged": "<version>"` until a maintainer sets their status and removes the mark;
tests/miner/test_release.py fails while any entry has it. Prints what is new, grouped: removed, newly warning, new
keyword deprecations, new C++ texts. It also writes the release row of advisor/core/releases.py from the wheels'
METADATA (`--torchvision` / `--torchaudio`: the companion wheels; tools/miner/release_row.py). `--previous` is the wheel of the release before (removals are computed
between the two); by default the newest older wheel beside `--wheel`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import cxx, cxx_ledger, ledger, release_row
from .catalogue import derive_catalogue, write_catalogue
from .common import _parse_version
from .index import _expand, extend_index, read_index, write_index
from .items import mine
from .model import build_release
from .sites import Cache
from .wheels import load, peek

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "docs" / "evidence" / "torch-api-index.json.gz"
CATALOGUE = ROOT / "rules" / "mined" / "catalogue.json"
GROUPS = ("removed", "newly warning", "new keyword deprecations", "new C++ texts")


def previous_wheel(wheel: Path, version: str) -> Path:
    older = [(_parse_version(peek(str(w))[1]), w) for w in wheel.parent.glob("torch-*.whl")]
    older = [(v, w) for v, w in older if v < _parse_version(version)]
    if not older:
        raise SystemExit(f"no older torch wheel beside {wheel}: give --previous")
    return max(older)[1]


def python_items(previous: Path, wheel: Path, cache: Cache) -> list[dict]:
    """The new release's user-facing items (removals against the previous release)."""
    srcs = [(*peek(str(w)), lambda w=w: load(str(w))) for w in (previous, wheel)]
    version = srcs[1][1]
    return [it for it in mine(srcs, cache)["items"] if version in it["versions"]]


def python_groups(items: list[dict], known: dict[str, dict]) -> dict[str, list[str]]:
    """Items the ledger does not have yet, by group: `id  message`."""
    groups: dict[str, list[str]] = {g: [] for g in GROUPS}
    for it in items:
        if it["id"] in known:
            continue
        group = "removed" if it["kind"] == "removed" else "new keyword deprecations" if "(" in it["api"] else None
        groups[group or "newly warning"].append(f"{it['id']}  {it['message'][:120]}")
    return groups


def cxx_group(texts: dict, version: str, known: dict[str, dict]) -> list[str]:
    new = sorted(t for t, info in texts["texts"].items() if info["first"] == version and t not in known)
    return [f"[{cxx_ledger.triage_new(t, texts['texts'][t], version)['status']}]  {t[:140]}" for t in new]


def extend_texts(texts: dict, version: str, found: dict[str, list[str]]) -> dict:
    """The C++ texts with one more release, newer than all it has."""
    if version in texts["releases"]:
        raise SystemExit(f"the C++ texts already have {version}")
    i = len(texts["releases"])
    releases = [*texts["releases"], version]
    out = {}
    for text in sorted(set(texts["texts"]) | set(found)):
        old = texts["texts"].get(text)
        ix = sorted(_expand(old["in"]) if old else set()) + ([i] if text in found else [])
        libs = sorted(set(old["libs"] if old else ()) | set(found.get(text, ())))
        out[text] = {"first": releases[ix[0]], "last": releases[ix[-1]], "in": cxx.intervals(ix), "libs": libs}
    return {**texts, "releases": releases, "texts": out}


def truncate_texts(texts: dict, keep: int) -> dict:
    """The C++ texts as they were with only their first `keep` releases (the rehearsal)."""
    releases = texts["releases"][:keep]
    out = {}
    for text, info in texts["texts"].items():
        ix = sorted(i for i in _expand(info["in"]) if i < keep)
        if ix:
            out[text] = {**info, "first": releases[ix[0]], "last": releases[ix[-1]], "in": cxx.intervals(ix)}
    return {**texts, "releases": releases, "texts": out}


def print_groups(groups: dict[str, list[str]], out=None) -> int:
    out = out or sys.stdout
    total = 0
    for g in GROUPS:
        print(f"== {g}: {len(groups[g])}", file=out)
        for line in groups[g]:
            print(f"  {line}", file=out)
        total += len(groups[g])
    return total


def main(argv: list[str] | None = None) -> int:
    # paths are read here, not bound as defaults: tests point them at copies
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("version", help="the new torch release, e.g. 2.16.0")
    ap.add_argument("--wheel", required=True, help="its wheel (the small macOS arm64 one will do)")
    ap.add_argument("--previous", help="the previous release's wheel (default: the newest older one beside --wheel)")
    ap.add_argument("--cache", help="per-file analysis cache of the Python miner (JSON)")
    ap.add_argument(
        "--torchvision", help="the torchvision wheel released with it (its version goes in the release row)"
    )
    ap.add_argument("--torchaudio", help="the torchaudio wheel released with it (default: the previous row's)")
    ap.add_argument("--dry-run", action="store_true", help="print the triage list, write nothing")
    args = ap.parse_args(argv)
    wheel = Path(args.wheel)
    if peek(str(wheel)) != ("torch", args.version):
        raise SystemExit(f"{wheel.name} is not torch {args.version}")
    cache = Cache(Path(args.cache) if args.cache else None)
    index = extend_index(read_index(INDEX), build_release(load(str(wheel), c_stubs=True), cache))
    texts = extend_texts(cxx.read(cxx_ledger.TEXTS), args.version, cxx.texts_of_wheel(wheel))
    items = python_items(Path(args.previous) if args.previous else previous_wheel(wheel, args.version), wheel, cache)
    cache.save()
    py_ledger, c_ledger = ledger.load(ledger.LEDGER), cxx_ledger.load(cxx_ledger.LEDGER)
    groups = python_groups(items, py_ledger)
    groups["new C++ texts"] = cxx_group(texts, args.version, c_ledger)
    n = print_groups(groups)
    if args.dry_run:
        return 0
    write_index(index, INDEX)
    cxx.write(texts, cxx_ledger.TEXTS)
    new_ids = {it["id"] for it in items} - set(py_ledger)
    py_ledger = ledger.update([{"items": items}], py_ledger)
    for iid in new_ids:
        py_ledger[iid]["untriaged"] = args.version
    ledger.dump(py_ledger, ledger.LEDGER)
    write_catalogue(derive_catalogue(index, py_ledger), CATALOGUE)
    cxx_ledger.update(texts, c_ledger, release=args.version)
    cxx_ledger.dump(c_ledger, cxx_ledger.LEDGER)
    companions = {lib: Path(getattr(args, lib)) for lib in ("torchvision", "torchaudio") if getattr(args, lib)}
    row = release_row.add_row(wheel, args.version, companions, release_row.RELEASES)
    print(f"release row: {row} (advisor/core/releases.py)" if row else "release row: already there")
    print(f"{n} new items marked untriaged ({args.version}); tests/miner/test_release.py fails until each is triaged")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
