"""Line/column positions of CST nodes, as LibCST's PositionProvider computes them, ~5x cheaper.

PositionProvider builds a CodeRange object per node and keys them by LibCST's
Python-level node hash; on a 1.3 MB file that alone costs ~12 s. We run the same
code generation with a lean state: tuples keyed by id(node). The semantics
(syntactic positions, hoisted from child nodes where LibCST does so, whitespace-
inclusive otherwise) are LibCST's own; tests/analysis/test_positions.py compares them.
"""

from __future__ import annotations

import functools
import re
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

_NEWLINE = re.compile(r"\r\n?|\n")


def compute_positions(module: Any) -> dict[int, tuple[int, int, int, int]]:
    """id(node) -> (start line, start column, end line, end column); lines 1-based, columns 0-based."""
    from advisor.syntax.walk import MODULE_WALKS

    MODULE_WALKS[0] += 1  # code generation goes over the whole tree too (tests/analysis/test_one_walk.py)
    return _generate(module, module, 1)


@functools.lru_cache(maxsize=1)
def _lean_state() -> type:
    """LibCST's code generation state, lean (made once: a class made per call is a cycle for the collector each)."""
    from libcst._nodes.internal import CodegenState  # lazy: LibCST loads only where positions are generated

    class LeanState(CodegenState):
        __slots__ = ("line", "column", "stack", "computed")

        def __init__(self, default_indent: str, default_newline: str) -> None:
            super().__init__(default_indent=default_indent, default_newline=default_newline)
            self.line = 1
            self.column = 0
            self.stack: list[tuple[int, int]] = []
            self.computed: dict[int, tuple[int, int, int, int]] = {}

        def _advance(self, value: str) -> None:
            if "\n" not in value and "\r" not in value:
                self.column += len(value)
                return
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])

        def add_indent_tokens(self) -> None:
            self.tokens.extend(self.indent_tokens)
            for token in self.indent_tokens:
                self._advance(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            self._advance(value)

        def before_codegen(self, node: Any) -> None:
            self.stack.append((self.line, self.column))

        def after_codegen(self, node: Any) -> None:
            start = self.stack.pop()
            key = id(node)
            if key not in self.computed:
                self.computed[key] = (start[0], start[1], self.line, self.column)

        @contextmanager
        def record_syntactic_position(
            self, node: Any, *, start_node: Any = None, end_node: Any = None
        ) -> Iterator[None]:
            start = (self.line, self.column)
            try:
                yield
            finally:
                end = (self.line, self.column)
                if start_node is not None:
                    s = self.computed[id(start_node)]
                    start = (s[0], s[1])
                if end_node is not None:
                    e = self.computed[id(end_node)]
                    end = (e[2], e[3])
                self.computed[id(node)] = (start[0], start[1], end[0], end[1])

    return LeanState


def _generate(module: Any, node: Any, line: int, indents: Sequence[str] = ()) -> dict[int, tuple[int, int, int, int]]:
    """The positions of `node`'s subtree, its code starting at column 0 of `line`: a top-level statement, or a
    statement of a block's body (`_BLOCKS`), `indents` the indentation of each block it is in."""
    state = _lean_state()(module.default_indent, module.default_newline)
    state.line = line
    state.indent_tokens.extend(indents)
    node._codegen(state)
    return state.computed


class Starts(list):
    """The first line of each top-level statement (a list); `inner[i]`, where statement i is a def or a class:
    (first line, inner) of each statement of its body, the same way down (else None)."""

    inner: list[Any]


def statement_starts(tree: Any) -> Starts:
    """The first line of each top-level statement of an `ast.Module` (its first decorator's, for a decorated one),
    and of each statement in the bodies of defs, classes and compound statements (`Starts.inner`: the first block
    of an `if`, `for`, `while`, `with` or `try`, where LibCST's node has the same body; not an `else`).

    CPython's statement nodes span their own tokens, parentheses included, so this is the line of
    the statement's first token.
    """
    starts = Starts(first_line(s) for s in tree.body)
    starts.inner = [_inner(s) for s in tree.body]
    return starts


def first_line(stmt: Any) -> int:
    """An `ast` statement's first line: its first decorator's, for a decorated one."""
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


def _inner(stmt: Any) -> list[tuple[int, Any]] | None:
    if type(stmt).__name__ not in _BLOCKS:
        return None
    return [(first_line(s), _inner(s)) for s in stmt.body]


# The statements whose `body` is a block of statements in `ast` and in LibCST alike (a position is generated for
# the innermost statement of such bodies that holds a node, not for the whole statement around it).
_BLOCKS = frozenset(
    {
        "FunctionDef",
        "AsyncFunctionDef",
        "ClassDef",
        "If",
        "For",
        "AsyncFor",
        "While",
        "With",
        "AsyncWith",
        "Try",
        "TryStar",
    }
)


def _before(stmt: Any) -> int:
    """The lines a statement's code has before its first token's: its leading lines, its first decorator's."""
    decorators = getattr(stmt, "decorators", None)
    return len(stmt.leading_lines) + (len(decorators[0].leading_lines) if decorators else 0)


def code_lines(statements: Sequence[Any], firsts: Sequence[int]) -> list[tuple[int, int]] | None:
    """For each LibCST statement of a body, (the line its generated code starts on, the index in `firsts` of the first
    `ast` statement it holds), `firsts` being the first lines of the same body's `ast` statements; None where the two
    do not line up (a line of `a; b` is one LibCST statement and two of `ast`'s)."""
    from libcst import SimpleStatementLine

    out, i = [], 0
    for stmt in statements:
        if i >= len(firsts):
            return None
        out.append((firsts[i] - _before(stmt), i))
        i += len(stmt.body) if type(stmt) is SimpleStatementLine else 1
    return out if i == len(firsts) else None


def _in_block(block: Any, child: Any, inner: list[tuple[int, Any]]) -> tuple[int, Any] | None:
    """(The line `child`'s code starts on, its own `inner`), `child` a statement of `block`, the body whose
    statements' first lines `inner` holds; None where the two trees do not line up."""
    lined = code_lines(block.body, [line for line, _ in inner])
    for stmt, (line, i) in zip(block.body, lined or ()):
        if stmt is child:
            return line, inner[i][1]
    return None


class StatementPositions:
    """`positions[id(node)]` for nodes of a module, computed only for the top-level statements asked about.

    Each statement is generated on its own from its first line: the lines before its first token are its
    own leading lines (comments, blank lines), which LibCST keeps on the statement. The line comes from
    `statement_starts` (the `ast` tree): LibCST's top-level statements are `ast`'s, a line of `a; b`
    holding several. When the two trees do not line up, or a node lies outside every statement, the whole
    module's positions are computed (compute_positions), as before.
    """

    def __init__(self, module: Any, starts: Starts, facts: Any) -> None:
        self.module = module
        self.facts = facts
        self._first_lines: dict[int, int] | None = None
        self._starts = starts
        self._done: dict[int, tuple[int, int, int, int]] = {}
        self._whole: dict[int, tuple[int, int, int, int]] | None = None
        self._statements: set[int] = set()
        self._inner: dict[int, Any] = {}  # id(top-level statement) -> its `Starts.inner`

    def _lines(self) -> dict[int, int] | None:
        """id(top-level statement) -> the line its generated code starts on, or None if the trees disagree."""
        if self._first_lines is None:
            lined = code_lines(self.module.body, self._starts)
            if lined is None:
                return None
            self._first_lines = {}
            for stmt, (line, i) in zip(self.module.body, lined):
                self._first_lines[id(stmt)] = line
                self._inner[id(stmt)] = self._starts.inner[i]
        return self._first_lines

    def __getitem__(self, key: int) -> tuple[int, int, int, int]:
        if self._whole is not None:
            return self._whole[key]
        found = self._done.get(key)
        if found is not None:
            return found
        raise KeyError(key)

    def cover(self, node: Any) -> None:
        """Compute the positions of the innermost statement that holds `node` among the top-level statements
        and, going down through the blocks of defs, classes and compound statements (`_BLOCKS`), the statements of
        their bodies."""
        if self._whole is not None or id(node) in self._done:
            return
        path = self.facts.path(node)
        current = self.facts.current
        if path[-1] is not self.module and current is not None:  # below the node being visited: its statement's
            path += self.facts.path(current)
        lines = self._lines() if len(path) >= 2 and path[-1] is self.module else None
        stmt = path[-2] if lines is not None else None
        if stmt is None or lines is None or id(stmt) not in lines:
            self._whole = compute_positions(self.module)
            return
        line, inner, indents = lines[id(stmt)], self._inner.get(id(stmt)), []
        k = len(path) - 2  # path[k] is `stmt`
        # A block's body (IndentedBlock) at path[k - 1], one of its statements at path[k - 2]
        while inner is not None and k >= 2 and path[k - 1] is getattr(path[k], "body", None):
            block = path[k - 1]
            found = _in_block(block, path[k - 2], inner) if hasattr(block, "indent") else None
            if found is None:
                break
            (line, inner), stmt, k = found, path[k - 2], k - 2
            indents.append(self.module.default_indent if block.indent is None else block.indent)
        if id(stmt) not in self._statements:
            self._statements.add(id(stmt))
            self._done.update(_generate(self.module, stmt, line, indents))
        if id(node) not in self._done:  # not below the node being visited after all
            self._whole = compute_positions(self.module)
