"""The reference-rule base: rules about references to a set of qualified names.

The visit / skip-seen / dispatch code lives here once. A reference is a Name or
Attribute the resolver maps to one of `names`, so aliases and `from` imports
count and shadowed names do not. A call of one of them goes to `on_call`, every
other reference to `on_reference`; each node is dispatched at most once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Collection

from advisor.core import plain
from advisor.core.findings import Applicability, Window
from advisor.core.lazy import cst
from advisor.rule.base import Rule, parse_version
from advisor.rule.helpers import rewrite_reference
from advisor.syntax.walk import nodes_of


class ReferenceRule(Rule):
    """Base for rules that flag references to `names` (a set, or a dict keyed by them).

    `targets` defaults to `names`, so files that never mention them are not parsed.
    """

    names: ClassVar[Collection[str]] = ()
    reports_at_references = True  # at a reference to one of `names`, a call of one, or (a subclass) an attribute
    strings_name_targets = False  # a string is never a reference here (a subclass that reads them may say so)
    _last_names_of: ClassVar[tuple[Collection[str], frozenset[str]]]  # (names, their last parts), set on first use

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.names and not cls.targets:
            cls.targets = tuple(cls.names)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._seen: set = set()
        self._last_names = type(self).last_names()
        self._aliases = ctx.alias_names

    @classmethod
    def last_names(cls) -> frozenset[str]:
        """The last part of each of `names` (which a registry hook may replace: cached per `names`)."""
        cached = cls.__dict__.get("_last_names_of")
        if cached is None or cached[0] is not cls.names:
            cached = (cls.names, frozenset(q.rpartition(".")[2] for q in cls.names))
            cls._last_names_of = cached
        return cached[1]

    def _may_refer(self, node: Any) -> bool:
        """False where `node` cannot refer to one of `names`, so that most of a file's names and attributes cost
        no lookup: `x.attr` refers only to things named `attr`, and a name only to things of its own name unless
        an import binds it to something else (`Context.alias_names`)."""
        t = type(node)
        if t is cst.Attribute:
            return node.attr.value in self._last_names
        if t is cst.Name:
            name = node.value
            return name in self._last_names or self._aliases is None or name in self._aliases
        return True  # `getattr(m, "name")`

    def visit_Call(self, node: Any) -> None:
        if not self._may_refer(node.func):
            return
        qualname = self.match(node.func, self.names)
        if qualname is not None:
            self._seen.add(node.func)
            self.on_call(node, qualname)

    def visit_Attribute(self, node: Any) -> None:
        self._reference(node)

    def visit_Name(self, node: Any) -> None:
        self._reference(node)

    def on_call(self, node: Any, qualname: str) -> None:
        """A call of one of `names`. By default: the callee is reported as a reference."""
        self.on_reference(node.func, qualname)

    def on_reference(self, node: Any, qualname: str) -> None:
        """A reference that is not a call's callee. By default: reported without a fix."""
        self.report(node)

    def _reference(self, node: Any) -> None:
        if node in self._seen or not self._may_refer(node):
            return
        qualname = self.match(node, self.names)
        if qualname is not None:
            self._seen.add(node)
            self.on_reference(node, qualname)


@dataclass(frozen=True)
class Symbol:
    """What a `SymbolRule` says about one old qualified name."""

    message: str
    replacement: str | None = None  # qualified name, for a plain rename
    applicability: Applicability | None = None  # defaults to the rule's `fix`
    since: str | None = None  # replacement exists from this torch version
    window: Window | None = None  # this name's release window, where it differs from the rule's


class SymbolRule(ReferenceRule):
    """A reference rule driven by a table: `names` maps each old qualified name to a `Symbol`.

    A `Symbol` with a `replacement` is a plain rename, rewritten the way the file
    already imports things. Statements that assign to the old API, and references
    that are not called, are reported without a fix or with an unsafe one.
    """

    names: ClassVar[dict[str, Symbol]] = {}
    # How a scan may detect this class's rules on the `ast` tree (advisor.analysis.ast_detect), where a rule keeps
    # every hook of the class that sets it: "symbol" here, "rename" (advisor.rule.table.Rename), "mined".
    ast_detection: ClassVar[str] = "symbol"

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._called: set = set()  # nodes in call or decorator position
        self._no_fix: set = set()  # references in statements that assign to the old API

    def on_call(self, node: Any, qualname: str) -> None:
        self._called.add(node.func)
        super().on_call(node, qualname)

    def visit_Decorator(self, node: Any) -> None:
        self._called.add(node.decorator)

    def visit_Assign(self, node: Any) -> None:
        """`F.upsample = wrap(F.upsample)` patches the old API itself: renaming either side
        would patch or wrap a different function. Report such statements without a fix."""
        if any(self.match(t.target, self.names) for t in node.targets):
            for ref in nodes_of(node, cst.Attribute, cst.Name):
                self._no_fix.add(ref)

    def visit_AugAssign(self, node: Any) -> None:
        if self.match(node.target, self.names):
            self._no_fix.add(node.target)

    def visit_AnnAssign(self, node: Any) -> None:
        if self.match(node.target, self.names):
            self._no_fix.add(node.target)

    def reference_applicability(self, node: Any, applicability: Applicability | None) -> Applicability | None:
        return self.applicability_where(node in self._called, applicability)

    @staticmethod
    def applicability_where(called: bool, applicability: Applicability | None) -> Applicability | None:
        """A callable renamed where it is not called (a value in a table, a dict key, a
        callback) may be compared by identity, or collide with an existing entry: unsafe."""
        if called or applicability is Applicability.NONE:
            return applicability
        return Applicability.UNSAFE

    def symbol_window(self, symbol: Symbol) -> Window | None:
        return type(self).symbol_window_at(symbol, self.ctx.target)

    @classmethod
    def symbol_window_at(cls, symbol: Symbol, target: tuple) -> Window | None:
        """The symbol's own window; a `since` of its own makes the replacement's release count (fix safety).

        A replacement newer than the target is reported without a fix (on_reference), not dropped.
        """
        if symbol.window is None and symbol.since is not None and target >= parse_version(symbol.since):
            return plain.replace(cls.window(), since=symbol.since)
        return symbol.window

    @staticmethod
    def renames_at(symbol: Symbol, target: tuple) -> bool:
        """Whether a reference to the symbol is rewritten for `target` (its replacement exists there)."""
        return bool(symbol.replacement) and (symbol.since is None or target >= parse_version(symbol.since))

    ASSIGNED_NOTE = " (assigned to here: not rewritten)"

    def on_reference(self, node: Any, qualname: str) -> None:
        symbol = self.names[qualname]
        message = symbol.message.format(old=qualname, new=symbol.replacement)
        if node in self._no_fix:
            self.report(node, message + self.ASSIGNED_NOTE, window=self.symbol_window(symbol))
            return
        replacement = None
        imports: list = []
        if self.renames_at(symbol, self.ctx.target):
            assert symbol.replacement is not None
            replacement, imports = rewrite_reference(self.ctx.resolver, node, symbol.replacement)
            if isinstance(replacement, (cst.Name, cst.Attribute)):
                replacement = replacement.with_changes(lpar=node.lpar, rpar=node.rpar)
        self.report(
            node,
            message,
            replacement=replacement,
            applicability=self.reference_applicability(node, symbol.applicability),
            add_imports=imports,
            window=self.symbol_window(symbol),
        )
