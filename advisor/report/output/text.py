"""`path:line:col: CODE message` lines and a summary, coloured only on a TTY.

`concise` (the default, `--output-format text` or `concise`): one line per finding.
`full` (`--output-format full`, Ruff's `full`): the source line under each finding, the flagged span underlined.
`quiet` (`-q`): the findings and nothing else.
"""

from __future__ import annotations

from typing import Callable, TextIO

from advisor.core.findings import Applicability, ScanResult, fix_counts, kind_counts
from advisor.report.output.concise import short
from advisor.report.output.printable import printable
from advisor.core.reading import read_bytes
from advisor.core.textlines import split_lines

_COLOURS = {"error": "\033[31m", "warning": "\033[33m", "info": "\033[36m"}
_BOLD, _RESET = "\033[1m", "\033[0m"


def _read_lines(path: str) -> list[str] | None:
    try:  # the file may have become a FIFO since the scan: never block on it
        return split_lines(read_bytes(path).decode("utf-8", "replace"))
    except OSError:
        return None


def snippet(lines: list[str], line: int, column: int, end_line: int, end_column: int) -> str:
    """Ruff's `full` view of one span: the first flagged line, with carets under the flagged part."""
    if not 0 < line <= len(lines):
        return ""
    text = lines[line - 1].expandtabs(1)
    end = end_column - 1 if end_line == line else len(text)
    gutter = " " * len(str(line))
    # Controls in the source are shown escaped: the carets count the escaped text.
    before, span = printable(text[: column - 1]), printable(text[column - 1 : end])
    carets = " " * len(before) + "^" * max(1, len(span))
    return f"{gutter} |\n{line} | {printable(text)}\n{gutter} | {carets}\n"


def _cells(lines: list[str] | None) -> dict[int, list[str]] | None:
    """A notebook's cells' lines, by cell number (1-based), from the lines of its JSON text."""
    from advisor.analysis.notebook_text import NotebookTextError, scan

    try:
        found = scan("\n".join(lines or []))
    except NotebookTextError:
        return None
    return {index + 1: span.text.split("\n") for index, span in found.cells.items()}


def render(
    result: ScanResult,
    stream: TextIO,
    *,
    colour: bool,
    target_note: str = "",
    full: bool = False,
    quiet: bool = False,
    source: Callable[[str], list[str] | None] = _read_lines,
) -> None:
    """`source`: a file's lines for `full` (default: read from disk; `scan -` hands over stdin's)."""

    def c(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    files: dict[str, list[str] | None] = {}
    cells: dict[str, dict[int, list[str]] | None] = {}
    for f in result.findings:
        fix = " [*]" if f.fix == Applicability.SAFE else " [unsafe fix]" if f.fix == Applicability.UNSAFE else ""
        # Concise: what and the replacement; `full` adds the windows and the evidence, then the source.
        message = f"{f.message} ({f.when})" if full and f.when else f.message if full else short(f.message)
        stream.write(
            f"{c(printable(f.location), _BOLD)}: {c(f.rule, _COLOURS[f.severity])}{fix} {printable(message)}\n"
        )
        if full and f.cell is not None:  # a notebook's lines are its cells'
            if f.path not in cells:
                cells[f.path] = _cells(source(f.path))
            lines = (cells[f.path] or {}).get(f.cell)
            if lines:
                stream.write(snippet(lines, f.line, f.column, f.end_line, f.end_column) + "\n")
        elif full:
            if f.path not in files:
                files[f.path] = source(f.path)
            if text := files[f.path]:
                stream.write(snippet(text, f.line, f.column, f.end_line, f.end_column) + "\n")
    for e in result.errors:
        stream.write(f"{c(printable(e.location), _BOLD)}: {c('error', _COLOURS['error'])}: {printable(e.message)}\n")
    if quiet:
        return

    findings = result.findings
    fixable = fix_counts(findings)
    safe, unsafe = fixable["safe"], fixable["unsafe"]
    parts = [f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    scanned = f"{result.files_scanned} file{'s' if result.files_scanned != 1 else ''}"
    parts.append(f"in {len({f.path for f in findings})} of {scanned}" if findings else f"in {scanned}")
    line = " ".join(parts) + "."
    kinds = kind_counts(findings)
    if findings:
        line = line[:-1] + ": " + ", ".join(f"{n} {k}" for k, n in kinds.items() if n) + "."
    if result.errors:
        line += f" {len(result.errors)} file{'s' if len(result.errors) != 1 else ''} could not be analysed."
    if result.suppressed:
        line += f" {result.suppressed} suppressed."
    stream.write(("\n" if findings or result.errors else "") + line + "\n")
    if safe or unsafe:
        stream.write(f"[*] {safe} fixable with `advisor fix`")
        if unsafe:
            stream.write(f"; {unsafe} more with `advisor fix --unsafe-fixes`")
        stream.write(".\n")
    if target_note:
        stream.write(target_note + "\n")
