"""Which rule codes a list of patterns names: the one place codes are matched.

`select`, `ignore`, `extend-select`, `fixable`, `unfixable`, `per-file-ignores` and the
families' code ranges (`rules/<family>/__init__.py`) are all `Selector`s. A pattern is
`ALL` or `ADV` (every code), a code or a prefix (`ADV7`, `ADV701`), or a range
(`ADV950-ADV989`, both ends included). Case does not matter.
"""

from __future__ import annotations

import re
from typing import Iterable

from advisor.core.plain import Frozen, init

EVERY = ("ALL", "ADV")
# Compiled on first use, by re's own cache: a run whose patterns hold no range never needs them.
_PATTERN = r"^ADV\d{0,3}$"
_RANGE = r"^(ADV\d{3})-(ADV\d{3})$"


class Selector(Frozen):
    __slots__ = ("patterns",)
    patterns: tuple[str, ...]

    def __init__(self, patterns: tuple[str, ...] = ()) -> None:
        init(self, patterns)

    @classmethod
    def of(cls, patterns: Iterable[str]) -> "Selector":
        return cls(tuple(p.strip().upper() for p in patterns if p.strip()))

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, code: str) -> bool:
        return any(_matches(p, code.upper()) for p in self.patterns)

    def among(self, codes: Iterable[str]) -> list[str]:
        """The codes of `codes` the patterns name, in their order."""
        return [c for c in codes if self.matches(c)]


def _matches(pattern: str, code: str) -> bool:
    if pattern in EVERY:
        return True
    span = "-" in pattern and re.match(_RANGE, pattern)
    if span:
        return span.group(1) <= code <= span.group(2)
    return code.startswith(pattern)


def well_formed(pattern: str) -> bool:
    """Whether `pattern` has the form of a code, a prefix, a range or ALL (not whether any rule has it)."""
    p = pattern.strip().upper()
    return p in EVERY or bool(re.match(_PATTERN, p) or re.match(_RANGE, p))
