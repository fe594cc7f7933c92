"""A base for rules that flag references to a table of qualified names.

`symbols` maps each old qualified name to a `Symbol`: the message and, for a
plain rename, the new qualified name. References are matched through the name
resolver, so aliases and `from` imports count and shadowed names do not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from advisor.findings import Applicability
from advisor.lazy import cst
from advisor.rule import Rule
from advisor.walk import nodes_of

from ._common import rewrite_reference


@dataclass(frozen=True)
class Symbol:
    message: str
    replacement: str | None = None  # qualified name, for a plain rename
    applicability: Applicability | None = None  # defaults to the rule's `fix`
    since: str | None = None  # replacement exists from this torch version


class SymbolRule(Rule):
    symbols: ClassVar[dict[str, Symbol]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if cls.symbols and not cls.targets:
            cls.targets = tuple(cls.symbols)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._seen: set = set()
        self._called: set = set()  # nodes in call or decorator position
        self._no_fix: set = set()  # references in statements that assign to the old API

    def visit_Call(self, node) -> None:
        self._called.add(node.func)

    def visit_Decorator(self, node) -> None:
        self._called.add(node.decorator)

    def visit_Assign(self, node) -> None:
        """`F.upsample = wrap(F.upsample)` patches the old API itself: renaming either side
        would patch or wrap a different function. Report such statements without a fix."""
        if any(self.match(t.target, self.symbols) for t in node.targets):
            for ref in nodes_of(node, cst.Attribute, cst.Name):
                self._no_fix.add(ref)

    def visit_AugAssign(self, node) -> None:
        if self.match(node.target, self.symbols):
            self._no_fix.add(node.target)

    def visit_AnnAssign(self, node) -> None:
        if self.match(node.target, self.symbols):
            self._no_fix.add(node.target)

    def reference_applicability(self, node, applicability: Applicability | None) -> Applicability | None:
        """A callable renamed where it is not called (a value in a table, a dict key, a
        callback) may be compared by identity, or collide with an existing entry: unsafe."""
        if node in self._called or applicability is Applicability.NONE:
            return applicability
        return Applicability.UNSAFE

    def visit_Attribute(self, node) -> None:
        self._check(node)

    def visit_Name(self, node) -> None:
        self._check(node)

    def on_reference(self, node, qualname: str, symbol: Symbol) -> None:
        """Report one reference; subclasses may specialise (e.g. for calls)."""
        replacement = None
        imports: list = []
        if node in self._no_fix:
            self.report(node, symbol.message.format(old=qualname, new=symbol.replacement) + " (assigned to here: not rewritten)")
            return
        if symbol.replacement and (symbol.since is None or self.target_at_least(symbol.since)):
            replacement, imports = rewrite_reference(self.ctx.resolver, node, symbol.replacement)
            if isinstance(replacement, (cst.Name, cst.Attribute)):
                replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        self.report(
            node,
            symbol.message.format(old=qualname, new=symbol.replacement),
            replacement=replacement,
            applicability=self.reference_applicability(node, symbol.applicability),
            add_imports=imports,
        )

    def _check(self, node) -> None:
        if node in self._seen:
            return
        qualname = self.match(node, self.symbols)
        if qualname is not None:
            self._seen.add(node)
            self.on_reference(node, qualname, self.symbols[qualname])
