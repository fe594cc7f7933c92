"""Text from the scanned tree made safe to print in a terminal or a CI log.

File names, messages (ADV501 quotes source) and source lines come from a repository that may be
hostile: a raw ESC or OSC 52 sequence would drive the reader's terminal (or write its clipboard),
and a newline in a message would forge a finding line that CI problem matchers parse. So every
C0/C1 control, DEL, a line or paragraph separator, a bidirectional override (which reorders what
follows it) and a lone surrogate (a file name byte that is not UTF-8) is written as a visible
escape: `\\n`, `\\x1b`, `\\u202e`; the undecodable byte 0xff of a name as `\\xff`.
"""

from __future__ import annotations

import re
from functools import lru_cache

_UNSAFE = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(m: re.Match) -> str:
    c = m.group()
    code = ord(c)
    if c in _NAMED:
        return _NAMED[c]
    if 0xDC80 <= code <= 0xDCFF:  # os.fsdecode's surrogateescape: the name's own byte
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every character that could drive a terminal or break a line written as an escape."""
    return _unsafe().sub(_visible, text)


def controls_escaped(text: str, keep: str = "\n\r") -> str:
    """As `printable`, but the characters in `keep` stay (a format escapes them its own way)."""
    return _unsafe().sub(lambda m: m.group() if m.group() in keep else _visible(m), text)


@lru_cache(maxsize=1)
def _unsafe() -> re.Pattern[str]:
    """Compiled on first use: the surrogate range makes it one of the dearer patterns, and a run that prints
    nothing from the tree (a clean file) never needs it."""
    return re.compile(_UNSAFE)
