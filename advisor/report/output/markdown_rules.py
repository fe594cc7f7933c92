"""The rule table of docs/rules.md, generated from the rules themselves (tests/test_docs.py keeps it in sync)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from advisor.rule.doc_blocks import doc_blocks

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


def rule_page(rule: type[Rule]) -> str:
    """docs/rules/<CODE>.md: the rule's documentation (its docstring) as a Markdown page, what `docs-url` links to
    by default (advisor.core.docs_url). Indented lines of the docstring (examples) become code blocks."""
    m = rule.metadata()
    lib = m["library"] or "torch"
    header = ["severity", "since", "fix", "validation", "deprecated in", "removed in"]
    row = [m["severity"], f"{lib} {m['since']}", m["fix"], m["validation"] or "-"]
    row += [f"{lib} {v}" if v else "-" for v in (rule.deprecated_in, rule.removed_in)]
    if rule.kind:
        header.append("kind")
        row.append(rule.kind.value)
    out = [f"# {rule.code} {rule.name}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |", ""]
    out += _markdown(rule.doc())
    out += ["", "---", "", f"[Every rule](../rules.md). `advisor explain {rule.code}` prints this page.", ""]
    return "\n".join(out)


def _markdown(doc: str) -> list[str]:
    """A docstring's paragraphs as they are; its indented lines (examples) fenced as code."""
    out: list[str] = []
    for kind, lines in doc_blocks(doc):
        if kind == "code":
            out += ["```python", *lines, "```"]
        elif kind == "list":
            out += [f"- {item}" for item in lines]
        else:
            out += lines
        out.append("")
    return out[:-1]
