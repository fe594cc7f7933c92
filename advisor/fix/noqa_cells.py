"""`--add-noqa` in a notebook: the comment goes at the end of the flagged line of its cell.

The cell's source is a JSON string in the `.ipynb` file: only the edited cells' strings are
spliced back (advisor.analysis.notebook_text), so the rest of the file keeps its bytes.
A line IPython owns (a magic, `!cmd`, `obj?`) never gets a comment: a magic would read it
as its own argument. The same rules as for a .py file decide where else a comment may go.
"""

from __future__ import annotations

import os

from advisor.analysis import notebook_text, notebooks
from advisor.core.atomic import replace_file
from advisor.core.findings import Finding


def _comment_lines(source: str, findings: list[Finding], unsafe_lines, skipped: list[Finding]) -> dict[int, list[str]]:
    """{cell line: codes} for the findings that have a safe line; the others go to `skipped`."""
    python, ipython = notebooks.python_lines(source)
    unsafe = unsafe_lines("\n".join(python)) | ipython
    codes: dict[int, list[str]] = {}
    for f in findings:
        line = next((n for n in (f.line, f.end_line) if n not in unsafe and 0 < n <= len(python)), None)
        if line is None:
            skipped.append(f)
        elif f.rule not in codes.setdefault(line, []):
            codes[line].append(f.rule)
    return codes


def add_to_notebook(
    path: str, findings: list[Finding], unsafe_lines, skipped: list[Finding], root: str | None = None
) -> int:
    """Add the comments to the notebook at `path`; the number added. `unsafe_lines`: noqa's rule."""
    with open(path, "rb") as notebook:
        data = notebook.read()
    try:
        text = data.decode("utf-8")
        where = notebook_text.scan(text)
    except (UnicodeDecodeError, notebook_text.NotebookTextError) as e:
        raise OSError(f"not a readable notebook: {e}") from None
    by_cell: dict[int, list[Finding]] = {}
    for f in findings:
        by_cell.setdefault(f.cell or 0, []).append(f)
    sources: dict[int, str] = {}
    added = 0
    for cell, found in sorted(by_cell.items()):
        span = where.cells.get(cell - 1)
        if span is None:
            skipped.extend(found)
            continue
        lines = span.text.split("\n")
        for n, rules in _comment_lines(span.text, found, unsafe_lines, skipped).items():
            lines[n - 1] = f"{lines[n - 1].rstrip(chr(13))}  # advisor: ignore[{', '.join(sorted(rules))}]" + (
                "\r" if lines[n - 1].endswith("\r") else ""
            )
            added += 1
        sources[cell - 1] = "\n".join(lines)
    if added:
        new = notebook_text.splice(text, where, sources).encode("utf-8")
        replace_file(path, new, mode=os.stat(path).st_mode & 0o7777, durable=True, root=root)
    return added
