#!/usr/bin/env python3
"""Runtime recall from `advisor rehearse --output-format json` files: per library, the distinct torch warnings
(and errors) at a project call site, how many a finding confirms, and every miss.

    python benchmarks/rehearse_recall.py speechbrain.json diffusers.json ignite.json

A warning is distinct by (path, line, category, message); `internal` and `outside` records (torch warning about
its own code, or with no project frame) are listed apart, not counted.
"""

from __future__ import annotations

import json
import sys
from collections import Counter


def summarize(path: str) -> tuple[int, int, list[dict], Counter]:
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    seen: dict[tuple, dict] = {}
    others: Counter = Counter()
    for r in data["records"]:
        if r["status"] in ("confirmed", "missed"):
            seen.setdefault((r["path"], r["line"], r["category"], r["message"]), r)
        else:
            others[r["status"]] += 1
    confirmed = sum(1 for r in seen.values() if r["status"] == "confirmed")
    missed = [r for r in seen.values() if r["status"] == "missed"]
    return len(seen), confirmed, missed, others


def main(paths: list[str]) -> None:
    print("| run | distinct warnings at a project site | confirmed | missed | recall | not counted |")
    print("|---|---|---|---|---|---|")
    misses = {}
    for p in paths:
        total, confirmed, missed, others = summarize(p)
        recall = f"{confirmed / total:.0%}" if total else "n/a"
        print(f"| {p} | {total} | {confirmed} | {len(missed)} | {recall} | {dict(others) or ''} |")
        misses[p] = missed
    for p, missed in misses.items():
        for r in missed:
            print(f"- {p}: {r['path']}:{r['line']} {r['category']}: {r['message'][:160]}")


if __name__ == "__main__":
    main(sys.argv[1:])
