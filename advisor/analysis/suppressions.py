"""Inline suppressions on the reported line.

`# advisor: ignore[ADV101, ADV2]`, `# advisor: ignore` (every rule) and
`# noqa: ADV101` (Ruff/flake8 style; a bare `# noqa` also silences us, as in
Ruff). Codes may be prefixes. A comment line `# advisor: ignore-file` (or
`# advisor: ignore-file[ADV7]`) anywhere in the file silences the whole file, as
Ruff's `# ruff: noqa`. Scan and fix read the same suppressions, so a
suppressed finding is neither reported nor fixed.

In Python only real comments suppress: a docstring that documents `# advisor: ignore-file`, or a string
such as `enabled='# noqa'` on the flagged line, silences nothing (the tokenizer tells comments from strings,
and runs only on files that mention a suppression at all).
"""

from __future__ import annotations

import io
import re
import tokenize

from advisor.core.textlines import split_lines

_ADVISOR = re.compile(r"#\s*advisor\s*:\s*ignore\b(?!-)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa\b(?::\s*(?P<codes>[A-Z]+\d*(?:[\s,]+[A-Z]+\d*)*))?", re.IGNORECASE)

_FILE = re.compile(r"^[ \t]*#\s*advisor\s*:\s*ignore-file\b(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)

ALL = "*"
_MENTION = re.compile(r"#\s*(?:advisor|noqa)", re.IGNORECASE)  # cheap test before tokenizing


def _comment_tokens(source: str) -> dict[int, str] | None:
    """Each line's comment (as the tokenizer numbers lines), or None where the source does not tokenize."""
    comments: dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.COMMENT:
                comments[tok.start[0]] = tok.string
    except (tokenize.TokenError, SyntaxError):  # not Python after all: fall back to whole lines
        return None
    return comments


def _codes(text: str | None) -> set[str]:
    if text is None:
        return {ALL}
    return {c.strip().upper() for c in re.split(r"[\s,]+", text) if c.strip()}


def suppressed_codes(line: str) -> set[str]:
    """Codes (or ALL) that a comment on this source line suppresses."""
    if "#" not in line:
        return set()
    out: set[str] = set()
    for m in _ADVISOR.finditer(line):
        out |= _codes(m.group("codes"))
    for m in _NOQA.finditer(line):
        out |= _codes(m.group("codes"))
    return out


class Suppressions:
    def __init__(self, source: str, python: bool = True) -> None:
        self._source = source
        self._python = python
        self._tokens: dict[int, str] | None = None
        self._tokenized = False
        self._cache: dict[int, set[str]] = {}
        self._file: set[str] = set()  # what `# advisor: ignore-file` silences everywhere
        mentioned = _MENTION.search(source) is not None
        # numbered as the tokenizer numbers them, as findings are; nothing to read when nothing is mentioned
        self._lines = split_lines(source) if mentioned else []
        if mentioned and "ignore-file" in source:
            for number, line in enumerate(self._lines, 1):
                if not _FILE.match(line):  # the raw line first: a comment that matches is on it
                    continue
                comments = self._comments()
                if comments is not None:  # the comment must stand alone on its line
                    comment = comments.get(number)
                    line = comment if comment is not None and line.strip() == comment.strip() else ""
                if m := _FILE.match(line):
                    self._file |= _codes(m.group("codes"))

    def _comments(self) -> dict[int, str] | None:
        """Python: each line's comment token (tokenized once, and only when a line's text mentions a
        suppression). Other text files (shell, Dockerfiles), or Python that does not tokenize: None, the line."""
        if not self._tokenized:
            self._tokenized = True
            self._tokens = _comment_tokens(self._source) if self._python else None
        return self._tokens

    def _for_line(self, line: int) -> set[str]:
        if line not in self._cache:
            text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
            codes = suppressed_codes(text)
            if codes:  # the raw line mentions one; in Python only a real comment counts
                comments = self._comments()
                if comments is not None:
                    codes = suppressed_codes(comments.get(line, ""))
            self._cache[line] = codes
        return self._cache[line]

    def is_suppressed(self, code: str, line: int, end_line: int | None = None) -> bool:
        """A comment on the first or last line of the flagged node suppresses it."""
        for codes in (self._file, *(self._for_line(ln) for ln in {line, end_line or line})):
            if ALL in codes or any(code.startswith(c) for c in codes):
                return True
        return False
