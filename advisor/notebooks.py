"""Jupyter notebooks: their code cells as one virtual module, and back.

All code cells are joined into one module (so an `import torch` in cell 1
resolves in cell 5), separated by marker comments. IPython magics and shell
lines (`%time`, `!pip install`, `%%bash` cells) become placeholder comments, so
the parser never sees them and fixes never touch them; they are put back when
the cells are rebuilt. Findings map back to `notebook.ipynb:cell N:line:col`.
Notebooks are read and written with nbformat, which keeps outputs and metadata.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field

_MARKER = "# advisor-notebook-cell {index}"
_MARKER_RE = re.compile(r"^# advisor-notebook-cell (\d+)$")
_MAGIC_RE = re.compile(r"^(\s*)# advisor-notebook-magic (\d+)$")
# `%magic`, `!shell`, `?help`, `x = !ls`, `obj?` / `obj??`
_IS_MAGIC = re.compile(r"^\s*[%!?]|^\s*\w+\s*=\s*[!%]|^\s*[\w.]+\?{1,2}\s*$")


class NotebookError(ValueError):
    pass


@dataclass
class Virtual:
    source: str
    line_map: dict[int, tuple[int, int]] = field(default_factory=dict)  # virtual line -> (cell number, line)
    magics: list[str] = field(default_factory=list)


def read(data: bytes):
    import nbformat

    try:
        return nbformat.reads(data.decode("utf-8"), as_version=nbformat.NO_CONVERT)
    except Exception as e:  # nbformat raises several types for bad JSON or schema
        raise NotebookError(f"not a readable notebook: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None


def to_virtual(nb) -> Virtual:
    out: list[str] = []
    v = Virtual("")
    for index, cell in enumerate(nb.cells):
        if cell.get("cell_type") != "code":
            continue
        out.append(_MARKER.format(index=index))
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(source)
        lines = source.split("\n")
        whole_cell_magic = bool(lines) and lines[0].lstrip().startswith("%%")
        for number, line in enumerate(lines, 1):
            if whole_cell_magic or _IS_MAGIC.match(line):
                indent = re.match(r"\s*", line).group(0) if not whole_cell_magic else ""
                v.magics.append(line)
                line = f"{indent}# advisor-notebook-magic {len(v.magics) - 1}"
            out.append(line)
            v.line_map[len(out)] = (index + 1, number)
    v.source = "\n".join(out) + "\n"
    return v


def from_virtual(nb, v: Virtual, new_source: str):
    """The notebook with its code cells replaced by the (fixed) virtual module's cells."""
    cells: dict[int, list[str]] = {}
    current: int | None = None
    prelude: list[str] = []  # lines a fix put before the first marker (added imports)
    for line in new_source.split("\n"):
        m = _MARKER_RE.match(line)
        if m:
            current = int(m.group(1))
            cells[current] = []
            continue
        magic = _MAGIC_RE.match(line)
        if magic:
            line = v.magics[int(magic.group(2))]
        if current is None:
            prelude.append(line)
        else:
            cells[current].append(line)
    new = copy.deepcopy(nb)
    first = True
    for index, cell in enumerate(new.cells):
        if cell.get("cell_type") != "code" or index not in cells:
            continue
        lines = cells[index]
        if first and any(p.strip() for p in prelude):
            lines = [p for p in prelude if p.strip()] + lines
        first = False
        text = "\n".join(lines)
        original = cell.get("source", "")
        if isinstance(original, list):
            original = "".join(original)
        # The virtual module ends every cell with a newline; keep the cell's own ending.
        if not original.endswith("\n") and text.endswith("\n"):
            text = text[:-1]
        while text.endswith("\n") and not original.endswith("\n"):
            text = text[:-1]
        cell["source"] = text
    return new


def write(nb) -> bytes:
    import nbformat

    text = nbformat.writes(nb)
    return (text if text.endswith("\n") else text + "\n").encode("utf-8")
