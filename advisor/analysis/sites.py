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


def _patch_sites(module: Any) -> set[int]:
    """ids of the names in `X.y = f(X.y)` statements that spell an assigned target."""
    ids: set[int] = set()
    for node in nodes_of(module, cst.Assign):
        targets = {dotted_name(t.target) for t in node.targets if isinstance(t.target, cst.Attribute)} - {None}
        # only a patch: the old value is read on the right-hand side (`X.y = True` sets a flag: not this)
        targets &= {dotted_name(n) for n in nodes_of(node.value, cst.Attribute)}
        if targets:
            ids.update(id(n) for n in nodes_of(node, cst.Attribute) if dotted_name(n) in targets)
    return ids


def annotations_to_advice(module: Any, reports: list[Any]) -> None:
    candidates = [r for r in reports if r.kind is None and not r.compat]
    if not candidates:
        return
    inside: set[int] = set()
    for ann in nodes_of(module, cst.Annotation):
        inside.update(id(n) for n in nodes_of(ann, cst.CSTNode))
    patched = _patch_sites(module)
    for rep in candidates:
        if id(rep.node) in inside:
            rep.kind = Kind.ADVICE
            rep.message += NOTE
        elif id(rep.node) in patched:
            rep.kind = Kind.ADVICE


def mark_scopes(module: Any, reports: list[Any]) -> None:
    """`data["scope"]` on the reports of rules said once in tests: "test" (in a `test*` function or a `Test*`
    class), "import" (runs when the module is imported: module level, class bodies, decorators of top-level
    functions) or "call" (inside a function). Test files are told by their path, at the project level
    (advisor.run.tests_summary)."""
    wanted = [r for r in reports if type(r.rule).said_once_in_tests and not r.compat]
    if not wanted:
        return
    in_function: set[int] = set()
    in_test: set[int] = set()
    for node in nodes_of(module, cst.FunctionDef, cst.Lambda, cst.ClassDef):
        if isinstance(node, cst.ClassDef):
            if node.name.value.startswith("Test"):
                in_test.update(id(n) for n in nodes_of(node, cst.CSTNode))
            continue
        inner = [node.body] if isinstance(node, cst.Lambda) else [node.params, node.body]
        ids = {id(n) for part in inner for n in nodes_of(part, cst.CSTNode)}
        in_function |= ids
        if isinstance(node, cst.FunctionDef) and node.name.value.startswith("test"):
            in_test |= ids | {id(n) for d in node.decorators for n in nodes_of(d, cst.CSTNode)}
    for rep in wanted:
        scope = "test" if id(rep.node) in in_test else "call" if id(rep.node) in in_function else "import"
        rep.data = {**(rep.data or {}), "scope": scope}
