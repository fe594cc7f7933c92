"""Jupyter notebooks: their code cells as one virtual module, and back.

All code cells are joined into one module (so an `import torch` in cell 1
resolves in cell 5), separated by marker comments. What IPython reads but Python
does not is found the way IPython's own input transformer
(`IPython.core.inputtransformer2.TransformerManager`) finds it, without needing
IPython installed (tests/analysis/test_notebooks.py checks this against IPython):

- a cell whose first non-blank line starts with `%%` is a cell magic: all of it, except
  the Python body of `%%time`, `%%timeit`, `%%capture`, `%%prun`, `%%debug`, `%%memit`;
- at the start of a logical line (not inside brackets, a string or a continued
  line): `%magic`, `!cmd`, `!!cmd`, `?obj`, and the autocall escapes `/ , ;`;
- `x = !cmd` and `x = %magic` (an escape right after the first top-level `=`);
- a logical line ending in `?` or `??` (help);
- an escaped line continued with a trailing backslash takes its next lines along.

Each such block becomes `pass` plus comment lines at its indentation (so a `with`
whose only statement is `%time f()` still parses), as many lines as the block
had, so line numbers stay those of the cell. Fixes never see the magic text; the
original lines are put back when the cells are rebuilt, and a fix that lost or
repeated a block's marker leaves the notebook unwritten. A cell that still does
not parse is left out of the module and reported by cell and line.
Notebooks are read (validated) with nbformat, whose warnings (e.g. MissingIDFieldWarning)
are not the user's business here; fixed sources are written back by splicing them into the
file's own JSON text (advisor.analysis.notebook_text), never by re-serialising it.
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field

_MARKER = "# advisor-notebook-cell {index}"
_MARKER_RE = re.compile(r"^# advisor-notebook-cell (\d+)$")
_MAGIC_RE = re.compile(r"^\s*pass  # advisor-notebook-magic (\d+)$")
_MAGIC_CONT_RE = re.compile(r"^\s*# advisor-notebook-magic (\d+)\+$")
_ESCAPES = ("%", "!", "?", "/", ",", ";")
# Cell magics whose body is Python code run by IPython (%%timeit's first line is setup code
# after options; it stays opaque with the magic line).
_PYTHON_CELL_MAGIC = re.compile(r"%%(time|timeit|capture|prun|debug|memit)\b")
_ASSIGN_MAGIC = re.compile(r"^(?:[^=\"'#]|==)*?(?<![=!<>:+\-*/%&|^@])=(?!=)\s*[!%]")


class NotebookError(ValueError):
    pass


@dataclass
class Virtual:
    source: str
    line_map: dict[int, tuple[int, int]] = field(default_factory=dict)  # virtual line -> (cell number, line)
    magics: list[str] = field(default_factory=list)  # original text of each magic block
    magic_cells: dict[int, list[int]] = field(default_factory=dict)  # cell index -> its magic block numbers
    errors: list[str] = field(default_factory=list)  # cells left out: "cell N: syntax error: ... (line L, column C)"


def read(data: bytes):
    import nbformat

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nb = nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    except Exception as e:  # nbformat raises several types for bad JSON or schema
        raise NotebookError(
            f"not a readable notebook: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
        ) from None
    _check_shape(nb)
    return nb


def _check_shape(nb) -> None:
    """NO_CONVERT reads without validating: a format 3 notebook (worksheets, no `cells`) or a cell of the
    wrong shape is a clear error for this file, not an AttributeError. Converting 3 to 4 would rewrite the
    whole file on a fix, so format 3 is reported, not read."""
    version = nb.get("nbformat") if isinstance(nb, dict) else None
    if version is None and isinstance(nb, dict) and isinstance(nb.get("cells"), list):
        version = 4  # no `nbformat` key (written by hand or by a tool): a `cells` list is the format 4 shape
    if version != 4:
        raise NotebookError(
            f"notebook format {version!r} is not supported (advisor reads format 4; "
            "opening and saving it in Jupyter converts it)"
        )
    cells = nb.get("cells")
    if not isinstance(cells, list) or not all(isinstance(c, dict) for c in cells):
        raise NotebookError("not a readable notebook: `cells` is not a list of cells")
    for n, cell in enumerate(cells, 1):
        source = cell.get("source", "")
        if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            raise NotebookError(f"not a readable notebook: cell {n}: `source` is not text")


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _line_starts(lines: list[str]) -> list[bool]:
    """For each line: does a logical line start there (not inside brackets, a string or a continuation)?"""
    starts = []
    depth = 0
    quote: str | None = None  # the open string's delimiter, when a string spans lines
    continued = False
    for line in lines:
        starts.append(depth == 0 and quote is None and not continued)
        continued = False
        i, n = 0, len(line)
        while i < n:
            c = line[i]
            if quote is not None:
                if c == "\\":
                    i += 2
                    continue
                if line.startswith(quote, i):
                    i += len(quote)
                    quote = None
                    continue
                i += 1
                continue
            if c == "#":
                break
            if c in "\"'":
                triple = line[i : i + 3]
                if triple in ('"""', "'''"):
                    quote, i = triple, i + 3
                else:
                    quote, i = c, i + 1
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(0, depth - 1)
            elif c == "\\" and i == n - 1:
                continued = True
            i += 1
        if quote is not None and len(quote) == 1:
            # A one-quote string cannot span lines unless the line ends in a backslash.
            if not line.endswith("\\"):
                quote = None
            else:
                continued = False
    return starts


def _code_part(line: str) -> str:
    """The line without a trailing comment (quotes respected)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#":
            return line[:i]
    return line


def _is_ipython_line(line: str) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(_ESCAPES):
        return True
    if _code_part(line).rstrip().endswith("?"):  # `obj?`, `obj??`: no Python line ends so
        return True
    return bool(_ASSIGN_MAGIC.match(stripped)) and "(" not in stripped.split("=", 1)[0]


def magic_blocks(source: str) -> list[tuple[int, int]]:
    """The 0-based [start, end) line ranges of `source` that only IPython can read."""
    lines = source.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        if _PYTHON_CELL_MAGIC.match(lines[first].lstrip()):
            # The body is Python, which IPython also transforms: analyse it, only the magic line is opaque.
            body = magic_blocks("\n".join(lines[first + 1 :]))
            return [(first, first + 1)] + [(first + 1 + s, first + 1 + e) for s, e in body]
        return [(first, len(lines))]
    blocks = []
    starts = _line_starts(lines)
    i = 0
    while i < len(lines):
        if starts[i] and lines[i].strip() and _is_ipython_line(lines[i]):
            end = i + 1
            while lines[end - 1].endswith("\\") and end < len(lines):
                end += 1
            blocks.append((i, end))
            i = end
            continue
        i += 1
    return blocks


def _cell_lines(source: str, v: Virtual, index: int) -> list[str]:
    """The cell's lines with every magic block replaced by as many placeholder lines."""
    lines = source.split("\n")
    for start, end in magic_blocks(source):
        number = len(v.magics)
        v.magics.append("\n".join(lines[start:end]))
        v.magic_cells.setdefault(index, []).append(number)
        indent = re.match(r"[ \t]*", lines[start]).group(0)  # type: ignore[union-attr]  # matches anywhere
        if lines[start].lstrip().startswith("%%"):
            indent = ""
        lines[start] = f"{indent}pass  # advisor-notebook-magic {number}"
        for k in range(start + 1, end):
            lines[k] = f"{indent}# advisor-notebook-magic {number}+"
    return lines


def python_lines(source: str) -> tuple[list[str], set[int]]:
    """A cell's lines as Python sees them (magic blocks as placeholders), and the 1-based lines IPython owns."""
    v = Virtual("")
    lines = _cell_lines(source, v, 0)
    return lines, {n for n, line in enumerate(lines, 1) if _MAGIC_RE.match(line) or _MAGIC_CONT_RE.match(line)}


def to_virtual(nb) -> Virtual:
    out: list[str] = []
    v = Virtual("")
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        lines = _cell_lines(_source(cell), v, index)
        try:
            ast.parse("\n".join(lines))
        except SyntaxError as e:
            where = f" (line {e.lineno}, column {e.offset})" if e.lineno else ""
            v.errors.append(f"cell {index + 1}: syntax error: {e.msg}{where}; this cell was not analysed")
            v.magic_cells.pop(index, None)
            continue
        except (ValueError, RecursionError, MemoryError) as e:
            v.errors.append(f"cell {index + 1}: cannot parse: {type(e).__name__}; this cell was not analysed")
            v.magic_cells.pop(index, None)
            continue
        out.append(_MARKER.format(index=index))
        for number, line in enumerate(lines, 1):
            out.append(line)
            v.line_map[len(out)] = (index + 1, number)
    v.source = "\n".join(out) + "\n"
    return v


def cell_lines(source: str) -> dict[int, tuple[int, int]]:
    """Virtual line -> (cell number, line in that cell), for a virtual module as a fix left it.

    Lines a fix put before the first marker (added imports) go to the top of the first cell.
    """
    lines = source.split("\n")
    first = next((int(m.group(1)) for m in map(_MARKER_RE.match, lines) if m), None)
    mapping: dict[int, tuple[int, int]] = {}
    cell, number, in_cells = first, 0, False
    for virtual, line in enumerate(lines, 1):
        m = _MARKER_RE.match(line)
        if m:
            if in_cells:
                cell, number = int(m.group(1)), 0
            in_cells = True
            continue
        if cell is None or (not in_cells and not line.strip()):  # from_virtual drops blank prelude lines
            continue
        number += 1
        mapping[virtual] = (cell + 1, number)
    return mapping


def place(findings: list, source: str) -> list:
    """`findings` on the virtual module `source`, moved to their cell and line there."""
    from dataclasses import replace

    mapping = cell_lines(source)
    placed = []
    for f in findings:
        cell, line = mapping.get(f.line, (0, f.line))
        _, end_line = mapping.get(f.end_line, (cell, f.end_line))
        placed.append(replace(f, line=line, end_line=end_line, data=in_cell(f.data, mapping, cell)))
    return placed


def in_cell(data: dict, mapping: dict, cell: int) -> dict:
    """A notebook finding's data: its cell, and its fix range moved to the cell's lines (JSON's `fix.range`);
    a range that leaves the cell has no place there and is dropped."""
    out = {k: x for k, x in data.items() if k != "fix_range"}
    if data.get("fix_range"):
        start_line, start_column, end_line, end_column = data["fix_range"]
        (start_cell, start), (end_cell, end) = mapping.get(start_line, (0, 0)), mapping.get(end_line, (0, 0))
        if start_cell == end_cell == cell:
            out["fix_range"] = [start, start_column, end, end_column]
    return {**out, "cell": cell}


def from_virtual(nb, v: Virtual, new_source: str) -> dict[int, str]:
    """The code cells' new sources (cell index -> text) as the (fixed) virtual module holds them.

    Raises NotebookError when a fix lost or repeated an IPython line: such a cell is
    never written with a placeholder, nor with IPython's transformed text.
    """
    cells: dict[int, list[str]] = {}
    restored: dict[int, list[int]] = {}
    current: int | None = None
    prelude: list[str] = []  # lines a fix put before the first marker (added imports)
    lines = new_source.split("\n")
    if new_source.endswith("\n"):
        lines.pop()  # to_virtual's own final newline: not the last cell's
    for line in lines:
        m = _MARKER_RE.match(line)
        if m:
            current = int(m.group(1))
            cells[current] = []
            restored[current] = []
            continue
        if _MAGIC_CONT_RE.match(line):
            continue
        magic = _MAGIC_RE.match(line)
        if magic:
            number = int(magic.group(1))
            if current is not None:
                restored[current].append(number)
            line = v.magics[number]
        if current is None:
            prelude.append(line)
        else:
            cells[current].append(line)
    expected = [int(m.group(1)) for m in map(_MARKER_RE.match, v.source.split("\n")) if m]
    if list(cells) != expected:
        # A removed statement takes its leading comments along, a cell's marker with them (an unused
        # `from torch import x` that opens a cell): the cells' boundaries are lost, so write nothing.
        lost = next((i for i in expected if i not in cells), expected[-1] if expected else 0)
        raise NotebookError(f"cell {lost + 1}: a fix removed the start of this cell; notebook not fixed")
    for index, numbers in v.magic_cells.items():
        if restored.get(index) != numbers:
            raise NotebookError(
                f"cell {index + 1}: a fix touched an IPython line (magic, shell or help); notebook not fixed"
            )
    sources: dict[int, str] = {}
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code" or index not in cells:
            continue
        lines = cells[index]
        if not sources and any(p.strip() for p in prelude):
            lines = [p for p in prelude if p.strip()] + lines
        text = "\n".join(lines)
        while text.endswith("\n") and not _source(cell).endswith("\n"):  # keep the cell's own ending
            text = text[:-1]
        sources[index] = text
    return sources
