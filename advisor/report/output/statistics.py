"""`--statistics` (Ruff's): one row per rule, the most frequent first, and nothing else.

`count  CODE  [*] name`, where `[*]` marks a rule whose findings here all have a safe fix and
`[-]` one with some fix (unsafe or mixed); `--output-format json`: the same rows as a JSON list.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TextIO

from advisor.core.findings import Applicability, ScanResult


def rows(result: ScanResult) -> list[dict]:
    counts = Counter(f.rule for f in result.findings)
    names = {f.rule: f.name for f in result.findings}
    fixes: dict[str, set] = {}
    for f in result.findings:
        fixes.setdefault(f.rule, set()).add(f.fix)
    return [
        {
            "code": code,
            "name": names[code],
            "count": n,
            "fixable": "safe"
            if fixes[code] == {Applicability.SAFE.value}
            else "some"
            if fixes[code] - {None}
            else "none",
        }
        for code, n in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def render(result: ScanResult, stream: TextIO, *, as_json: bool = False) -> None:
    table = rows(result)
    if as_json:
        stream.write(json.dumps(table, indent=2) + "\n")
        return
    width = max((len(str(r["count"])) for r in table), default=1)
    for r in table:
        mark = {"safe": "[*] ", "some": "[-] ", "none": ""}[r["fixable"]]
        stream.write(f"{r['count']:>{width}}  {r['code']}  {mark}{r['name']}\n")
