"""GitHub Actions workflow commands: one annotation per finding.

Values are escaped as the workflow-command spec says (`%25`, `%0D`, `%0A`; `%3A`, `%2C` in
properties), and other control characters are written visibly, so a hostile name or message
can neither end the command early nor drive the log viewer's terminal.
A notebook finding points at the line of the `.ipynb` file where its cell's line is written
(GitHub annotates the file's lines, not cells), and its message names the cell.
"""

from __future__ import annotations

from typing import TextIO

from advisor.core.findings import ScanResult
from advisor.report.output.printable import controls_escaped

_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return controls_escaped(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: ScanResult, stream: TextIO) -> None:
    for f in result.findings:
        line, col, end_line, end_col = f.file_region
        where = f"cell {f.cell}, line {f.line}, column {f.column}: " if f.cell else ""
        stream.write(
            f"::{_LEVELS[f.severity]} file={_escape_property(f.path)},line={line},col={col},"
            f"endLine={end_line},endColumn={end_col},title={_escape_property(f.rule)}::{_escape_data(where + f.message)}\n"
        )
    for e in result.errors:
        at = e.location[len(e.path) + 1 :].split(":")  # [line, col] when the parser said where
        # A notebook's "(line N, column M)" is in a cell, not a line of the .ipynb file.
        where = f",line={at[0]},col={at[1]}" if len(at) == 2 and not e.path.endswith(".ipynb") else ""
        stream.write(f"::error file={_escape_property(e.path)}{where},title=advisor::{_escape_data(e.message)}\n")
