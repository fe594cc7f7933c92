"""What the table rules' LibCST visitors see and report, read off the `ast` tree (advisor.analysis.ast_reports).

`Survey` walks a file's tree once for all of them: every node's parent, the bindings the compat gates read, and, in
the order LibCST visits them, the nodes a rule's hooks are called for. `Detection` then makes one rule's reports, as
`SymbolRule`'s and `Rename`'s hooks make them (advisor.rule.reference, advisor.rule.table), less the replacement's
code, which only LibCST writes: whether a report has one is all the policy needs to decide its fix.
"""

from __future__ import annotations

import ast
from typing import Any

from advisor.core.findings import Applicability, Kind
from advisor.rule import Report
from advisor.syntax.ast_names import AstResolver
from advisor.syntax.names import any_match
from advisor.syntax.references import prefixes_of

NONE = Applicability.NONE


class Detection:
    """What the LibCST visitors of a SymbolRule report (advisor.rule.reference), in its walk's order."""

    def __init__(self, rule: Any, kind: str | None, resolver: AstResolver, alias_names: Any, target: tuple) -> None:
        """`kind`: the rule's `ast_detection` ("symbol", "rename" or "mined": which hooks it keeps)."""
        self.rule, self.resolver, self.aliases, self.target = rule, resolver, alias_names, target
        self.names = rule.names
        self.entries = {e.old: e for e in rule.row.entries} if kind == "rename" else {}
        self.mined = kind == "mined"
        self.last_names = rule.last_names()
        self.seen: set[int] = set()
        self.called: set[int] = set()
        self.no_fix: set[int] = set()
        self.out: list[tuple[Report, Any]] = []

    def run(self, events: list[Any]) -> list[tuple[Report, Any]]:
        for node in events:  # in the order LibCST visits them: a node before its children
            self.visit(node)
        return self.out

    def visit(self, node: Any) -> None:
        t = type(node)
        if t is ast.Call:
            if self._may_refer(node.func):
                q = self._match(node.func)
                if q is not None:
                    self.seen.add(id(node.func))
                    self._on_call(node, q)
        elif t is ast.Attribute or t is ast.Name:
            if id(node) not in self.seen and self._may_refer(node):
                q = self._match(node)
                if q is not None:
                    self.seen.add(id(node))
                    self._on_reference(node, q)
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            self.called.update(id(d) for d in node.decorator_list)
        elif t is ast.Assign:
            if any(self._match(target) for target in node.targets):
                self.no_fix.update(id(n) for n in ast.walk(node) if type(n) in (ast.Attribute, ast.Name))
        elif t is ast.Import or t is ast.ImportFrom:
            if self.mined and self.rule.report_imports and self._imports_listed(node):
                raise Unsupported("an import the rule reports")  # reported at the import: left to LibCST
        elif t is ast.AugAssign or t is ast.AnnAssign:
            if self._match(node.target):
                self.no_fix.add(id(node.target))

    def _may_refer(self, node: Any) -> bool:
        t = type(node)
        if t is ast.Attribute:
            return node.attr in self.last_names
        if t is ast.Name:
            return node.id in self.last_names or self.aliases is None or node.id in self.aliases
        return True

    def _imports_listed(self, node: Any) -> bool:
        """MinedNames.visit_Import / visit_ImportFrom would report here: the import names a listed API."""
        if type(node) is ast.Import:
            return any(p in self.names for a in node.names for p in prefixes_of(a.name))
        if node.level or node.module is None:
            return False
        listed = any(p in self.names for p in prefixes_of(node.module))
        return listed or any(f"{node.module}.{a.name}" in self.names for a in node.names if a.name != "*")

    def _match(self, node: Any) -> str | None:
        kinds = (ast.Name, ast.Attribute) if self.mined else (ast.Name, ast.Attribute, ast.Call)  # no getattr: mined
        if type(node) not in kinds:
            return None
        return any_match(self.resolver.qualnames(node), self.names)

    def _on_call(self, call: ast.Call, qualname: str) -> None:
        """SymbolRule.on_call, and Rename's: a call that a rename adds keywords to is reported at the call."""
        entry = self.entries.get(qualname)
        if (
            entry is None
            or not entry.kwargs
            or entry.new is None
            or self.rule.fix is NONE
            or id(call.func) in self.no_fix
        ):
            self.called.add(id(call.func))
            self._on_reference(call.func, qualname)
            return
        self.called.add(id(call.func))
        passed = {k.arg for k in call.keywords if k.arg is not None}
        pair = set(entry.both_or_neither)
        refused = (
            any(type(a) is ast.Starred for a in call.args)
            or any(k.arg is None for k in call.keywords)
            or (entry.positional is not None and len(call.args) > entry.positional)
            or (pair and passed & pair and not pair <= passed)
        )
        message, window = self.names[qualname].message, entry.window(self.rule.row)
        self._add(call, message, NONE if refused else self.rule.fix, window, renames=not refused)

    def _on_reference(self, node: Any, qualname: str) -> None:
        """SymbolRule.on_reference and Rename's, less the replacement's code: whether there is one decides the
        applicability, as `Rule.report` does."""
        rule, symbol = self.rule, self.names[qualname]
        entry = self.entries.get(qualname)
        if entry is not None:  # a Rename
            message, window = symbol.message, entry.window(rule.row)
            if id(node) in self.no_fix:
                self._add(node, message + rule.ASSIGNED_NOTE, NONE, window)
            elif entry.new is None or entry.kwargs or rule.fix is NONE:
                self._add(node, message, NONE, window)
            else:
                applicability = rule.applicability_where(id(node) in self.called, None) if entry.is_call else None
                self._add(node, message, rule.fix if applicability is None else applicability, window, renames=True)
            return
        window = symbol.window
        if self.mined and window is not None and window.deprecated_in is None and window.removed_in is None:
            self._add(node, symbol.message.format(), NONE, None, kind=Kind.ADVICE)  # documented deprecated, silent
            return
        message = symbol.message.format(old=qualname, new=symbol.replacement)
        window = rule.symbol_window_at(symbol, self.target)
        if id(node) in self.no_fix:
            self._add(node, message + rule.ASSIGNED_NOTE, NONE, window)
        elif rule.renames_at(symbol, self.target):
            applicability = rule.applicability_where(id(node) in self.called, symbol.applicability)
            self._add(node, message, rule.fix if applicability is None else applicability, window, renames=True)
        else:
            self._add(node, message, NONE, window)

    def _add(self, node: Any, message: str, applicability: Any, window: Any, renames: bool = False, kind=None) -> None:
        """`Rule.report`: a report with a replacement (`renames`, its code left to LibCST) offers a fix."""
        if not renames:
            applicability = NONE
        replacement = True if renames else None
        rep = Report(None, node, message, applicability, replacement=replacement, window=window, kind=kind)  # type: ignore[arg-type]
        self.out.append((rep, node))


class Unsupported(Exception):
    """What the rule reports here is not made from the `ast` tree: the rule runs on LibCST in this file."""


class Survey:
    """One walk over the tree for every eligible rule of the file: each node's parent (and the field that holds it),
    the import and assignment bindings in source order (for the compat gates), and, in pre-order, the nodes a rule
    visits: calls, names and attributes that may refer to one of `wanted` (the rules' last names, or an alias),
    assignments to them, and decorated definitions."""

    def __init__(self, tree: ast.Module, wanted: frozenset[str], aliases: Any) -> None:
        self.parents: dict[int, tuple[Any, str]] = {}
        self.bindings: list[tuple[str, Any]] = []
        self.events: list[Any] = []
        self.has_global = False  # a `global` statement: the resolver then walks the whole module at once
        self.classes: list[ast.ClassDef] = []  # what own attributes read (advisor.analysis.fragments)
        parents, events, bindings = self.parents, self.events, self.bindings

        def may_refer(node: Any) -> bool:
            t = type(node)
            if t is ast.Attribute:
                return node.attr in wanted
            if t is ast.Name:
                return node.id in wanted or aliases is None or node.id in aliases
            return t is not ast.Subscript and t is not ast.Starred and t is not ast.Tuple and t is not ast.List

        stack: list[Any] = [tree]
        kinds, push, AST, CONST = _KINDS, stack.append, ast.AST, _CONSTANT
        while stack:
            node = stack.pop()
            t = type(node)
            kind = kinds.get(t)
            if kind is None:  # most nodes: only walked through
                pass
            elif kind is ast.Attribute:  # may_refer, inlined for the two commonest nodes
                if node.attr in wanted:
                    events.append(node)
            elif kind is ast.Name:
                if node.id in wanted or aliases is None or node.id in aliases:
                    events.append(node)
            elif kind is ast.Call:
                func = node.func
                if may_refer(func) or (type(func) is ast.Name and func.id == "getattr"):
                    events.append(node)
            elif kind is ast.Assign:
                bindings += [(n.id, n) for n in node.targets if type(n) is ast.Name]
                if any(may_refer(n) and type(n) in (ast.Name, ast.Attribute) for n in node.targets):
                    events.append(node)
            elif kind is ast.AugAssign:  # or an AnnAssign
                if type(node.target) in (ast.Name, ast.Attribute) and may_refer(node.target):
                    events.append(node)
            elif kind is ast.FunctionDef:  # any def or class
                if node.decorator_list:
                    events.append(node)
                if t is ast.ClassDef:
                    self.classes.append(node)
            elif kind is ast.Global:
                self.has_global = True
            elif kind is ast.Import:  # or ImportFrom
                events.append(node)
            else:  # an alias
                if node.name != "*":
                    bindings.append((node.asname or node.name.split(".")[0], node))
                continue
            fields = _FIELDS.get(t)
            if fields is None:
                fields = _FIELDS[t] = tuple(f for f in reversed(t._fields) if f not in _LEAF_FIELDS)
            # The last field's last child first onto the stack: popped last. A constant is no one's way up (no
            # reference, no gate is asked about one): neither walked nor given a parent, a fifth of the nodes.
            for field in fields:
                value = getattr(node, field, None)
                if type(value) is list:
                    pair = (node, field)
                    for item in reversed(value):
                        if isinstance(item, AST) and type(item) is not CONST:
                            parents[id(item)] = pair
                            push(item)
                elif isinstance(value, AST) and type(value) is not CONST:
                    parents[id(value)] = (node, field)
                    push(value)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# The nodes the survey reads, each by the branch that reads it (any other node is only walked through).
_KINDS: dict[type, type] = {
    **{t: t for t in (ast.Attribute, ast.Name, ast.Call, ast.Assign, ast.AugAssign, ast.Global, ast.Import)},
    ast.AnnAssign: ast.AugAssign,
    **dict.fromkeys(_DEFS, ast.FunctionDef),
    ast.ImportFrom: ast.Import,
    ast.alias: ast.alias,
}
_CONSTANT = ast.Constant
_LEAF_FIELDS = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "kind", "type_comment", "level", "module", "name"})
_FIELDS: dict[type, tuple[str, ...]] = {}
