"""The text a fix's range shows: the replacement node's code, less what the range leaves where it is."""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst


def _code(module: Any, node: Any) -> str:
    if isinstance(node, cst.FlattenSentinel):
        return "".join(module.code_for_node(n) for n in node.nodes)
    return module.code_for_node(node)


def fix_text(module: Any, node: Any) -> str:
    """The replacement's text for the span the fix range covers (SARIF, JSON).

    A decorator's or statement's range starts at its first token and ends before its
    newline: its leading blank lines, trailing comment and newline stay where they are.
    """
    if isinstance(node, cst.FlattenSentinel):
        return _code(module, node)
    changes: dict[str, Any] = {}
    if isinstance(node, cst.Arg):  # an argument's range ends before its comma: so does its text
        changes.update(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))
    if hasattr(node, "leading_lines"):
        changes["leading_lines"] = ()
    if isinstance(getattr(node, "trailing_whitespace", None), cst.TrailingWhitespace):
        changes["trailing_whitespace"] = cst.TrailingWhitespace()
    text = module.code_for_node(node.with_changes(**changes) if changes else node)
    if "trailing_whitespace" in changes:
        text = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith(("\n", "\r")) else text
    return text
