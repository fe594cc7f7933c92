"""Qualified names for references, from one cheap pass over a LibCST tree.

LibCST's QualifiedNameProvider costs ~0.36 s a file (it builds full scope
metadata, accesses and assignments). We only need "which imported thing does
this name or attribute chain refer to", so we build Python's scopes ourselves:
module, class, function, lambda and comprehension scopes with their bindings.

Semantics follow Python and LibCST: a name bound anywhere in a function is local
to the whole function; class scopes are invisible from nested scopes; `global`
moves a binding to the module. A name with several bindings resolves to all of
them, so a rule matches if *any* binding is the torch symbol (as LibCST does),
while a parameter or local def that shadows `torch` resolves to no torch name.

Star imports: after `from pkg.mod import *` (or `from .mod import *`), an unbound name `n`
resolves to `pkg.mod.n`; the name `torch` itself also resolves to the `torch` module
(STAR_MODULES). We do not open `pkg.mod` (scanning stays one file at a time);
a star-imported `torch` is the torch module in every project we measured
(DeepSpeed's tests do `from unit.simple_model import *` and then `torch.load`).
"""

from __future__ import annotations

from typing import Any, Iterable

from advisor.core.lazy import cst
from advisor.syntax.references import IMPORTING_CALLS
from advisor.syntax.scopes import LOCAL, Scope, _dotted, _ScopeBuilder, lookup_in, plain_string
from advisor.syntax.walk import walk

__all__ = ["LOCAL", "NameResolver", "Scope", "any_match", "dotted_name"]


class NameResolver:
    """Resolves a module's names; afterwards `qualnames(node)` answers for any Name/Attribute.

    Built by its own walk (`NameResolver(module)`), or inside the one walk of the analysis
    (`NameResolver.sharing(module)`, then `finish()`): its scope builder is then the first visitor
    of that walk, the module's own top-level bindings are read before it starts, and every answer
    given while the scopes were still being built is checked again once they are complete.
    """

    def __init__(self, module: "cst.Module", importing_calls: tuple[str, ...] = IMPORTING_CALLS) -> None:
        self._start(importing_calls)
        v = self.builder
        walk(module, [v], before_visit=v.before_visit, after_leave=v.after_leave)
        del self._stack, self._body_scopes

    @classmethod
    def sharing(cls, module: "cst.Module", importing_calls: tuple[str, ...] = IMPORTING_CALLS) -> "NameResolver":
        """A resolver whose `builder` is to run in the caller's walk of `module` (see `finish`)."""
        self = cls.__new__(cls)
        self._start(importing_calls)
        self._building = True
        self.builder.ahead = True  # a scope's statement-level bindings are visible before the walk reaches them
        self.builder.prebind(module.body)
        return self

    def _start(self, importing_calls: tuple[str, ...]) -> None:
        self.importing_calls = importing_calls
        # Keyed by id(node): LibCST's node __hash__ is Python-level and slow, and the
        # module (which keeps every node alive) outlives this resolver's use.
        self._scope_of: dict[int, Scope] = {}  # reference Name -> scope it appears in
        self._non_refs: set[int] = set()  # Names that are not references (attrs, keywords...)
        self._body_scopes: dict[int, Scope] = {}  # node that starts a scope -> scope
        self.module_scope = Scope("module", None)
        self._stack = [self.module_scope]
        # (query, ids of its arguments) -> (query, args, first answer), for the answers given while building;
        # one entry per question keeps the log small however many rules ask it
        self._asked: dict[tuple, tuple] = {}
        self._changed = False  # the same question got two answers while building
        self._building = False
        self.builder = _ScopeBuilder(self)

    def finish(self) -> bool:
        """After the shared walk: True when every answer given during it still holds (else the caller
        runs its visitors again, on the now complete scopes)."""
        self._building = False
        del self._stack, self._body_scopes
        asked, self._asked = self._asked.values(), {}
        if self._changed:
            return False
        return all(_frozen(getattr(self, query)(*args)) == answer for query, args, answer in asked)

    def _guess(self) -> Scope | None:
        """The scope of a Name the walk has not reached: that of the node being visited (none in an import)."""
        return None if self.builder._in_import else self._stack[-1]

    def _log(self, query: str, args: tuple, answer):
        key = (query, *(a if type(a) is str else id(a) for a in args))
        known = self._asked.get(key)
        if known is None:
            self._asked[key] = (query, args, _frozen(answer))
        elif known[2] != _frozen(answer):
            self._changed = True
        return answer

    # -- queries ---------------------------------------------------------

    def qualnames(self, node: object) -> set[str]:
        """Every qualified name `node` can refer to; empty if unknown or not a reference."""
        found = self._qualnames(node)
        return self._log("qualnames", (node,), found) if self._building else found

    def _qualnames(self, node: Any) -> set[str]:
        t = type(node)  # LibCST's node classes are ABCs: `isinstance` on them is slow, and they have no subclasses
        if t is cst.Name:
            scope = self._scope_of.get(id(node))
            if scope is None and self._building:  # not reached yet: the scope the walk is in
                scope = self._guess()
            if scope is None or id(node) in self._non_refs:
                return set()
            return self._lookup(scope, node.value)
        if t is cst.Attribute:
            base = self._qualnames(node.value)
            attr = node.attr.value
            return {f"{q}.{attr}" for q in base}
        if t is cst.Call:  # `getattr(torch.cuda, "memory_cached")`, the builtin with a literal name
            obj, attr = _getattr_parts(node)
            return (
                {f"{q}.{attr}" for q in self._qualnames(obj)}
                if obj is not None and not self._qualnames(node.func)
                else set()
            )
        return set()

    def scope_of(self, node: object) -> Scope | None:
        """The scope a reference Name appears in (None for anything else)."""
        if not self._building:
            return self._scope_of.get(id(node))
        found = self._scope_of.get(id(node), self._guess() if isinstance(node, cst.Name) else None)
        return self._log("scope_of", (node,), found)

    def lookup(self, scope: Scope, name: str) -> set[str]:
        """Every qualified name `name` can refer to when used in `scope`."""
        found = self._lookup(scope, name)
        return self._log("lookup", (scope, name), found) if self._building else found

    def _lookup(self, scope: Scope, name: str) -> set[str]:
        return lookup_in(self.module_scope, scope, name)

    def module_imports(self) -> set[str]:
        """Qualified names of everything imported anywhere at module level."""
        out: set[str] = set()
        for quals in self.module_scope.bindings.values():
            out.update(q for q in quals if not q.startswith(LOCAL))
        return self._log("module_imports", (), out) if self._building else out

    def module_bindings(self) -> list[tuple[str, frozenset[str]]]:
        """The module scope's (name, qualified names) pairs, in binding order."""
        out = [(name, frozenset(quals)) for name, quals in self.module_scope.bindings.items()]
        return self._log("module_bindings", (), out) if self._building else out


def _frozen(answer):
    if isinstance(answer, (set, frozenset)):
        return frozenset(answer)
    if isinstance(answer, list):
        return tuple(answer)
    return answer


def _getattr_parts(node) -> tuple:
    """(object, attribute) of `getattr(obj, "attr")` (two arguments, a literal identifier); (None, None) otherwise."""
    func, args = node.func, node.args
    if not (isinstance(func, cst.Name) and func.value == "getattr") or len(args) != 2:
        return None, None
    if any(a.keyword is not None or a.star for a in args):
        return None, None
    attr = plain_string(args[1].value)
    return (args[0].value, attr) if attr and attr.isidentifier() else (None, None)


def dotted_name(node) -> str:
    """Source spelling of a Name/Attribute chain ('' for anything else)."""
    return _dotted(node)


def any_match(quals: Iterable[str], targets: Iterable[str]) -> str | None:
    """The first, in sorted order, of `quals` that is in `targets`."""
    ts = targets if isinstance(targets, (set, frozenset, dict)) else set(targets)
    return min((q for q in quals if q in ts), default=None)
