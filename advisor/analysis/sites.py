"""Sites where a deprecated API is named but not used: type annotations, and patching it on purpose.

`x: Optional[torch.cuda.amp.GradScaler] = None` neither constructs nor calls the old API,
so the FutureWarning that makes the finding `deprecated` never fires there. Such a
report becomes advice (unless the API is removed on the target: evaluating the
annotation then fails, and the policy still calls that breaking).

`F.upsample = wrap(F.upsample)` (DeepSpeed's flops profiler) patches the old API so that
callers get counted: reading and assigning the attribute does not warn either, and the
statement exists because users may still call it. Both sides of such an assignment are advice.
"""

from __future__ import annotations

from typing import Any

from advisor.core.findings import Kind
from advisor.core.lazy import cst
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of

NOTE = " (named in a type annotation: nothing warns here)"


def _patched(node: Any, facts: Any) -> bool:
    """`node` is a name in an `X.y = f(X.y)` statement that spells an assigned target."""
    if not isinstance(node, cst.Attribute):
        return False
    assign = next((a for a in facts.path(node) if isinstance(a, cst.Assign)), None)
    if assign is None:
        return False
    targets = {dotted_name(t.target) for t in assign.targets if isinstance(t.target, cst.Attribute)} - {None}
    # only a patch: the old value is read on the right-hand side (`X.y = True` sets a flag: not this)
    targets &= {dotted_name(n) for n in nodes_of(assign.value, cst.Attribute)}
    return dotted_name(node) in targets


def annotations_to_advice(reports: list[Any], facts: Any) -> None:
    """`facts`: the one walk's parents (advisor.analysis.facts); the sites are found upward from each report."""
    for rep in reports:
        if rep.kind is not None or rep.compat:
            continue
        if any(isinstance(n, cst.Annotation) for n in facts.path(rep.node)):
            rep.kind = Kind.ADVICE
            rep.message += NOTE
        elif _patched(rep.node, facts):
            rep.kind = Kind.ADVICE


def _scope(node: Any, facts: Any) -> str:
    """ "test", "call" or "import" for a node, from the functions, lambdas and classes around it."""
    in_function = False
    in_test = isinstance(node, cst.ClassDef) and node.name.value.startswith("Test")
    for owner, child in facts.up(node):
        if isinstance(owner, cst.ClassDef):
            in_test = in_test or owner.name.value.startswith("Test")
        elif isinstance(owner, cst.Lambda):
            in_function = in_function or child is owner.body
        elif isinstance(owner, cst.FunctionDef):
            inside = child is owner.params or child is owner.body
            in_function = in_function or inside
            named_test = owner.name.value.startswith("test")
            in_test = in_test or named_test and (inside or any(d is child for d in owner.decorators))
    return "test" if in_test else "call" if in_function else "import"


def mark_scopes(reports: list[Any], facts: Any) -> None:
    """`data["scope"]` on the reports of rules said once in tests: "test" (in a `test*` function or a `Test*`
    class), "import" (runs when the module is imported: module level, class bodies, decorators of top-level
    functions) or "call" (inside a function). Test files are told by their path, at the project level
    (advisor.run.tests_summary)."""
    for rep in reports:
        if type(rep.rule).said_once_in_tests and not rep.compat:
            rep.data = {**(rep.data or {}), "scope": _scope(rep.node, facts)}
