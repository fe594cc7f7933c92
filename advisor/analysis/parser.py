"""LibCST's parse of code that `ast` has accepted, without LibCST's per-node validation.

LibCST validates every node it builds (`CSTNode.__post_init__`): checks of what a hand-made node could get wrong.
The parser's own nodes of code CPython has already parsed cannot get it wrong, and the checks are a quarter of
the parse (LibCST's own comment there says as much). They are off only while the parser builds a tree; a node a
rule or a fix makes is validated as ever.
"""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst

_VALIDATE: list[Any] = []  # LibCST's own, kept once: two parses at once must not restore each other's stand-in


def parse_unvalidated(data: bytes | str) -> Any:
    """`libcst.parse_module(data)`, its nodes not validated; LibCST's errors raised as they are."""
    node: Any = cst.CSTNode  # Any: the checker would not have a method assigned
    if not _VALIDATE:
        _VALIDATE.append(node.__post_init__)
    node.__post_init__ = _no_validation
    try:
        return cst.parse_module(data)
    finally:
        node.__post_init__ = _VALIDATE[0]


def _no_validation(node: Any) -> None:
    pass
