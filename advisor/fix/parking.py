"""The layout around a removed import survives its removal.

LibCST removes a statement with its leading lines. Two kinds of those lines belong to what
surrounds the statement, not to it:
- a notebook's cell markers (the virtual module's cells start at marker comments,
  advisor.analysis.notebooks): removing an unused `from torch import x` that opens a cell
  would take the marker along and merge two cells;
- the blank lines before it (the one after a docstring, the one that opens an import group):
  removing the group's first import would glue the next statement to what came before.
Before the removal those lines are parked on a `pass` statement of their own, tagged with a
comment no source has; afterwards they go back in front of whatever statement now follows.
"""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst

MARKER = "# advisor-notebook-cell "
_TAG = "# advisor-parked-lines"


def _parked(lines: Any) -> int:
    """How many of a statement's leading lines to park: all of them where a cell marker is among them,
    else the blank lines before its first comment (its own comments go with it, as before)."""
    if any(line.comment is not None and line.comment.value.startswith(MARKER) for line in lines):
        return len(lines)
    count = 0
    while count < len(lines) and lines[count].comment is None:
        count += 1
    return count


def _is_parking(stmt: Any) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Pass)
        and stmt.trailing_whitespace.comment is not None
        and stmt.trailing_whitespace.comment.value == _TAG
    )


def park(module: Any) -> Any:
    """Each statement with lines to park gets a tagged `pass` in front, which carries those lines instead."""
    body: list[Any] = []
    tag = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(_TAG))
    for stmt in module.body:
        count = _parked(stmt.leading_lines)
        if count:
            body.append(
                cst.SimpleStatementLine([cst.Pass()], leading_lines=stmt.leading_lines[:count], trailing_whitespace=tag)
            )
            stmt = stmt.with_changes(leading_lines=stmt.leading_lines[count:])
        body.append(stmt)
    return module.with_changes(body=body)


def unpark(module: Any) -> Any:
    """`park` undone: each tagged `pass` gives its lines to the next statement (or the module's end)."""
    body: list[Any] = []
    pending: list[Any] = []
    for stmt in module.body:
        if _is_parking(stmt):
            pending += stmt.leading_lines
            continue
        if pending:
            stmt = stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines])
            pending = []
        body.append(stmt)
    return module.with_changes(body=body, footer=[*pending, *module.footer])
