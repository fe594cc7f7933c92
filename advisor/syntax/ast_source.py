"""A module's text beside its `ast` tree, for what `ast` does not keep: a literal's own spelling.

The `ast` readers that must read code as LibCST's node types do (advisor.syntax.ast_names, advisor.analysis.ast_gates)
tell a string literal from another by its tokens here: one STRING token is LibCST's `SimpleString`; `"a" "b"` is two.
"""

from __future__ import annotations

import ast
import io
import tokenize
from typing import Any

from advisor.core.textlines import split_lines


class Source:
    """A module's text, for what `ast` does not keep: a literal's own spelling."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lines: list[bytes] | None = None

    def segment_line(self, lineno: int) -> bytes:
        """Line `lineno` (1-based) as UTF-8, the unit of `ast`'s column offsets."""
        if self._lines is None:
            self._lines = [line.encode("utf-8", "surrogatepass") for line in split_lines(self.text, keepends=True)]
        return self._lines[lineno - 1] if lineno <= len(self._lines) else b""

    def segment(self, node: Any) -> str:
        """The source text of `node` (without the parentheses around it, as LibCST's positions)."""
        lines = [self.segment_line(n) for n in range(node.lineno, node.end_lineno + 1)]
        if len(lines) == 1:
            return lines[0][node.col_offset : node.end_col_offset].decode("utf-8", "surrogatepass")
        joined = b"".join(lines)
        end = len(joined) - len(lines[-1]) + node.end_col_offset
        return joined[node.col_offset : end].decode("utf-8", "surrogatepass")

    def string_tokens(self, node: Any) -> list[str]:
        """The STRING tokens a str or bytes literal is written as (two for `"a" "b"`); [] for anything else."""
        if type(node) is not ast.Constant or type(node.value) not in (str, bytes):
            return []
        text = self.segment(node)
        quote = text[-1:]
        if quote in ("'", '"') and text.count(quote) == 2 and "\\" not in text:  # one literal, nothing between
            return [text]
        try:
            tokens = tokenize.generate_tokens(io.StringIO("(" + text + ")").readline)
            return [t.string for t in tokens if t.type == tokenize.STRING]
        except (tokenize.TokenError, SyntaxError):
            return []

    def simple_string(self, node: Any) -> str | None:
        """The raw text of a LibCST `SimpleString` (one literal token), else None."""
        tokens = self.string_tokens(node)
        return tokens[0] if len(tokens) == 1 else None
