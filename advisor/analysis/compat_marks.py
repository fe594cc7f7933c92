"""Which reports lie in an old-torch-only branch, found upward from each report's node.

The gates themselves are read by `advisor.analysis.compat` (and `compat_blocks`); this module
walks from a report's node through its parents (advisor.analysis.facts) and asks them only about
the `if`s, `try`s and blocks on that path, never over the whole tree again.
"""

from __future__ import annotations

from typing import Any

from advisor.analysis import compat_blocks
from advisor.analysis.compat import _MISSING, _UNKNOWN, Gates, _try_fallbacks, assigned_values
from advisor.core.findings import Applicability
from advisor.core.lazy import cst
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of


class _Branches:
    """Whether a node lies in an old-torch-only branch, found upward from the node through its parents.

    A node in several such branches takes the release of the first one in the order the whole-tree
    pass used to list them: block shapes, then `hasattr` probes, then `if`/`try` branches, the outer first.
    """

    def __init__(self, module: Any, resolver: Any, facts: Any, path: str | None) -> None:
        self.gates = Gates(module, resolver, path)
        self.facts = facts
        self._old_when: dict[tuple[int, bool], Any] = {}
        self._fallbacks: dict[int, list[Any]] = {}
        self._blocks: dict[int, compat_blocks.BlockGates] = {}
        self._until: dict[int, Any] = {}
        self._both: dict[str, Any] = {}
        self._locals_of: dict[int, dict[str, Any]] = {}

    def old_when(self, test: Any, outcome: bool) -> Any:
        key = (id(test), outcome)
        if key not in self._old_when:
            self.gates.local = self._locals(test)
            self._old_when[key] = self.gates.old_when(test, outcome)
            self.gates.local = {}
        return self._old_when[key]

    def _locals(self, test: Any) -> dict[str, Any]:
        """The simple assignments of the function `test` is in (`v = torch_version(); if v < (2, 4): ...`)."""
        func = next((p for p in self.facts.path(test) if isinstance(p, cst.FunctionDef)), None)
        if func is None:
            return {}
        if id(func) not in self._locals_of:
            found: dict[str, Any] = {}
            # a statement line holds no other: its expressions are not searched
            for line in nodes_of(func.body, cst.SimpleStatementLine, skip={cst.SimpleStatementLine: None}):
                for small in line.body:
                    found.update(assigned_values(small))
            self._locals_of[id(func)] = found
        return self._locals_of[id(func)]

    def until(self, node: Any) -> Any:
        """The release from which `node` is dead, _UNKNOWN, or _MISSING when it is in no old-only branch."""
        if id(node) not in self._until:
            self._until[id(node)] = self._find(node)
        return self._until[id(node)]

    def _find(self, node: Any) -> Any:
        path = self.facts.path(node)  # node first, the module last
        outer_first = range(len(path) - 1, 0, -1)
        for k in outer_first:
            owner = path[k]
            if isinstance(owner, (cst.Module, cst.IndentedBlock)):
                if id(owner) not in self._blocks:
                    self._blocks[id(owner)] = compat_blocks.BlockGates(owner, self)
                until = self._blocks[id(owner)].until(path[k - 1])
                if until is not None:
                    return until
        for k in outer_first:
            owner = path[k]
            if isinstance(owner, cst.If) and path[k - 1] is owner.body and compat_blocks.probed(owner, path[: k - 1]):
                return _UNKNOWN
        for k in outer_first:
            found = self._branch(path[k], path[k - 1], path[k - 2] if k >= 2 else None)
            if found is not _MISSING:
                return found
        return _MISSING

    def _branch(self, node: Any, child: Any, grandchild: Any) -> Any:
        if isinstance(node, cst.Try):
            if id(node) not in self._fallbacks:
                self._fallbacks[id(node)] = _try_fallbacks(node, self.gates)
            caught = self._fallbacks[id(node)]
            return _UNKNOWN if grandchild is not None and any(b is grandchild for b in caught) else _MISSING
        if not isinstance(node, (cst.If, cst.IfExp)):
            return _MISSING
        for outcome, branch in ((True, node.body), (False, node.orelse)):
            if branch is child:
                until = self.old_when(node.test, outcome)
                if until is not None:
                    return until
        if (
            isinstance(node, cst.If)
            and child is node.orelse
            and isinstance(child, cst.If)
            and grandchild is child.body
            and compat_blocks.elif_probe(node, self.gates)
        ):
            return _UNKNOWN
        return _MISSING


def _bound_name(node: Any) -> str | None:
    """The name an import alias or a plain assignment target binds."""
    if isinstance(node, cst.ImportAlias):
        if node.asname is not None and isinstance(node.asname.name, cst.Name):
            return node.asname.name.value
        return (dotted_name(node.name) or "").split(".")[0]
    return node.target.value if isinstance(node.target, cst.Name) else None


def _root_name(node: Any) -> Any:
    node = node.func if isinstance(node, cst.Call) else node
    while isinstance(node, cst.Attribute):
        node = node.value
    return node if isinstance(node, cst.Name) else None


def _both(root: str, branches: _Branches) -> Any:
    """The release of `root`'s old-only binding when it is also bound outside old branches, else _MISSING."""
    if root not in branches._both:
        branches._both[root] = _both_now(root, branches)
    return branches._both[root]


def _both_now(root: str, branches: _Branches) -> Any:
    old, new = _MISSING, False
    for node in reversed(branches.facts.bindings):  # right to left, as the whole-tree pass listed them
        if _bound_name(node) != root:
            continue
        until = branches.until(node)
        if until is _MISSING:
            new = True
        elif old is _MISSING:
            old = until
    return old if new else _MISSING


def mark(module: Any, resolver: Any, reports: list[Any], path: str | None, facts: Any) -> None:
    """Set `compat` / `compat_until` on the reports that lie in an old-torch-only branch.

    Also on a use of a name bound both by the fallback and elsewhere (`try: from torch.compiler
    import is_compiling as f except ImportError: from torch._dynamo... import is_compiling as f`,
    then `f()`): the old binding exists only for old torch. `facts`: the one walk's parents and bindings.
    """
    if not reports:
        return
    branches = _Branches(module, resolver, facts, path)
    for rep in reports:
        until = branches.until(rep.node)
        if until is _MISSING:
            root = _root_name(rep.node)
            until = _both(root.value, branches) if root is not None else _MISSING
        if until is _MISSING or rep.compat:
            continue
        rep.compat = True
        rep.compat_until = None if until is _UNKNOWN else until
        rep.replacement, rep.fix_node, rep.add_imports = None, None, ()  # never migrated
        rep.applicability = Applicability.NONE
