"""Baselines: record today's findings, then report only new ones (gradual adoption).

A finding's fingerprint is (rule, path relative to the project root, the
normalized source of the flagged expression, its occurrence index among equal
ones in that file), so it survives lines moving up or down.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

from advisor.core.atomic import write_output
from advisor.core.findings import Finding
from advisor.core.reading import SOURCE_LIMIT, read_text

DEFAULT_NAME = "advisor-baseline.json"


def _rel(path: str, root: str) -> str:
    return os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")


def fingerprints(findings: list[Finding], root: str) -> list[str]:
    import hashlib
    import json  # lazy: start-up

    seen: Counter = Counter()
    out = []
    for f in sorted(findings, key=Finding.sort_key):
        key = (f.rule, _rel(f.path, root), f.snippet)
        occurrence = seen[key]
        seen[key] += 1
        out.append(hashlib.sha256(json.dumps([*key, occurrence]).encode()).hexdigest()[:24])
    return out


def write_baseline(path: str, findings: list[Finding], root: str) -> int:
    import json  # lazy: start-up

    ordered = sorted(findings, key=Finding.sort_key)
    entries = [
        {"fingerprint": fp, "rule": f.rule, "path": _rel(f.path, root), "snippet": f.snippet}
        for fp, f in zip(fingerprints(ordered, root), ordered)
    ]
    write_output(
        path, json.dumps({"tool": "torch-upgrade-advisor", "version": 1, "findings": entries}, indent=1) + "\n"
    )
    return len(entries)


def find_baseline(root: str) -> str | None:
    path = os.path.join(root, DEFAULT_NAME)
    return path if os.path.isfile(path) else None


def apply_baseline(result: Any, path: str, root: str) -> int:
    """Drop findings recorded in the baseline (as a multiset), counting them as suppressed; how many it dropped."""
    import json  # lazy: start-up

    try:
        data = json.loads(read_text(path, SOURCE_LIMIT))  # a regular file, bounded: it is the tree's own
        known = Counter(e["fingerprint"] for e in data["findings"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as e:
        raise ValueError(f"cannot read baseline {path}: {e}") from None
    dropped = 0
    for file_result in result.results:
        if not file_result.findings:
            continue
        ordered = sorted(file_result.findings, key=Finding.sort_key)
        kept = []
        for fp, f in zip(fingerprints(ordered, root), ordered):
            if known[fp] > 0:
                known[fp] -= 1
                file_result.suppressed += 1
                dropped += 1
            else:
                kept.append(f)
        file_result.findings = kept
    return dropped
