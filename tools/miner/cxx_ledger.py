"""The C++ ledger: one triage entry per C++ text of docs/evidence/torch-cxx-texts.json (tools/miner/cxx.py).

docs/coverage/cxx-ledger.json maps each text to one status:

* ``rule``               an ADV rule reports the call that triggers it; ``probe`` is that call, and
                         tests/miner/test_cxx_texts.py checks that ``advisor scan`` reports the rule on it;
* ``internal``           with a reason: C++ API (`at::`, `torch::jit::`), TorchScript/ONNX/Caffe2 internals,
                         build flags, pybind11, operator docs: nothing a user's Python names;
* ``fragment``           a piece of a message C++ assembles at run time (`" is deprecated; use "`): its
                         whole is triaged under the piece that names the API;
* ``no-static-pattern``  with a reason: triggered by run-time values a scan cannot see (a tensor's rank,
                         a dtype held in a variable);
* ``environment``        with a reason: build, device or deployment, not code;
* ``todo``               should get a rule; ``score`` ranks how likely user calls trigger it.

Commands::

    python -m tools.miner.cxx_ledger update [TEXTS.json]   # add new texts (documented patterns, else todo)
    python -m tools.miner.cxx_ledger check                 # re-probe every `rule` entry
    python -m tools.miner.cxx_ledger summary               # counts per status
    python -m tools.miner.cxx_ledger todo                  # the to-do list, most likely first
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .ledger import scan_snippets

ROOT = Path(__file__).resolve().parents[2]
TEXTS = ROOT / "docs" / "evidence" / "torch-cxx-texts.json"
LEDGER = ROOT / "docs" / "coverage" / "cxx-ledger.json"
STATUSES = ("rule", "internal", "fragment", "no-static-pattern", "environment", "todo")
# Documented judgements for whole families of texts, reviewed like code (first match wins).
PATTERNS = (
    (re.compile(r"::|\bat::|\bc10::"), "internal", "C++ API (a `::` name): called from C++, not from Python"),
    (re.compile(r"^-[A-Z]|-fvisibility|-DUSE_"), "environment", "build flags recorded in the library"),
    (re.compile(r"pybind11|implicitly_convertible"), "internal", "pybind11 internals"),
    (re.compile(r"[Uu]pgrader|domain_version|text format contains"), "internal", "TorchScript/ONNX model loading"),
    (re.compile(r"^Test message"), "internal", "torch's own test of TORCH_WARN_DEPRECATION"),
    (
        re.compile(r"\{name\}|\{opName\}|operator is (?:DEPRECATED|deprecated)|^Generic Looping|^Remove single-dim"),
        "internal",
        "a Caffe2/ONNX operator's documentation, not a warning",
    ),
    (re.compile(r"_jit_|nvfuser|TorchScript|torch script", re.I), "internal", "TorchScript fuser internals"),
)
# A piece: it starts inside a sentence (a closing quote, a bracket, a connecting word)
FRAGMENT = re.compile(r"^(?:['\"`]\s|[^\w'\"`{])|^(?:and|in|is|or|it|has|will|removed|which|as|with|to)\b")
API_NAME = re.compile(r"\btorch\.[A-Za-z_][\w.]*|\bTensor\.[A-Za-z_]\w*|\b[a-z_]+\(|`[\w.]+`")


def load(path: Path = LEDGER) -> dict[str, dict]:
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["items"]


def dump(items: dict[str, dict], path: Path = LEDGER) -> None:
    """One entry per line, sorted by text: a new release shows up as added lines in review."""
    lines = [
        '{"_about": "C++ ledger: one entry per mined C++ text. See docs/coverage.md, The C++ texts.",',
        ' "items": {',
    ]
    keys = sorted(items)
    for i, k in enumerate(keys):
        sep = "," if i < len(keys) - 1 else ""
        lines.append(f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(items[k], sort_keys=True)}{sep}")
    lines.append(" }}")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def score(text: str, info: dict, newest: str) -> int:
    """How likely a user's Python call triggers the text (higher first): it names a torch Python API or a
    Tensor method, it is still in the newest release, it comes from the Python binding, it warns (not errors)."""
    s = 0
    s += 3 if re.search(r"\btorch\.[a-z_]|\bTensor\.|\bx\[|\bx\.", text) else 0
    s += 2 if info.get("last") == newest else 0
    s += 1 if "torch_python" in info.get("libs", ()) else 0
    s += 1 if re.search(r"deprecat|upcoming|future", text, re.I) else 0
    s -= 2 if len(text) < 40 else 0
    return s


def triage_new(text: str, info: dict, newest: str) -> dict:
    for pat, status, reason in PATTERNS:
        if pat.search(text):
            return {"status": status, "reason": reason}
    if FRAGMENT.search(text) and not API_NAME.search(text):
        return {"status": "fragment", "reason": "a piece of a message assembled at run time, naming no API"}
    return {"status": "todo", "score": score(text, info, newest)}


def update(texts: dict, items: dict[str, dict], release: str | None = None) -> list[str]:
    """Add an entry for each text not in the ledger; refresh `first`/`last`. Returns the new texts.
    `release`: the new texts are marked `untriaged` with it (tools/miner/release.py) until a maintainer looks."""
    newest = texts["releases"][-1]
    added = []
    for text, info in texts["texts"].items():
        entry = items.get(text)
        if entry is None:
            entry = items[text] = triage_new(text, info, newest)
            if release:
                entry["untriaged"] = release
            added.append(text)
        entry["first"], entry["last"] = info["first"], info["last"]
    return added


def check(items: dict[str, dict], target: str = "2.15") -> dict[str, str]:
    """`rule` entries whose probe does not get their rule from `advisor scan`: text -> what fired instead."""
    probes = {t: [e["probe"]] for t, e in items.items() if e["status"] == "rule"}
    fired = scan_snippets(probes, target=target)
    return {
        t: ",".join(sorted(fired.get(t, ()))) or "nothing"
        for t, e in items.items()
        if e["status"] == "rule" and e["rule"] not in fired.get(t, ())
    }


def summary_text(items: dict[str, dict]) -> str:
    counts = {s: sum(1 for e in items.values() if e["status"] == s) for s in STATUSES}
    return f"{len(items)} C++ texts: " + ", ".join(f"{n} {s}" for s, n in counts.items())


def todo(items: dict[str, dict]) -> list[tuple[int, str]]:
    return sorted(((-e.get("score", 0), t) for t, e in items.items() if e["status"] == "todo"), key=lambda x: x)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=("update", "check", "summary", "todo"))
    ap.add_argument("texts", nargs="?", default=str(TEXTS))
    args = ap.parse_args(argv)
    items = load()
    if args.command == "update":
        added = update(json.loads(Path(args.texts).read_text(encoding="utf-8")), items)
        dump(items)
        print(f"{len(added)} new texts; {summary_text(items)}")
    elif args.command == "check":
        bad = check(items)
        for t, got in sorted(bad.items()):
            print(f"{items[t]['rule']} not reported (got {got}): {t[:100]}")
        return 1 if bad else 0
    elif args.command == "summary":
        print(summary_text(items))
    else:
        for neg, t in todo(items):
            print(f"{-neg:>3}  {items[t]['first']:>7}-{items[t]['last']:<7} {t[:110]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
