"""GitHub Actions workflow commands: one annotation per finding."""

from __future__ import annotations

from typing import TextIO

from advisor.core.findings import ScanResult

_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(result: ScanResult, stream: TextIO) -> None:
    for f in result.findings:
        stream.write(
            f"::{_LEVELS[f.severity]} file={_escape_property(f.path)},line={f.line},col={f.column},"
            f"endLine={f.end_line},endColumn={f.end_column},title={_escape_property(f.rule)}::{_escape_data(f.message)}\n"
        )
    for e in result.errors:
        at = e.location[len(e.path) + 1:].split(":")  # [line, col] when the parser said where
        where = f",line={at[0]},col={at[1]}" if len(at) == 2 else ""
        stream.write(f"::error file={_escape_property(e.path)}{where},title=advisor::{_escape_data(e.message)}\n")
