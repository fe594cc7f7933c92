"""What the report shows of the code itself: each finding's source lines, its fix as before/after, a link to the file.

Read once, when `scan --report` writes the report (into findings.json), so that re-rendering
it elsewhere (`advisor validate` on the GPU machine) needs no source tree. Links are relative to
the report directory, so a copied report keeps working where the project sits beside it.
"""

from __future__ import annotations

import os
import urllib.parse
from typing import Any

from advisor.core.findings import Finding

MAX_LINES = 6  # a finding spanning more shows its first lines only


def key(f: Finding) -> str:
    return f"{f.path}:{f.cell or 0}:{f.line}:{f.column}"


def _lines(path: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if path not in cache:
        try:
            with open(path, encoding="utf-8", errors="replace", newline="") as f:
                # Python's own line breaks only (form feeds and U+2028 stay inside a line).
                cache[path] = [
                    line.rstrip("\r\n") for line in f.read().replace("\r\n", "\n").replace("\r", "\n").split("\n")
                ]
        except OSError:
            cache[path] = None
    return cache[path]


def _cell_lines(f: Finding, cache: dict[str, list[str] | None]) -> list[str] | None:
    """The lines of the notebook cell `f` is in, from the file's JSON text (None when it cannot be read)."""
    from advisor.analysis.notebook_text import NotebookTextError, scan

    key = f"{f.path}\0cells"
    if key not in cache:
        try:
            cells = scan("\n".join(_lines(f.path, cache) or [])).cells
            cache[key] = [f"{index + 1}\0{span.text}" for index, span in cells.items()]
        except NotebookTextError:
            cache[key] = None
    for cell in cache[key] or []:
        number, _, text = cell.partition("\0")
        if int(number) == f.cell:
            return text.split("\n")
    return None


def collect(findings: list[Finding], report_dir: str) -> dict[str, dict[str, Any]]:
    """{key(f): {"first": line number, "before": [lines], "after": [lines] or None, "link": relative URL}}."""
    out: dict[str, dict[str, Any]] = {}
    cache: dict[str, list[str] | None] = {}
    for f in findings:
        try:
            link = urllib.parse.quote(
                os.path.relpath(os.path.abspath(f.path), os.path.abspath(report_dir)).replace(os.sep, "/")
            )
        except ValueError:  # another drive (Windows): no relative path; the location stays plain text
            link = None
        # A notebook's finding: its lines are its cell's; the link goes to the cell's line in the .ipynb JSON.
        entry: dict[str, Any] = {"link": link, "first": f.file_region[0], "before": [], "after": None}
        lines = _cell_lines(f, cache) if f.cell else _lines(f.path, cache)
        if lines and 0 < f.line <= f.end_line <= len(lines):
            before = lines[f.line - 1 : f.end_line]
            entry["before"] = before[:MAX_LINES]
            span = f.data.get("fix_range")  # the replacement's own range, which may be narrower than the finding's
            if f.replacement is not None and f.fix and span and f.line <= span[0] <= span[2] <= f.end_line:
                first, last = lines[span[0] - 1], lines[span[2] - 1]
                fixed = first[: span[1] - 1] + f.replacement + last[span[3] - 1 :]
                after = lines[f.line - 1 : span[0] - 1] + fixed.split("\n") + lines[span[2] : f.end_line]
                entry["after"] = after[:MAX_LINES]
        out[key(f)] = entry
    return out
