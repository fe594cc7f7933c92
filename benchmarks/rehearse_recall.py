#!/usr/bin/env python3
"""Runtime recall from `advisor rehearse --output-format json` files: per library, the distinct torch warnings
(and errors) at a project call site, how many a finding confirms, and every miss.

    python benchmarks/rehearse_recall.py speechbrain.json diffusers.json ignite.json

A warning is distinct by (path, line, category, message). Recall is confirmed / (confirmed + missed). Not counted,
each listed apart: `pre-existing` (given on the `--baseline-python` torch too), `diagnostic` (the tracer's
TracerWarning), `internal` and `outside` (torch warning about its own code, or with no project frame). Each miss is
checked against the C++ ledger (`docs/coverage/cxx-ledger.json`): a miss whose text holds a text the ledger marks
covered by a rule (or is held by one) is flagged "LEDGER-COVERED", which must never happen.
"""

from __future__ import annotations

import json
import os
import sys

LEDGER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "coverage", "cxx-ledger.json")
SHORTEST_TEXT = 20  # a ledger text shorter than this is a fragment that could sit in any message
APART = ("pre-existing", "diagnostic", "internal", "outside")


def covered_texts(path: str = LEDGER) -> list[str]:
    """The C++ ledger's texts that a rule covers."""
    with open(path, encoding="utf-8") as f:
        items = json.load(f)["items"]
    return [text for text, item in items.items() if item.get("status") == "rule" and len(text) >= SHORTEST_TEXT]


def ledger_covered(message: str, texts: list[str]) -> list[str]:
    return [t for t in texts if t in message or (len(message) >= SHORTEST_TEXT and message in t)]


def summarize(path: str) -> tuple[dict[str, list[dict]], dict]:
    """Distinct records per status, and the baseline's and target's torch."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    seen: dict[tuple, dict] = {}
    for r in data["records"]:
        seen.setdefault((r["path"], r["line"], r["category"], r["message"], r["status"]), r)
    by_status: dict[str, list[dict]] = {}
    for r in seen.values():
        by_status.setdefault(r["status"], []).append(r)
    meta = {"torch": data.get("torch"), "baseline": (data.get("baseline") or {}).get("torch")}
    return by_status, meta


def main(paths: list[str]) -> None:
    texts = covered_texts()
    print(
        "| run | torch (baseline) | distinct at a project site | confirmed | missed | pre-existing | diagnostic "
        "| recall | not counted, no project site or torch's own |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    runs = {}
    for p in paths:
        by_status, meta = summarize(p)
        n = {s: len(by_status.get(s, [])) for s in ("confirmed", "missed", *APART)}
        at_sites = n["confirmed"] + n["missed"] + n["pre-existing"] + n["diagnostic"]
        counted = n["confirmed"] + n["missed"]
        recall = f"{n['confirmed'] / counted:.0%}" if counted else "n/a"
        print(
            f"| {p} | {meta['torch']} ({meta['baseline'] or 'none'}) | {at_sites} | {n['confirmed']} | {n['missed']} "
            f"| {n['pre-existing']} | {n['diagnostic']} | {recall} | internal {n['internal']}, outside {n['outside']} |"
        )
        runs[p] = by_status
    flagged = 0
    for p, by_status in runs.items():
        for status in ("missed", "pre-existing", "diagnostic"):
            for r in by_status.get(status, []):
                hits = ledger_covered(r["message"], texts) if status == "missed" else []
                flagged += bool(hits)
                mark = f" LEDGER-COVERED by {hits[0][:60]!r}" if hits else ""
                print(f"- {p} [{status}] {r['path']}:{r['line']} {r['category']}: {r['message'][:160]}{mark}")
    print(f"misses of a text the C++ ledger marks covered: {flagged}")


if __name__ == "__main__":
    main(sys.argv[1:])
