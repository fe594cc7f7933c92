"""The C++ side of a torch release: the warning and error texts its libraries carry (TORCH_WARN,
TORCH_WARN_ONCE, TORCH_CHECK, the Python binding's deprecated signatures), read as printable strings of
the binaries (like `strings`), never loaded. Only texts that deprecate or announce a change are kept.

    python -m tools.miner.cxx ~/.cache/advisor-wheels/torch-*.whl --cache ~/.cache/advisor-wheels/cxx-cache.json \\
        -o docs/evidence/torch-cxx-texts.json

Libraries: libtorch_cpu, libtorch_python, libc10 (`.dylib` in the macOS wheels, `.so` in the Linux ones).
A text is one C string, whitespace collapsed; a message that C++ assembles from pieces (`c10::str(a, " is
deprecated")`) is recorded piece by piece, as the binary holds it. Per text: the releases that carry it
(first, last, and the exact set as intervals over `releases`) and the libraries.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import zipfile
from pathlib import Path

from .common import _parse_version
from .index import intervals
from .wheels import peek

CXX_VERSION = "1"  # bump when extraction or the wording changes (invalidates the cache)
LIBRARY = re.compile(r"(?:^|/)lib(torch_cpu|torch_python|c10)\.(?:dylib|so(?:\.[\d.]+)?)$")
# Lower-case byte phrases that mark a deprecation or an announced change (issue 36).
PHRASES = (
    b"deprecat",
    b"will be removed",
    b"in a future release",
    b"in a future version",
    b"in a future pytorch",
    b"in future releases",
    b"in future versions",
    b"upcoming release",
    b"will be an error",
    b"will raise an error",
    b"no longer supported",
    b"implicitly",
    b"will be changed",
    b"will change",
    b"will be required",
    b"will default to",
    b"has been removed",
)
PRINTABLE = re.compile(rb"[\x20-\x7e\t\n\r]+")
MANGLED = re.compile(r"^_{0,2}Z|^N\d|^\S+$")  # C++ symbols (`__ZN3c10...`) and single tokens are not messages
MAX_TEXT = 1000  # a longer run is an embedded document, kept cut
ABOUT = (
    "Deprecation and change-announcing texts of torch's C++ libraries (libtorch_cpu, libtorch_python, libc10), "
    "per release, mined from the wheels by tools/miner/cxx.py (docs/coverage.md, 'The C++ texts'). "
    "Generated: never edit by hand."
)


def texts_of_binary(data: bytes) -> dict[str, None]:
    """The kept texts of one library, in order of first appearance."""
    lower = data.lower()
    found: dict[str, None] = {}
    seen_runs: set[int] = set()
    for phrase in PHRASES:
        pos = lower.find(phrase)
        while pos >= 0:
            lo = max(0, pos - MAX_TEXT * 4)
            window = data[lo : pos + MAX_TEXT * 4]
            for m in PRINTABLE.finditer(window):  # the printable run (one C string) holding the phrase
                if m.start() <= pos - lo < m.end():
                    start = lo + m.start()
                    if start not in seen_runs:
                        seen_runs.add(start)
                        text = clean(m.group().decode("ascii"))
                        if text:
                            found.setdefault(text)
                    pos = lo + m.end()
                    break
            pos = lower.find(phrase, pos + 1)
    return found


def clean(raw: str) -> str:
    """One line of text, or "" for what is not a message (a symbol, a lone token)."""
    text = " ".join(raw.split())
    if len(text) < 12 or MANGLED.search(text) or not any(p.decode() in text.lower() for p in PHRASES):
        return ""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def texts_of_wheel(path: Path) -> dict[str, list[str]]:
    """text -> the libraries (`torch_cpu`, `torch_python`, `c10`) of one wheel that hold it."""
    out: dict[str, list[str]] = {}
    with zipfile.ZipFile(path) as zf:
        for name in sorted(zf.namelist()):
            m = LIBRARY.search(name)
            if not m or not name.startswith("torch/"):
                continue
            data = zf.read(name)
            for text in texts_of_binary(data):
                libs = out.setdefault(text, [])
                if m.group(1) not in libs:
                    libs.append(m.group(1))
            del data
    return out


class WheelCache:
    """Per-wheel results keyed by file name and size: a 400 MB library is read once."""

    def __init__(self, path: Path | None):
        self.path = path
        self.data: dict = {}
        if path and path.is_file():
            try:
                self.data = json.loads(path.read_text())
            except (ValueError, OSError):
                self.data = {}
        if self.data.get("_v") != CXX_VERSION:
            self.data = {"_v": CXX_VERSION}

    def texts(self, wheel: Path) -> dict[str, list[str]]:
        key = f"{wheel.name}:{wheel.stat().st_size}"
        if key not in self.data:
            self.data[key] = texts_of_wheel(wheel)
            if self.path:
                tmp = self.path.with_name(self.path.name + ".tmp")
                tmp.write_text(json.dumps(self.data))
                os.replace(tmp, self.path)
        return self.data[key]


def build(wheels: list[Path], cache: WheelCache, log=None) -> dict:
    """The texts over several releases of torch: per text its releases and libraries."""
    ordered = sorted(((peek(str(w)), w) for w in wheels), key=lambda x: _parse_version(x[0][1]))
    if {d for (d, _v), _w in ordered} != {"torch"}:
        raise SystemExit("the C++ texts are mined from torch wheels only")
    releases = [v for (_d, v), _w in ordered]
    if len(set(releases)) != len(releases):
        raise SystemExit(f"one wheel per release, got {releases}")
    seen: dict[str, list[int]] = {}
    libs: dict[str, set[str]] = {}
    for i, (_dv, wheel) in enumerate(ordered):
        found = cache.texts(wheel)
        for text, where in found.items():
            seen.setdefault(text, []).append(i)
            libs.setdefault(text, set()).update(where)
        if log:
            log(f"torch {releases[i]}: {len(found)} texts")
    texts = {
        t: {"first": releases[ix[0]], "last": releases[ix[-1]], "in": intervals(ix), "libs": sorted(libs[t])}
        for t, ix in sorted(seen.items())
    }
    return {"about": ABOUT, "format": 1, "miner": CXX_VERSION, "releases": releases, "texts": texts}


def write(data: dict, path: Path) -> None:
    """Deterministic, one text per line, sorted."""
    lines = ["{"]
    for key in ("about", "format", "miner", "releases"):
        lines.append(f" {json.dumps(key)}: {json.dumps(data[key])},")
    lines.append(' "texts": {')
    entries = list(data["texts"].items())
    for j, (text, v) in enumerate(entries):
        comma = "," if j < len(entries) - 1 else ""
        lines.append(f"  {json.dumps(text, ensure_ascii=False)}: {json.dumps(v, sort_keys=True)}{comma}")
    lines += [" }", "}"]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("wheels", nargs="+", help="torch wheels (.whl), one per release")
    ap.add_argument("-o", "--output", required=True, help="the texts file (docs/evidence/torch-cxx-texts.json)")
    ap.add_argument("--cache", help="per-wheel results (JSON); keep it beside the wheels, outside the repository")
    args = ap.parse_args(argv)
    data = build([Path(w) for w in args.wheels], WheelCache(Path(args.cache) if args.cache else None), log=print)
    write(data, Path(args.output))
    print(f"{len(data['texts'])} texts over {len(data['releases'])} releases -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
