"""rules/<CODE>.html beside a report: a rule's documentation (its docstring), rendered, so that the report's rule
links open a page that reads well offline; each page links on to the rule's page under the project's `docs-url`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.core.docs_url import rule_docs_url
from advisor.rule.doc_blocks import doc_blocks

if TYPE_CHECKING:
    from advisor.rule import Rule


def spans(text: str) -> list[tuple[bool, str]]:
    """`text` as (is code, part) pieces: what stands between backticks is code."""
    return [(i % 2 == 1, part) for i, part in enumerate(text.split("`")) if part]


def page_context(rule: type[Rule], docs_url: str | None) -> dict[str, Any]:
    m = rule.metadata()
    lib = m["library"] or "torch"
    facts = [("severity", m["severity"]), ("since", f"{lib} {m['since']}"), ("fix", m["fix"])]
    facts += [("validation", m["validation"] or "-")]
    facts += [
        (k, f"{lib} {v}" if v else "-")
        for k, v in (("deprecated in", rule.deprecated_in), ("removed in", rule.removed_in))
    ]
    if rule.kind:
        facts.append(("kind", rule.kind.value))
    blocks = [
        (kind, lines if kind == "code" else [spans(line) for line in lines]) for kind, lines in doc_blocks(rule.doc())
    ]
    return {
        "code": rule.code,
        "name": rule.name,
        "facts": facts,
        "blocks": blocks,
        "online": rule_docs_url(rule.code, rule.name, docs_url),
    }
