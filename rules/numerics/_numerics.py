"""Shared matching for the log1p / expm1 rules: `1 + x`, `x + 1`, `e - 1` with a literal one."""

from __future__ import annotations

from typing import Any

from advisor.rule import cst


def is_one(node: Any) -> bool:
    """A literal 1 or 1.0 (not `1j`, not a name that happens to hold one)."""
    if isinstance(node, cst.Integer):
        return node.evaluated_value == 1
    if isinstance(node, cst.Float):
        return node.evaluated_value == 1.0
    return False


def plus_one_operand(node: Any) -> Any:
    """`x` for `1 + x` or `x + 1` (parentheses kept off), else None."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return None
    if is_one(node.left):
        return node.right
    if is_one(node.right):
        return node.left
    return None


def bare(node: Any) -> Any:
    """`node` without its own parentheses (it becomes a call argument)."""
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node
