"""The rule table of docs/rules.md, generated from the rules themselves (tests/test_docs.py keeps it in sync)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from advisor.rule import Rule


def rules_table(rules: Sequence[type[Rule]]) -> str:
    lines = [
        "| code | name | severity | since | fix | validation | what it finds |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rules:
        summary = r.summary().replace("|", "\\|")
        since = f"{r.library} {r.since}" if r.library else r.since  # companion windows are in their versions
        lines.append(
            f"| {r.code} | {r.name} | {r.severity.value} | {since} | {r.fix.value} | {r.validation or '-'} | {summary} |"
        )
    return "\n".join(lines) + "\n"
