#!/usr/bin/env python3
"""Does a scan's cost grow with the catalogue? The same tree scanned with the real catalogue and with four
times as many entries (issue #35 item 4: the prefilter and the reference check look names up in one index,
not rule by rule).

The extra entries are copies of every default rule (hand-written, table-driven and mined) whose triggers,
qualified names and attribute names are renamed so that no code refers to them: they cost what an entry
costs a file that does not use it, which is what almost every entry is for almost every file. Each file
goes through what a scan does with it (read, prefilter, `ast` references and candidate check, slices,
LibCST and the rules); CPU seconds of this one process, medians of --repeat runs, interleaved.

    python benchmarks/bench_catalogue.py [--tree DIR] [--repeat 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import statistics
import sys
import time

from advisor.analysis.analyse import analyse
from advisor.analysis.prefilter import Prefilter
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST

COPIES = 3  # with the real catalogue: four times its entries


def _renamed(values, k: int) -> tuple:
    # A suffix keeps a word a word (`load` -> `load_syn1`) and a call shape a call shape (`.add_(-` -> `.add_(-syn1`).
    return tuple(f"{v}_syn{k}" if v[-1:].isalnum() or v[-1:] == "_" else f"{v}syn{k}" for v in values)


def synthetic(rules: list) -> list:
    out = []
    for k in range(1, COPIES + 1):
        for rule in rules:
            fields = {
                "triggers": _renamed(rule.triggers, k),
                "targets": _renamed(rule.targets, k),
                "attribute_targets": _renamed(rule.attribute_targets, k),
            }
            out.append(type(f"{rule.__name__}Syn{k}", (rule,), fields))
    return out


def scan(files: list[str], rules: list) -> tuple[float, float, int]:
    """(CPU s of the whole scan, CPU s of the prefilter alone, findings)."""
    settings = settings_at(NEWEST)
    start = time.process_time()
    prefilter = Prefilter(rules)
    spent = 0.0
    found = 0
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        t = time.process_time()
        candidates = prefilter.candidates(data)
        spent += time.process_time() - t
        if candidates:
            found += len(analyse(data, path, candidates, settings, sliced=True)[0].findings)
    return time.process_time() - start, spent, found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", help="default: the installed torch package's own sources")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json")
    args = ap.parse_args()
    tree = args.tree
    if tree is None:
        spec = importlib.util.find_spec("torch")  # located, never imported
        if spec is None or spec.origin is None:
            sys.exit("pass --tree (torch is not installed)")
        tree = os.path.dirname(spec.origin)
    files = sorted(glob.glob(os.path.join(tree, "**", "*.py"), recursive=True))
    real = [r for r in all_rules() if r.default_enabled]
    extended = real + synthetic(real)
    entries = lambda rs: sum(len(r.triggers) + len(r.targets) + len(r.attribute_targets) for r in rs)  # noqa: E731
    runs: dict[str, list[tuple[float, float, int]]] = {"real": [], "4x": []}
    for _ in range(args.repeat):  # interleaved: the machine's load falls on both alike
        runs["real"].append(scan(files, real))
        runs["4x"].append(scan(files, extended))
    out = {
        "tree": tree,
        "files": len(files),
        "load_average": os.getloadavg(),
        "rules": {"real": len(real), "4x": len(extended)},
        "entries": {"real": entries(real), "4x": entries(extended)},
    }
    for name, rs in runs.items():
        out[name] = {
            "cpu_s": statistics.median(r[0] for r in rs),
            "prefilter_cpu_s": statistics.median(r[1] for r in rs),
            "findings": rs[0][2],
        }
    print(f"{len(files)} files under {tree}; load average {' '.join(f'{x:.2f}' for x in out['load_average'])}")
    for name in ("real", "4x"):
        r = out[name]
        print(
            f"  {name:4} catalogue: {out['rules'][name]:4} rules, {out['entries'][name]:5} names; "
            f"scan {r['cpu_s']:7.2f} CPU-s (prefilter {r['prefilter_cpu_s']:5.2f}); {r['findings']} findings"
        )
    print(f"  4x / real: {out['4x']['cpu_s'] / out['real']['cpu_s']:.3f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
