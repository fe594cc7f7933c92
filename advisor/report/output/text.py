"""`path:line:col: CODE message` lines and a summary, coloured only on a TTY.

`concise` (the default, `--output-format text` or `concise`): one line per finding.
`full` (`--output-format full`, Ruff's `full`): the source line under each finding, the flagged span underlined.
`quiet` (`-q`): the findings and nothing else.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, TextIO

from advisor.core.findings import Applicability, ScanResult, fix_counts, kind_counts
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
    carets = " " * (column - 1) + "^" * max(1, end - (column - 1))
    return f"{gutter} |\n{line} | {text}\n{gutter} | {carets}\n"


def render(result: ScanResult, stream: TextIO, *, colour: bool, target_note: str = "", statistics: bool = False,
           full: bool = False, quiet: bool = False, source: Callable[[str], list[str] | None] = _read_lines) -> None:
    """`source`: a file's lines for `full` (default: read from disk; `scan -` hands over stdin's)."""
    def c(text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if colour else text

    files: dict[str, list[str] | None] = {}
    for f in result.findings:
        fix = " [*]" if f.fix == Applicability.SAFE else " [unsafe fix]" if f.fix == Applicability.UNSAFE else ""
        when = f" ({f.when})" if f.when else ""
        stream.write(f"{c(f.location, _BOLD)}: {c(f.rule, _COLOURS[f.severity])}{fix} {f.message}{when}\n")
        if full and f.cell is None:  # a notebook's lines are its cells': the location says where
            if f.path not in files:
                files[f.path] = source(f.path)
            if files[f.path]:
                stream.write(snippet(files[f.path], f.line, f.column, f.end_line, f.end_column) + "\n")
    for e in result.errors:
        stream.write(f"{c(e.location, _BOLD)}: {c('error', _COLOURS['error'])}: {e.message}\n")
    if quiet:
        return

    findings = result.findings
    if statistics and findings:
        stream.write("\n")
        for code, n in sorted(Counter(f.rule for f in findings).items()):
            name = next(f.name for f in findings if f.rule == code)
            stream.write(f"{n:6d}  {code}  {name}\n")
    fixable = fix_counts(findings)
    safe, unsafe = fixable["safe"], fixable["unsafe"]
    parts = [f"Found {len(findings)} finding{'s' if len(findings) != 1 else ''}"]
    parts.append(f"in {result.files_scanned} file{'s' if result.files_scanned != 1 else ''}")
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
