"""Line/column positions of CST nodes, as LibCST's PositionProvider computes them, ~5x cheaper.

PositionProvider builds a CodeRange object per node and keys them by LibCST's
Python-level node hash; on a 1.3 MB file that alone costs ~12 s. We run the same
code generation with a lean state: tuples keyed by id(node). The semantics
(syntactic positions, hoisted from child nodes where LibCST does so, whitespace-
inclusive otherwise) are LibCST's own; tests/analysis/test_positions.py compares them.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator

_NEWLINE = re.compile(r"\r\n?|\n")


def compute_positions(module: Any) -> dict[int, tuple[int, int, int, int]]:
    """id(node) -> (start line, start column, end line, end column); lines 1-based, columns 0-based."""
    from advisor.syntax.walk import MODULE_WALKS

    MODULE_WALKS[0] += 1  # code generation goes over the whole tree too (tests/analysis/test_one_walk.py)
    return _generate(module, module, 1)


def _generate(module: Any, node: Any, line: int) -> dict[int, tuple[int, int, int, int]]:
    """The positions of `node`'s subtree, its code starting at column 0 of `line` (a top-level statement)."""
    from libcst._nodes.internal import CodegenState

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

    state = LeanState(module.default_indent, module.default_newline)
    state.line = line
    node._codegen(state)
    return state.computed


def statement_starts(tree: Any) -> list[int]:
    """The first line of each top-level statement of an `ast.Module` (its first decorator's, for a decorated one).

    CPython's statement nodes span their own tokens, parentheses included, so this is the line of
    the statement's first token.
    """
    return [min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]) for s in tree.body]


class StatementPositions:
    """`positions[id(node)]` for nodes of a module, computed only for the top-level statements asked about.

    Each statement is generated on its own from its first line: the lines before its first token are its
    own leading lines (comments, blank lines), which LibCST keeps on the statement. The line comes from
    `statement_starts` (the `ast` tree): LibCST's top-level statements are `ast`'s, a line of `a; b`
    holding several. When the two trees do not line up, or a node lies outside every statement, the whole
    module's positions are computed (compute_positions), as before.
    """

    def __init__(self, module: Any, starts: list[int], facts: Any) -> None:
        self.module = module
        self.facts = facts
        self._first_lines: dict[int, int] | None = None
        self._starts = starts
        self._done: dict[int, tuple[int, int, int, int]] = {}
        self._whole: dict[int, tuple[int, int, int, int]] | None = None
        self._statements: set[int] = set()

    def _lines(self) -> dict[int, int] | None:
        """id(top-level statement) -> the line its generated code starts on, or None if the trees disagree."""
        if self._first_lines is None:
            from libcst import FunctionDef, ClassDef, SimpleStatementLine

            lines: dict[int, int] = {}
            i = 0
            for stmt in self.module.body:
                if i >= len(self._starts):
                    return None
                before = len(stmt.leading_lines)
                if isinstance(stmt, (FunctionDef, ClassDef)) and stmt.decorators:
                    before += len(stmt.decorators[0].leading_lines)
                lines[id(stmt)] = self._starts[i] - before
                i += len(stmt.body) if isinstance(stmt, SimpleStatementLine) else 1
            if i != len(self._starts):
                return None
            self._first_lines = lines
        return self._first_lines

    def __getitem__(self, key: int) -> tuple[int, int, int, int]:
        if self._whole is not None:
            return self._whole[key]
        found = self._done.get(key)
        if found is not None:
            return found
        raise KeyError(key)

    def cover(self, node: Any) -> None:
        """Compute the positions of the top-level statement that holds `node`."""
        if self._whole is not None:
            return
        path = self.facts.path(node)
        lines = self._lines() if len(path) >= 2 and path[-1] is self.module else None
        stmt = path[-2] if lines is not None else None
        if stmt is None or lines is None or id(stmt) not in lines:
            self._whole = compute_positions(self.module)
            return
        if id(stmt) not in self._statements:
            self._statements.add(id(stmt))
            self._done.update(_generate(self.module, stmt, lines[id(stmt)]))
