"""What a file's text shows without a parse: where its code is (not a comment, not a string), its whole words,
the dotted name a word ends, the shape of a call. The text gate (advisor.analysis.text_gate) reads files with these.

Each over-approximates what `ast` would find: where the text cannot tell, the answer is the one that keeps the file.
"""

from __future__ import annotations

import bisect
from keyword import kwlist, softkwlist
import re
from functools import lru_cache
from typing import Iterator

from advisor.rule.gates import TEXT_GAP, TEXT_GAPS

_GAP = b" \t\f\\\r\n"
_WORDY = frozenset(c for c in range(256) if c == 95 or chr(c).isalnum() or c >= 128)  # bytes of a word (UTF-8 too)
# A comment, or a string literal from its quote to its end (or its line's or the file's, where it is not closed), as
# the tokenizer reads them; each loop unrolled (`[^"]*(?:escape[^"]*)*`), which `re` matches 2x faster than `(a|b)*`.
_NOT_CODE = re.compile(
    rb"#[^\r\n]*"
    rb'|"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:"""|\Z)'
    rb"|'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|\Z)"
    rb'|"[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*(?:"|(?=[\r\n])|\Z)'
    rb"|'[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*(?:'|(?=[\r\n])|\Z)"
)


class Code:
    """Which positions of a file are code, not in a comment or a string constant (or in an f-string's text outside
    its replacement fields). The file is read from its start only as far as asked: a gate asks only where the text
    would pass it, and most of what passes is early (an import) or in a docstring near the top.

    A Python 3.12 f-string that nests its own quotes (`f"{d["k"]}"`) is read short, as Python 3.11 reads it: where an
    f-string's braces do not pair, everything from it on is taken for code."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts: list[int] = []  # the comments and strings read so far, in order: where each starts...
        self.ends: list[int] = []  # ...and ends
        self.fields: set[int] = set()  # the starts of those that are f-strings
        self.read = 0  # the text before here is read; here is code (where the last comment or string ended)
        self.until = len(data) + 1  # from here on everything is code

    def __contains__(self, pos: int) -> bool:
        start = self._span(pos)
        if pos >= self.until or start is None:
            return True
        data = self.data
        return start in self.fields and _open_braces(data[start:pos]) > 0

    def comment_start(self, pos: int) -> int | None:
        """Where the comment `pos` is in starts, or None (code, a string)."""
        start = self._span(pos)
        return start if pos < self.until and start is not None and self.data[start] == 35 else None  # "#"

    def _span(self, pos: int) -> int | None:
        """Where the comment or the string `pos` is in starts (the file read as far as `pos`), or None."""
        data = self.data
        while self.read <= pos < self.until:
            m = _NOT_CODE.search(data, self.read)
            if m is None:
                self.read = len(data) + 1
                break
            start, end = m.span()
            if _f_string(data, start):
                if _open_braces(data[start:end]):
                    self.until = start  # read short: from here on, everything is taken for code
                    break
                self.fields.add(start)
            self.starts.append(start)
            self.ends.append(end)
            self.read = end
        i = bisect.bisect_right(self.starts, pos) - 1
        return self.starts[i] if i >= 0 and pos < self.ends[i] else None


def _open_braces(text: bytes) -> int:
    """The replacement fields an f-string's text opens and does not close; `{{` and `}}` are braces of its text (code
    that writes C with f-strings doubles many)."""
    text = text.replace(b"{{", b"").replace(b"}}", b"")
    return text.count(b"{") - text.count(b"}")


def _f_string(data: bytes, start: int) -> bool:
    """Does an f-string's quote (`f"`, `rf'`, `Fr"`) start at `start` (a comment's `#` or a string's quote)?"""
    before = data[max(start - 2, 0) : start]
    return before[-1:] in (b"f", b"F") or (before[-1:] in (b"r", b"R") and before[:1] in (b"f", b"F"))


_GAP_OR_COMMENT = TEXT_GAPS.encode()


@lru_cache(maxsize=1024)
def importing(name: str) -> re.Pattern[bytes]:
    """A call of an importing function (`import_module("a.b")`), from its name, whose first argument is a string
    constant: all that `collect` binds a name by (ast_parts.imported_module)."""
    gap = _GAP_OR_COMMENT
    return re.compile(re.escape(name.encode()) + gap + rb"\((?:" + gap + rb"\()*" + gap + rb"[rRuU]?[\"']")


# `getattr(a.b, "name")`, as `ast_parts.getattr_chain` reads one: `getattr` itself (not `x.getattr`), a first argument
# that may be a dotted name (words, dots, parentheses; gaps and comments between), a quoted name last. One pattern for
# every name (each name's own cost more to compile than to search with), starting with the literal `getattr`.
_GETATTR = re.compile(
    rb"getattr(?<![\w.]getattr)"
    + _GAP_OR_COMMENT
    + rb"\((?:[\w.()\x80-\xff \t\f\\\r\n]|#[^\r\n]*+)*+,"
    + _GAP_OR_COMMENT
    + rb"([\"'])(\w+)\1"
    + _GAP_OR_COMMENT
    + rb"(?:,"
    + _GAP_OR_COMMENT
    + rb")?\)"
)


def getattr_names(data: bytes, code: Code) -> set[bytes]:
    """The names `getattr` calls in code get from a dotted name (ast_parts.getattr_chain); `setattr(m, "name", f)`,
    `getattr(m, "name", None)` and `f(a, "name")` get none. Each match is looked past by one byte, not to its end:
    one in a comment may run on into a line of code."""
    names: set[bytes] = set()
    m = _GETATTR.search(data)
    while m is not None:
        if m.start() in code:
            names.add(m.group(2))
        m = _GETATTR.search(data, m.start() + 1)
    return names


@lru_cache(maxsize=1024)
def getattr_call(name: bytes) -> re.Pattern[bytes]:
    """`"name")(`: a `getattr`'s name, its result called (`References.calls` has it under `name`); comments may be
    in the gaps."""
    gap = _GAP_OR_COMMENT
    return re.compile(rb"([\"'])" + re.escape(name) + rb"\1" + gap + rb",?" + gap + rb"\)" + gap + rb"\(")


@lru_cache(maxsize=1024)
def call(name: bytes) -> re.Pattern[bytes]:
    """`name(`, `name  #`, matched where the word `name` is."""
    return re.compile(re.escape(name) + TEXT_GAP.encode() + rb"*[(#]")


def defined(data: bytes, pos: int) -> bool:
    """Is the name at `pos` the one a `def` or a `class` statement defines (not a call)?"""
    i = pos
    while i and data[i - 1] in b" \t":
        i -= 1
    for keyword in (b"def", b"class"):
        start = i - len(keyword)
        if start >= 0 and data[start:i] == keyword and (start == 0 or data[start - 1] not in _WORDY):
            return True
    return False


def chains_to(data: bytes, last: bytes, code: Code) -> list[tuple[int, list[bytes] | None]]:
    """Where the word `last` is part of a dotted name, and its words before `last` (`_chain_before`; None where the
    text cannot tell of one)."""
    out: list[tuple[int, list[bytes] | None]] = []
    for pos in occurrences(data, last):
        chain = _chain_before(data, pos, code)
        if chain is None or chain:
            out.append((pos, chain))
    return out


def binding_call(data: bytes, pos: int, code: Code) -> bool:
    """May the call whose callee's last name starts at `pos` be the whole value of an assignment (`m = import_module(`,
    `m = (lib.import_module(`), as `collect` binds a name to an importing call's module? Not where it is returned,
    passed, compared or awaited; yes where the text cannot tell (`f().import_module(`, `x[0].import_module(`)."""
    i = code_before(data, pos, code)
    while i and data[i - 1] == 46:  # "." of the callee's dotted head: the name before it
        i = code_before(data, i - 1, code)
        if not i or data[i - 1] not in _WORDY:
            return True
        while i and data[i - 1] in _WORDY:
            i -= 1
        i = code_before(data, i, code)
    while i and data[i - 1] == 40:  # "(": `m = (import_module(...))`
        i = code_before(data, i - 1, code)
    return i > 0 and data[i - 1] == 61 and (i < 2 or data[i - 2] not in b"=<>!:")  # `=`, not `==` or `:=`


def occurrences(data: bytes, word: bytes) -> Iterator[int]:
    """Where `word` is in `data` as a whole word."""
    n, size = len(word), len(data)
    pos = data.find(word)
    while pos != -1:
        end = pos + n
        if (pos == 0 or data[pos - 1] not in _WORDY) and (end == size or data[end] not in _WORDY):
            yield pos
        pos = data.find(word, pos + 1)


def line_start(data: bytes, pos: int) -> int:
    """Where the line holding `pos` starts (after a `\\n` or a `\\r`; a `\\r` is looked for only after the last
    `\\n`, not back to the file's start)."""
    newline = data.rfind(b"\n", 0, pos)
    return max(newline, data.rfind(b"\r", newline + 1, pos)) + 1


def attribute_at(data: bytes, name: bytes, code: Code) -> bool:
    """Is `name` used as an attribute somewhere in the code (`.name`, spaces or a line break after the dot)?"""
    for pos in occurrences(data, name):
        i = pos
        while i and data[i - 1] in _GAP:
            i -= 1
        if i and (data[i - 1] == 46 or (_commented(data, i, pos) and _dot_before(data, i, code))) and pos in code:
            return True
    return False


def _commented(data: bytes, j: int, i: int) -> bool:
    """Does a comment end where a line break in `data[j:i]` (a gap before a name) begins? A dot may be before it:
    `(torch.  # note` then `range)`."""
    if b"\n" not in data[j:i] and b"\r" not in data[j:i]:
        return False
    return b"#" in data[line_start(data, j) : j]


def _dot_before(data: bytes, j: int, code: Code) -> bool:
    """Where the text before `j` ends in a comment: may a dot be before it, and the comments above it (`(torch.  #
    note` then `range)`)? Yes where the `#` is not one the file's reading finds a comment by (one in a string)."""
    while True:
        start = code.comment_start(j - 1)
        if start is None:
            return True
        j = start
        while j and data[j - 1] in _GAP:
            j -= 1
        # A comment on the line above goes on up (its last character, a full stop, is its text, not a dot)
        if not j or code.comment_start(j - 1) is None:
            return bool(j) and data[j - 1] == 46


# Keywords an operand never ends with (`return [`, `else [`, `in [`); `None`, `True` and `False` end one (`None[0]`).
_NOT_OPERANDS = frozenset(w.encode() for w in kwlist) - {b"None", b"True", b"False"}


def code_before(data: bytes, pos: int, code: Code) -> int:
    """Where what comes before `pos`, past spaces, line breaks and comments, ends (0: nothing does)."""
    i = pos
    while True:
        while i and data[i - 1] in _GAP:
            i -= 1
        start = code.comment_start(i - 1) if i else None
        if start is None:
            return i
        i = start  # a comment above: what is before it decides


def after_operand(data: bytes, pos: int, code: Code) -> bool:
    """May what comes before `pos` (past spaces, line breaks and comments) end an operand, so that a `[` there is a
    subscript's and a `*` a product's: a name that is no keyword, a number, a closing bracket, a string? Not after
    an operator, an opening bracket, a comma, a colon, a keyword, or at the file's start (`= [`, `(*[`, `return [`)."""
    i = code_before(data, pos, code)
    if not i:
        return False
    c = data[i - 1]
    if c in _WORDY:
        start = i - 1
        while start and data[start - 1] in _WORDY:
            start -= 1
        return data[start:i] not in _NOT_OPERANDS
    return c in b")]}\"'" or i - 1 not in code  # a string's end (or the text cannot tell)


def _chain_before(data: bytes, pos: int, code: Code) -> list[bytes] | None:
    """The words of the dotted name that `data[pos:]` is the next part of, head first: [] where it is no part of
    one (a bare name, `x[0].c`, `"s".c`), None where the text cannot tell (a line break beside a dot: a comment may
    sit there; a parenthesis: `(a).c` is a dotted name to `ast`)."""
    parts: list[bytes] = []
    i = pos
    while True:
        j = i
        while j and data[j - 1] in _GAP:
            j -= 1
        # No dot before (or the full stop of a comment above): a bare name, or the head of the chain
        if not j or data[j - 1] != 46 or (_breaks(data[j:i]) and code.comment_start(j - 1) is not None):
            if _commented(data, j, i) and _dot_before(data, j, code):
                return None
            parts.reverse()
            return parts
        k = j - 1  # the dot
        while k and data[k - 1] in _GAP:
            k -= 1
        if _breaks(data[k:i]):
            return None
        start = k
        while start and data[start - 1] in _WORDY:
            start -= 1
        if start == k:
            return None if k and data[k - 1] == 41 and _parenthesized(data, k - 1) else []  # ")"
        if 48 <= data[start] <= 57:
            return []  # a number's attribute: `1 .real`
        parts.append(data[start:k])
        i = start


_KEYWORDS = frozenset(w.encode() for w in (*kwlist, *softkwlist))  # `match (a).c:` is no call


def _parenthesized(data: bytes, close: int) -> bool:
    """May the `)` at `close` end a parenthesized expression (`(a).c`, a dotted name to `ast`), not a call's or a
    subscript's arguments (`f(x).c`, which is none)? Read back to its `(` and what is before it: a name that is no
    keyword, a `)` or a `]` makes a call. Yes where the text between holds a string, a comment or a backslash, or
    is long: the text cannot tell."""
    depth, i, stop = 0, close, max(close - 2000, 0)
    while i > stop:
        c = data[i]
        if c in b")]}":
            depth += 1
        elif c in b"([{":
            depth -= 1
            if depth == 0:
                break
        elif c in b"\"'#\\":
            return True
        elif c in b"\r\n" and b"#" in data[line_start(data, i) : i]:
            return True  # read backwards, a comment's brackets come before its `#`
        i -= 1
    else:
        return True
    j = i
    while j and data[j - 1] in b" \t\f":
        j -= 1
    if not j or data[j - 1] in b"\r\n\\\"'":
        return True
    if data[j - 1] in b")]":
        return False
    if data[j - 1] not in _WORDY:
        return True
    start = j - 1
    while start and data[start - 1] in _WORDY:
        start -= 1
    return data[start:j] in _KEYWORDS or 48 <= data[start] <= 57  # `return (a).c`; a number is no callee


def _breaks(gap: bytes) -> bool:
    return b"\n" in gap or b"\r" in gap or b"\\" in gap
