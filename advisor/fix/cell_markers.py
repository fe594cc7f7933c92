"""Notebook cell markers survive import removal.

A notebook is fixed as one virtual module whose cells start at marker comments
(advisor.analysis.notebooks). LibCST removes a statement with its leading comments, so
removing an unused `from torch import x` that opens a cell would take that cell's marker
along and merge two cells. Before the removal each marker is parked on a `pass` statement of
its own; afterwards those comments go back in front of whatever statement now follows.
"""

from __future__ import annotations

from typing import Any

from advisor.core.lazy import cst

MARKER = "# advisor-notebook-cell "


def _has_marker(lines: Any) -> bool:
    return any(line.comment is not None and line.comment.value.startswith(MARKER) for line in lines)


def park(module: Any) -> Any:
    """Each statement that carries a marker gets a `pass` in front, which carries its comments instead."""
    body: list[Any] = []
    for stmt in module.body:
        if _has_marker(stmt.leading_lines):
            body.append(cst.SimpleStatementLine([cst.Pass()], leading_lines=stmt.leading_lines))
            stmt = stmt.with_changes(leading_lines=[])
        body.append(stmt)
    return module.with_changes(body=body)


def unpark(module: Any) -> Any:
    """`park` undone: each parking `pass` gives its comments to the next statement (or the module's end)."""
    body: list[Any] = []
    pending: list[Any] = []
    for stmt in module.body:
        parked = (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                  and isinstance(stmt.body[0], cst.Pass) and _has_marker(stmt.leading_lines))
        if parked:
            pending += stmt.leading_lines
            continue
        if pending:
            stmt = stmt.with_changes(leading_lines=[*pending, *stmt.leading_lines])
            pending = []
        body.append(stmt)
    return module.with_changes(body=body, footer=[*pending, *module.footer])
