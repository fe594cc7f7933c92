"""`.gitignore` matching that a hostile pattern cannot stall.

pathspec turns each line into a regular expression (`*` within a name becomes `[^/]*`), and Python's
backtracking engine needs time exponential in the stars of one name to fail a match:
`*a*a*a*a*a*a*a*a*a*a*a*a*b` against one 40-character file name ran past two minutes. Every star but a
name's last is therefore matched as fnmatch does since Python 3.9: the shortest text up to the next
fixed part, taken once and never revisited (a look-ahead and a back-reference, an atomic group that
every supported Python has). Taking the leftmost place for each middle part is always right for
globs, so the match is the same; it is just linear. Lines are read by pathspec; the last matching
line wins, a `!` line re-includes, as in git.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable

_STAR = "[^/]*"
# What may sit between two stars of one name for the rewrite: pathspec's escaped characters,
# `[^/]` (`?`) and bracket classes, nothing that ends a name or groups.
_CHUNK = re.compile(r"(?:\\.|\[[^\]/]*\]|[^\\\[\]()|/$^*+?])+")


def linear(regex: str) -> str:
    """`regex` (pathspec's, for one line) with every star but a name's last made atomic."""
    parts = regex.split(_STAR)
    out = [parts[0]]
    for i, chunk in enumerate(parts[1:], 1):
        more = i < len(parts) - 1  # another star follows this chunk
        if more and _CHUNK.fullmatch(chunk):
            out.append(f"(?=(?P<_advisor_star{i}>{_STAR}?{chunk}))(?P=_advisor_star{i})")
        else:
            out.append(_STAR + chunk)
    return "".join(out)


def _pattern_class():
    with warnings.catch_warnings():  # pathspec >= 1.0 calls the name "gitwildmatch" deprecated; its rules are git's
        warnings.simplefilter("ignore", DeprecationWarning)
        from pathspec.patterns import GitWildMatchPattern

    return GitWildMatchPattern


class GitIgnore:
    """The lines of one `.gitignore`, matched against paths relative to its folder (`dir/` for folders)."""

    def __init__(self, lines: Iterable[str]) -> None:
        pattern = _pattern_class()
        self._rules: list[tuple[re.Pattern[str], bool]] = []
        for line in lines:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                regex, include = pattern.pattern_to_regex(line)
            if regex is not None:
                self._rules.append((re.compile(linear(regex)), bool(include)))

    def match_file(self, path: str) -> bool:
        ignored = False
        for regex, include in self._rules:
            if regex.search(path):
                ignored = include
        return ignored
