"""Where a file's `ast` binds and reads some names: what advisor.fix.replace.classify decides an import's use from."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from typing import Iterable, Iterator, Sequence

from advisor.fix.unimport import Removal

Span = tuple[int, int, int, int]  # 1-based lines, 0-based character columns, end exclusive

_SCOPES: tuple[type[ast.AST], ...] = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_SCOPES += (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def uses_of(text: str, names: frozenset[str], starts: Sequence[int] | None = None) -> tuple[Uses | None, list[str]]:
    """`Uses` of `names` in `text`; `starts` (the first line of each top-level statement, in order): only the
    statements that hold one of `names` as a word are parsed and walked (everything `Uses` records of them, an import
    of one, a binding, a read, a string naming one, is in such a statement), the others left blank, on their lines."""
    lines = re.split(r"\r\n|\r|\n", text)
    uses = Uses(set(names))
    try:
        tree = ast.parse(_holding(lines, uses.words, starts) if starts else text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None, []
    uses.walk(tree)
    return uses, lines


def _holding(lines: list[str], words: re.Pattern[str], starts: Sequence[int]) -> str:
    """The text of `lines` with only the top-level statements (from each of `starts` to the next) that `words` finds
    a match in; every other line left empty, so that lines and columns stay."""
    kept = [""] * len(lines)
    bounds = [*starts, len(lines) + 1]
    for first, end in zip(bounds, bounds[1:]):
        statement = lines[first - 1 : end - 1]
        if words.search("\n".join(statement)):
            kept[first - 1 : end - 1] = statement
    return "\n".join(kept)


# The nodes that bind a name where they stand and are not read on their own (`_bound_names`; imports, names and
# `global` have their own steps in `Uses.walk`).
_BINDERS = (ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.ExceptHandler, ast.MatchAs, ast.MatchStar)


class Uses:
    """Imports of every kind, and where `names` occur, in one pass over the `ast`."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.words = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, sorted(names))))
        self.imports: dict[Removal, int] = {}
        self.nested_imports: set[Removal] = set()
        self.nested_in: dict[Removal, tuple[ast.AST, tuple[int, int]]] = {}  # a nested import's scope, position
        self.reads: list[tuple[ast.Name, tuple[ast.AST, ...]]] = []  # every load of `names`, with its scopes
        self.relative_names: set[str] = set()
        self.module_binds: dict[str, int] = {}  # bindings of `names` at module scope, imports included
        self.globals: set[str] = set()  # `names` declared global (or nonlocal) somewhere
        self.every: dict[str, list[ast.Name]] = {}  # every `Name` of them, in any context
        self.loads: set[ast.Name] = set()  # the loads that read the module's binding (no enclosing rebinding)
        self.in_strings: set[str] = set()  # those a string holds as a word
        self._rebinding: dict[int, set[str]] = {}  # id(scope) -> the names of `names` anything in it binds

    def walk(self, tree: ast.AST) -> None:
        """Every node, each with the scopes (not the module) it is in. Order does not matter: only counts and sets
        are kept. Each binding of one of `names` is counted for every scope around it as it is met, so a load is
        decided at the end, once every scope's bindings are known (one pass: a walk of each scope with a load, as
        before, walked a big class again for every method that read the name)."""
        stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]
        while stack:
            node, scopes = stack.pop()
            t = type(node)
            if t is ast.Name:
                self._name(node, scopes)  # type: ignore[arg-type]
            elif t is ast.Import or t is ast.ImportFrom:
                self._import(node, scopes)  # type: ignore[arg-type]
            elif t is ast.Constant:
                self._constant(node)  # type: ignore[arg-type]
            elif t is ast.Global or t is ast.Nonlocal:
                names = [n for n in node.names if n in self.names]  # type: ignore[attr-defined]
                self.globals.update(names)
                self._boundinside(names, scopes)
            else:
                if isinstance(node, _BINDERS):  # a def, a class, an argument, an `except ... as`, a match capture
                    bound = [n for n in _bound_names(node) if n in self.names]
                    if not scopes:
                        for name in bound:
                            self._bound(name)
                    self._boundinside(bound, scopes)
                if isinstance(node, _SCOPES):
                    scopes = (*scopes, node)
                stack.extend((child, scopes) for child in ast.iter_child_nodes(node))
        rebinding = self._rebinding
        self.loads = {n for n, scopes in self.reads if not any(n.id in rebinding.get(id(s), ()) for s in scopes)}

    def _bound(self, name: str | None) -> None:
        """A binding at module scope."""
        if name is not None and name in self.names:
            self.module_binds[name] = self.module_binds.get(name, 0) + 1

    def _boundinside(self, names: Iterable[str], scopes: tuple[ast.AST, ...]) -> None:
        """Bindings of `names` (of `self.names`) inside each of `scopes` (nested scopes too: more than Python's rule,
        so never less)."""
        for name in names:
            for scope in scopes:
                self._rebinding.setdefault(id(scope), set()).add(name)

    def _import(self, node: ast.Import | ast.ImportFrom, scopes: tuple[ast.AST, ...]) -> None:
        module = (node.module or "") if isinstance(node, ast.ImportFrom) else None  # None: `import m`
        for alias in node.names:
            if isinstance(node, ast.ImportFrom) and node.level:
                self.relative_names.add(alias.name)
            else:
                removal = (alias.name, None, alias.asname) if module is None else (module, alias.name, alias.asname)
                self.imports[removal] = self.imports.get(removal, 0) + 1
                if scopes:
                    self.nested_imports.add(removal)
                    self.nested_in[removal] = (scopes[-1], (node.lineno, node.col_offset))
        bound = [n for n in _bound_names(node) if n in self.names]
        if not scopes:
            for name in bound:
                self._bound(name)
        self._boundinside(bound, scopes)

    def _name(self, node: ast.Name, scopes: tuple[ast.AST, ...]) -> None:
        if node.id not in self.names:
            return
        self.every.setdefault(node.id, []).append(node)
        if not isinstance(node.ctx, ast.Load):
            if not scopes:
                self._bound(node.id)
            self._boundinside((node.id,), scopes)
        else:
            self.reads.append((node, scopes))

    def _constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            found = set(self.words.findall(node.value)) - self.in_strings
            if found:  # only a string that is an expression naming it (an annotation, `__all__`): not prose
                self.in_strings.update(found & _expression_names(node.value))


def _bound_names(node: ast.AST) -> Iterator[str]:
    """The names `node` itself binds (or, `global`/`nonlocal`, takes from another scope) where it stands."""
    if isinstance(node, ast.Name):
        if not isinstance(node.ctx, ast.Load):
            yield node.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.Import):
        yield from (a.asname or a.name.partition(".")[0] for a in node.names)
    elif isinstance(node, ast.ImportFrom):
        yield from (a.asname or a.name for a in node.names)
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
        yield node.name


def char_position(lines: list[str], node: ast.Name) -> Span:
    """(line, column, end line, end column) of `node` in characters (`ast` counts UTF-8 bytes)."""
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    if line.isascii():
        start, end = node.col_offset, node.end_col_offset or node.col_offset
    else:
        raw = line.encode("utf-8")
        start = len(raw[: node.col_offset].decode("utf-8", "replace"))
        end = len(raw[: node.end_col_offset or node.col_offset].decode("utf-8", "replace"))
    return node.lineno, start, node.end_lineno or node.lineno, end


def inside(where: Span, spans: list[Span]) -> bool:
    line, column, end_line, end_column = where
    return any((s[0], s[1]) <= (line, column) and (end_line, end_column) <= (s[2], s[3]) for s in spans)


@lru_cache(maxsize=1024)
def _expression_names(text: str) -> frozenset[str]:
    """The `Name`s of `text` read as a Python expression, as LibCST reads a string annotation (none: it is not
    one, such as a docstring's prose)."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return frozenset()
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name))
