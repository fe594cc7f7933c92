"""Shared pieces of the ROCm rules (ADV8xx): recognising hip guards and what a branch does.

A "hip guard" is an `if` whose test says whether we run on ROCm:
`torch.version.hip`, `is_hip()`, `_is_hip`, `current_platform.is_rocm()`,
`IS_ROCM`, `TEST_WITH_ROCM`; or, the other way round, `torch.version.cuda`.
`polarity()` says which branch runs on ROCm.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from advisor.rule import CODE_ONLY, Rule, cst, nodes_of, simple_name

ROCM, NOT_ROCM = "rocm", "not-rocm"
HIP_TRIGGERS = ("hip", "_is_hip", "is_hip", "is_rocm", "_is_rocm", "IS_ROCM", "IS_HIP", "TEST_WITH_ROCM", "skipIfRocm")
# Identifiers whose truth means "this is ROCm": is_hip, _is_hip, IS_ROCM, TEST_WITH_ROCM, on_rocm, ...
HIP_IDENT = re.compile(r"^_?(?:is_|on_|use_|test_with_|with_)?(?:hip|rocm)$", re.IGNORECASE)
# For a text gate: where `has_hip_guard` may hold, an identifier it reads, in code (in any case, a superset)
HIP_GUARD_TEXT = CODE_ONLY + r"(?i:\b_?(?:is_|on_|use_|test_with_|with_)?(?:hip|rocm)\b|\bskipifrocm\b)"
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


# The same questions asked of the `ast` tree, for the rules' cheap checks (`may_match`): supersets of `polarity`
# and `disables` above (a test's possible polarities; an `elif` and an `else:` holding an `if` look alike there).
def ast_polarities(test: ast.expr, refs: Any) -> set[str]:
    t = type(test)
    if t is ast.UnaryOp and type(test.op) is ast.Not:  # type: ignore[attr-defined]
        return {flip(p) for p in ast_polarities(test.operand, refs)}  # type: ignore[attr-defined, misc]
    if t is ast.BoolOp:
        return set().union(*(ast_polarities(v, refs) for v in test.values))  # type: ignore[attr-defined]
    if t is ast.Compare:
        right = test.comparators[0]  # type: ignore[attr-defined]
        if len(test.ops) != 1 or type(right) is not ast.Constant or right.value is not None:  # type: ignore[attr-defined]
            return set()
        inner, op = ast_polarities(test.left, refs), type(test.ops[0])  # type: ignore[attr-defined]
        return inner if op in (ast.IsNot, ast.NotEq) else {flip(p) for p in inner} if op in (ast.Is, ast.Eq) else set()  # type: ignore[misc]
    found = set()
    if t is ast.Name or t is ast.Attribute:
        quals = refs.resolve(test) or set()
        if "torch.version.hip" in quals:
            found.add(ROCM)
        if "torch.version.cuda" in quals or (test.id if t is ast.Name else test.attr) == "cuda":  # type: ignore[attr-defined]
            found.add(NOT_ROCM)
    ident = ast_simple_name(test.func if t is ast.Call else test)  # type: ignore[attr-defined]
    if ident is not None and HIP_IDENT.match(ident):
        found.add(ROCM)
    return found


def ast_simple_name(node: ast.AST) -> str | None:
    """`f` for an `ast` name `f` or attribute `x.f`; None for anything else (`simple_name`'s twin)."""
    return node.id if type(node) is ast.Name else node.attr if type(node) is ast.Attribute else None  # type: ignore[attr-defined]


def ast_disables(body: list[ast.stmt]) -> bool:
    for node in (n for stmt in body for n in ast.walk(stmt)):
        t = type(node)
        if t is ast.Raise:
            return True
        if t is ast.Return and (node.value is None or _off(node.value)):  # type: ignore[attr-defined]
            return True
        if (t is ast.Assign or t is ast.AnnAssign) and _off(node.value):  # type: ignore[attr-defined]
            return True
        if t is ast.Call and ast_simple_name(node.func) in ("skip", "skipTest", "xfail"):  # type: ignore[attr-defined]
            return True
    return False


def _off(value: ast.expr | None) -> bool:
    return type(value) is ast.Constant and (value.value is None or value.value is False)  # type: ignore[union-attr]


def hip_ifs_turning_off(refs: Any, uses: frozenset[str] = frozenset()) -> bool:
    """May an `if` of the file be a hip guard whose ROCm branch switches something off (`disables`), or, given
    `uses`, whose non-ROCm branch uses one of those names?"""
    for node in refs.ifs:
        ways = ast_polarities(node.test, refs)
        if ROCM in ways and ast_disables(node.body):
            return True
        if NOT_ROCM in ways and (ast_disables(node.orelse) or (uses and _names_any(node.body, uses))):
            return True
    return False


def _names_any(body: list[ast.stmt], names: frozenset[str]) -> bool:
    return any(ast_simple_name(n) in names for stmt in body for n in ast.walk(stmt))
