"""Line/column positions of CST nodes, as LibCST's PositionProvider computes them, ~5x cheaper.

PositionProvider builds a CodeRange object per node and keys them by LibCST's
Python-level node hash; on a 1.3 MB file that alone costs ~12 s. We run the same
code generation with a lean state: tuples keyed by id(node). The semantics
(syntactic positions, hoisted from child nodes where LibCST does so, whitespace-
inclusive otherwise) are LibCST's own; tests/test_positions.py compares them.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Any, Iterator

_NEWLINE = re.compile(r"\r\n?|\n")


def compute_positions(module: Any) -> dict[int, tuple[int, int, int, int]]:
    """id(node) -> (start line, start column, end line, end column); lines 1-based, columns 0-based."""
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
    module._codegen(state)
    return state.computed
