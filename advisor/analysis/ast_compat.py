"""Old-torch-only branches found upward from an `ast` node: `advisor.analysis.compat_marks`' answers without LibCST.

`AstCompat(tree, resolver, source, path).compat_of(node)` is, for a node of the `ast` tree, what `compat_marks.mark`
decides for the report of the same node in LibCST's tree: `_MISSING` (not in an old-only branch), `_UNKNOWN`
(`hasattr`, `try`/`except`: old-only, release unknown) or the release from which the branch is dead. The gates are
`advisor.analysis.ast_gates`'. Where the two trees are built differently, this follows LibCST's, which the passes
were written against: a block is an indented one (`if x: return` on one line is not), its statements are lines
(`a = 1; b = 2` is one), and `elif` is not `else:` around an `if`. `benchmarks/compat_agreement.py` compares both
on whole trees, every name, attribute and call.
"""

from __future__ import annotations

import ast
from typing import Any

from advisor.analysis.ast_gates import AstGates, assigned_values, dotted, identifiers
from advisor.syntax.ast_source import Source
from advisor.analysis.compat_blocks import decided
from advisor.analysis.compat import _API_ERRORS, _IMPORT_ERRORS, _MAX_TRY_STATEMENTS, _MISSING, _UNKNOWN

_LEAVES = (ast.Return, ast.Raise, ast.Break, ast.Continue)
_STATEMENT_LISTS = ("body", "orelse", "finalbody")


class AstCompat:
    def __init__(
        self,
        tree: ast.Module,
        resolver: Any,
        source: Source,
        path: str | None = None,
        parents: dict[int, tuple[Any, str]] | None = None,
        bindings: list[tuple[str, Any]] | None = None,
    ) -> None:
        """`parents` (id(node) -> (parent, the parent's field that holds it)) and `bindings` (`bindings()`'s) where
        the caller's own walk found them already."""
        self.tree, self.source = tree, source
        self.gates = AstGates(tree, resolver, source, path)
        self.resolver = resolver
        if parents is None:
            parents = {}
            for parent in ast.walk(tree):
                for field, value in ast.iter_fields(parent):
                    if isinstance(value, ast.AST):
                        parents[id(value)] = (parent, field)
                    elif type(value) is list:
                        for item in value:
                            if isinstance(item, ast.AST):
                                parents[id(item)] = (parent, field)
        self.parents = parents
        self._bindings = bindings
        self._until: dict[int, Any] = {}
        self._blocks: dict[tuple[int, str], _Block] = {}
        self._old_when: dict[tuple[int, bool], Any] = {}
        self._locals_of: dict[int, dict[str, Any]] = {}
        self._fallbacks: dict[int, list[int]] = {}
        self._both: dict[str, Any] = {}

    # -- what compat_marks.mark decides for a report of `node` -------------------------------------------

    def compat_of(self, node: Any) -> Any:
        until = self.until(node)
        if until is _MISSING:
            root = _root_name(node)
            until = self.both(root.id) if root is not None else _MISSING
        return until

    def until(self, node: Any) -> Any:
        if id(node) not in self._until:
            self._until[id(node)] = self._find(node)
        return self._until[id(node)]

    def chain(self, node: Any) -> tuple[list[Any], list[str]]:
        """`node` and its ancestors (the module last), and for each but the last the field of the next holding it."""
        chain, fields = [node], []
        up = self.parents.get(id(node))
        while up is not None:
            chain.append(up[0])
            fields.append(up[1])
            up = self.parents.get(id(up[0]))
        return chain, fields

    def _find(self, node: Any) -> Any:
        chain, fields = self.chain(node)
        outer_first = range(len(chain) - 1, 0, -1)
        for k in outer_first:
            owner, child, field = chain[k], chain[k - 1], fields[k - 1]
            if field in _STATEMENT_LISTS and type(getattr(owner, field)) is list and self.is_block(owner, field):
                block = self._block(owner, field)
                until = block.until(child)
                if until is not None:
                    return until
        for k in outer_first:
            owner = chain[k]
            if type(owner) is ast.If and fields[k - 1] == "body" and self._probed(owner, chain[:k]):
                return _UNKNOWN
        for k in outer_first:
            found = self._branch(chain, fields, k)
            if found is not _MISSING:
                return found
        return _MISSING

    def _branch(self, chain: list[Any], fields: list[str], k: int) -> Any:
        node, field = chain[k], fields[k - 1]
        if type(node) is ast.Try:
            handler = chain[k - 1]
            if k >= 2 and field == "handlers" and fields[k - 2] == "body":
                return _UNKNOWN if id(handler) in self._caught(node) else _MISSING
            return _MISSING
        if type(node) not in (ast.If, ast.IfExp):
            return _MISSING
        if field in ("body", "orelse"):
            until = self.old_when(node.test, field == "body")
            if until is not None:
                return until
        child = chain[k - 1]
        if (
            type(node) is ast.If
            and field == "orelse"
            and self.is_elif(child, node)
            and k >= 2
            and fields[k - 2] == "body"
            and self._elif_probe(node)
        ):
            return _UNKNOWN
        return _MISSING

    # -- the tree as LibCST has it -------------------------------------------------------------------------

    def is_elif(self, node: Any, parent: Any) -> bool:
        """`node` is the `elif` of the `if` `parent` (not an `if` alone in an `else:`)."""
        if type(node) is not ast.If or len(parent.orelse) != 1 or parent.orelse[0] is not node:
            return False
        line = self.source.segment_line(node.lineno)
        return line[node.col_offset : node.col_offset + 4] == b"elif"

    def is_block(self, owner: Any, field: str) -> bool:
        """LibCST's `Module` or `IndentedBlock`: not a one-line suite (`if x: return`), not an `elif`."""
        stmts = getattr(owner, field)
        if not stmts or type(owner) is ast.Module:
            return True
        if field == "orelse" and self.is_elif(stmts[0], owner):
            return False
        first = stmts[0]
        before = self.source.segment_line(first.lineno)[: first.col_offset].strip()
        return not before.endswith(b":")

    def lines(self, stmts: list[Any]) -> list[list[Any]]:
        """The statements grouped as LibCST's statement lines: `a = 1; b = 2` is one."""
        out: list[list[Any]] = []
        for stmt in stmts:
            if out and stmt.lineno == out[-1][-1].end_lineno:
                out[-1].append(stmt)
            else:
                out.append([stmt])
        return out

    def _block(self, owner: Any, field: str) -> _Block:
        key = (id(owner), field)
        if key not in self._blocks:
            self._blocks[key] = _Block(self, getattr(owner, field))
        return self._blocks[key]

    # -- gates, with the enclosing function's assignments ------------------------------------------------

    def old_when(self, test: Any, outcome: bool) -> Any:
        key = (id(test), outcome)
        if key not in self._old_when:
            self.gates.local = self._locals(test)
            self._old_when[key] = self.gates.old_when(test, outcome)
            self.gates.local = {}
        return self._old_when[key]

    def _locals(self, test: Any) -> dict[str, Any]:
        """compat_marks._Branches._locals: the simple assignments of the function `test` is in, nested blocks and
        functions included, one-line suites not; the first in the source wins."""
        chain, _ = self.chain(test)
        func = next((p for p in chain if type(p) in (ast.FunctionDef, ast.AsyncFunctionDef)), None)
        if func is None:
            return {}
        if id(func) not in self._locals_of:
            lines: list[list[Any]] = []
            self._simple_lines(func, "body", lines)
            found: dict[str, Any] = {}
            for line in reversed(lines):
                for small in line:
                    found.update(assigned_values(small))
            self._locals_of[id(func)] = found
        return self._locals_of[id(func)]

    def _simple_lines(self, owner: Any, field: str, out: list[list[Any]]) -> None:
        """The statement lines of the indented blocks below `owner.field`, in source order."""
        stmts = getattr(owner, field)
        indented = self.is_block(owner, field)
        for line in self.lines(stmts):
            if not _compound(line[0]):
                if indented:
                    out.append(line)
                continue
            stmt = line[0]
            for sub, value in ast.iter_fields(stmt):
                if sub in _STATEMENT_LISTS and value:
                    self._simple_lines(stmt, sub, out)
                elif sub == "handlers":
                    for handler in value:
                        self._simple_lines(handler, "body", out)
                elif sub == "cases":
                    for case in value:
                        self._simple_lines(case, "body", out)

    # -- try fallbacks, probes ---------------------------------------------------------------------------

    def _caught(self, node: ast.Try) -> list[int]:
        """compat._try_fallbacks: ids of the handlers of an import / attribute fallback `try` on torch."""
        if id(node) in self._fallbacks:
            return self._fallbacks[id(node)]
        caught: list[int] = []
        suite = not self.is_block(node, "body")
        count = len(node.body) if suite else len(self.lines(node.body))
        if count <= _MAX_TRY_STATEMENTS:
            mentions = any(self._mentions(stmt) for stmt in node.body)
            for h in node.handlers:
                if h.type is None:  # a bare `except:` after a short torch try: the fallback path
                    caught += [id(h)] if mentions else []
                    continue
                kinds = h.type.elts if type(h.type) is ast.Tuple else [h.type]
                names = {dotted(k).rsplit(".", 1)[-1] for k in kinds}
                if names and names <= _IMPORT_ERRORS and (mentions or names <= _API_ERRORS):
                    caught.append(id(h))
        self._fallbacks[id(node)] = caught
        return caught

    def _mentions(self, stmt: Any) -> bool:
        """An import from torch, or a name or attribute that is torch's, anywhere in `stmt`."""
        for n in ast.walk(stmt):
            if type(n) is ast.ImportFrom and n.module is not None and n.module.split(".")[0] == "torch":
                return True
            if type(n) is ast.Attribute and (self.gates.is_torch(n) or n.attr == "torch"):
                return True
        return any(
            self.gates.is_torch(name_node) if name_node is not None else name == "torch"
            for name_node, name in identifiers(stmt)
        )

    def _probed(self, node: ast.If, below: list[Any]) -> bool:
        """compat_blocks.probed: `if hasattr(X, "name"):` above a use of `X.name`."""
        test: Any = node.test
        if not self._is_probe(test):
            return False
        owner = dotted(test.args[0])
        raw = self.source.simple_string(test.args[1]) or ""
        name = raw.strip("\"'")
        if not owner:
            return False
        for n in below:
            ref = n.func if type(n) is ast.Call else n if type(n) is ast.Attribute else None
            if type(ref) is ast.Attribute and ref.attr == name and dotted(ref.value) == owner:
                return True
        return False

    def _is_probe(self, test: Any) -> bool:
        """compat_blocks.is_probe: `hasattr(anything, "name")`."""
        return (
            type(test) is ast.Call
            and dotted(test.func) == "hasattr"
            and len(test.args) == 2
            and not test.keywords
            and self.source.simple_string(test.args[1]) is not None
        )

    def _elif_probe(self, node: ast.If) -> bool:
        nxt: Any = node.orelse[0]
        if not self._is_probe(nxt.test):
            return False
        return self._is_probe(node.test) or self.gates.test(node.test) is not None

    # -- a name bound both in an old-only branch and elsewhere ------------------------------------------

    def both(self, root: str) -> Any:
        if root not in self._both:
            old, new = _MISSING, False
            for name, node in reversed(self.bindings()):  # as compat_marks._both_now: the last binding first
                if name != root:
                    continue
                until = self.until(node)
                if until is _MISSING:
                    new = True
                elif old is _MISSING:
                    old = until
            self._both[root] = old if new else _MISSING
        return self._both[root]

    def bindings(self) -> list[tuple[str, Any]]:
        """(name, node) of every import alias and plain assignment target, in source order."""
        if self._bindings is None:
            found: list[tuple[str, Any]] = []
            for n in ast.walk(self.tree):
                if type(n) is ast.alias and n.name != "*":
                    found.append((n.asname or n.name.split(".")[0], n))
                elif type(n) is ast.Assign:
                    found += [(t.id, t) for t in n.targets if type(t) is ast.Name]
            found.sort(key=lambda pair: (pair[1].lineno, pair[1].col_offset))
            self._bindings = found
        return self._bindings


class _Block:
    """compat_blocks.BlockGates: one block's gate `if`s (no `else`, its false side old-only), read once."""

    def __init__(self, compat: AstCompat, stmts: list[Any]) -> None:
        # `compat` is not kept: a block kept by the AstCompat that keeps it would be a cycle, and the tree behind it
        # would wait for the collector instead of going when the file's analysis ends
        self.lines = compat.lines(stmts)
        self.index = {id(stmt): i for i, line in enumerate(self.lines) for stmt in line}
        self.gates: list[tuple[int, Any, bool, set[str]]] = []
        for i, line in enumerate(self.lines):
            other = line[0]
            if type(other) is not ast.If or other.orelse:
                continue
            until = compat.old_when(other.test, False)
            if until is not None:
                self.gates.append((i, until, _leaves_or_falls_back(other.body), _branch_assigns(other.body)))

    def until(self, stmt: Any) -> Any:
        j = self.index.get(id(stmt))
        return None if j is None else decided(self.gates, j, _assigned(self.lines[j]))


def _compound(stmt: Any) -> bool:
    return any(hasattr(stmt, f) for f in ("body", "handlers", "cases"))


def _leaves_or_falls_back(body: list[Any]) -> bool:
    """compat_blocks._leaves_or_falls_back: the block ends in return/raise/break/continue, or in a `try` / `with`
    whose own body does."""
    last = body[-1]
    if type(last) in _LEAVES:
        return True
    return type(last) in (ast.Try, ast.With, ast.AsyncWith) and _leaves_or_falls_back(last.body)


def _assigned(line: list[Any]) -> set[str]:
    """compat_blocks._assigned: the names a statement line binds by `=` or import (not in nested scopes)."""
    out: set[str] = set()
    for small in line:
        if type(small) is ast.Assign:
            out.update(t.id for t in small.targets if type(t) is ast.Name)
        elif type(small) in (ast.Import, ast.ImportFrom):
            out.update(a.asname or a.name.split(".")[0] for a in small.names if a.name != "*")
    return out


def _branch_assigns(body: list[Any]) -> set[str]:
    """compat_blocks._branch_assigns: names the branch rebinds without reading them."""
    read = {name for small in body if type(small) is ast.Assign for _, name in identifiers(small.value)}
    return set().union(*(_assigned([s]) for s in body)) - read


def _root_name(node: Any) -> Any:
    node = node.func if type(node) is ast.Call else node
    while type(node) is ast.Attribute:
        node = node.value
    return node if type(node) is ast.Name else None
