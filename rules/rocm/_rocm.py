"""Shared pieces of the ROCm rules (ADV8xx): recognising hip guards and what a branch does.

A "hip guard" is an `if` whose test says whether we run on ROCm:
`torch.version.hip`, `is_hip()`, `_is_hip`, `current_platform.is_rocm()`,
`IS_ROCM`, `TEST_WITH_ROCM`; or, the other way round, `torch.version.cuda`.
`polarity()` says which branch runs on ROCm.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.rule import Rule, cst, nodes_of, simple_name

ROCM, NOT_ROCM = "rocm", "not-rocm"
HIP_TRIGGERS = ("hip", "_is_hip", "is_hip", "is_rocm", "_is_rocm", "IS_ROCM", "IS_HIP", "TEST_WITH_ROCM", "skipIfRocm")
# Identifiers whose truth means "this is ROCm": is_hip, _is_hip, IS_ROCM, TEST_WITH_ROCM, on_rocm, ...
HIP_IDENT = re.compile(r"^_?(?:is_|on_|use_|test_with_|with_)?(?:hip|rocm)$", re.IGNORECASE)
VERIFY = "verify with the `rocm_runtime` validation script"


def has_hip_guard(refs) -> bool:
    """Cheap (ast) superset of "this file has a hip guard": a hip identifier in an `if` test or a decorator."""
    return any(i == "hip" or i == "skipIfRocm" or HIP_IDENT.match(i) for i in refs.guard_identifiers)


def flip(p: str | None) -> str | None:
    return {ROCM: NOT_ROCM, NOT_ROCM: ROCM}.get(p)  # type: ignore[arg-type]


def _last_identifier(node: Any) -> str | None:
    """`is_hip` for `is_hip`, `x.is_hip` and `x.is_hip()`."""
    return simple_name(node.func if isinstance(node, cst.Call) else node)


def polarity(rule: Rule, test: Any) -> str | None:
    """ROCM if the expression is true on ROCm (and so its branch runs there), NOT_ROCM if false there."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return flip(polarity(rule, test.expression))
    if isinstance(test, cst.BooleanOperation):
        return polarity(rule, test.left) or polarity(rule, test.right)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        inner = polarity(rule, test.left)
        if inner is None:
            return None
        if isinstance(comp.comparator, cst.Name) and comp.comparator.value == "None":
            if isinstance(comp.operator, (cst.IsNot, cst.NotEqual)):
                return inner
            if isinstance(comp.operator, (cst.Is, cst.Equal)):
                return flip(inner)
        return None
    if isinstance(test, (cst.Name, cst.Attribute)):
        if rule.match(test, ("torch.version.hip",)):
            return ROCM
        if rule.match(test, ("torch.version.cuda",)):
            return NOT_ROCM
    ident = _last_identifier(test)
    if ident is not None and HIP_IDENT.match(ident):
        return ROCM
    return None


def disables(body: Any) -> bool:
    """Does this block switch a feature off: raise, skip, return nothing/False/None, or set something to False/None?"""
    for stmt in nodes_of(body, cst.Raise, cst.Return, cst.Assign, cst.AnnAssign, cst.Call):
        if isinstance(stmt, cst.Raise):
            return True
        if isinstance(stmt, cst.Return):
            if stmt.value is None or (isinstance(stmt.value, cst.Name) and stmt.value.value in ("False", "None")):
                return True
        if isinstance(stmt, (cst.Assign, cst.AnnAssign)):
            if isinstance(stmt.value, cst.Name) and stmt.value.value in ("False", "None"):
                return True
        elif _last_identifier(stmt) in ("skip", "skipTest", "xfail"):
            return True
    return False


class BranchTracker(Rule):
    """Keeps, while walking, which hip-guard branches enclose the current node."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._ifs: list[str | None] = []
        self._branches: list[str | None] = []

    def visit_If(self, node) -> None:
        self._ifs.append(polarity(self, node.test))

    def leave_If(self, node) -> None:
        self._ifs.pop()

    def visit_If_body(self, node) -> None:
        self._branches.append(self._ifs[-1])

    def leave_If_body(self, node) -> None:
        self._branches.pop()

    def visit_If_orelse(self, node) -> None:
        self._branches.append(flip(self._ifs[-1]))

    def leave_If_orelse(self, node) -> None:
        self._branches.pop()

    def enclosing_device(self) -> str | None:
        """ROCM / NOT_ROCM for the innermost enclosing hip-guard branch, else None."""
        for p in reversed(self._branches):
            if p is not None:
                return p
        return None


def string_values(node: Any) -> list[str]:
    """The plain string literals in `node` (not f-strings), evaluated."""
    out = []
    for s in nodes_of(node, cst.SimpleString):
        value = s.evaluated_value
        if isinstance(value, str):
            out.append(value)
    return out
