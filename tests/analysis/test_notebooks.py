"""Notebooks as IPython reads them: magics in blocks, continued shell lines, cell magics, help.

advisor.analysis.notebooks finds IPython-only lines without IPython; the first tests check it
against IPython's own input transformer (they skip where IPython is not installed).
"""

from __future__ import annotations

import ast
import difflib
import json

import pytest

from advisor.analysis import notebooks

CELLS = [
    "import torch\nx = torch.ones(2)",
    "with torch.no_grad():\n    %time y = model(x)",
    "for i in range(3):\n    !echo $i\n    z = i",
    "!pip install -q diffusers \\\n   transformers \\\n   accelerate\nimport torch",
    "%%bash\necho hi\nls",
    "\n\n%%time\nx = 1",
    "%%time\nwith torch.no_grad():\n    !nvidia-smi\n    y = model(x)",
    "%%capture out\n%pip install foo\nimport torch",
    "torch.cuda?",
    "torch.cuda.memory_cached??",
    "files = !ls -la\nprint(files)",
    "out = %timeit -o f()\nprint(out)",
    "x = (1 +\n     2)\n%matplotlib inline",
    "s = '''\n!not a command\n%not a magic\n'''",
    "d = {'a': 1}  # what? a comment ends with ?\ne = d",
    "!!ls\n%%not_a_cell_magic here",
    "/f 1",
    ",f a b",
    "x = 1 \\\n    + 2\ny = x",
    "if x == 1:\n    %load_ext autoreload\nelse:\n    pass",
    "def f():\n    return 1\n%time f()",
    "a, b = !echo 1 2",
    "x = y if y != 2 else 3",
    "x = 'not # a comment?'",
]


def _ipython():
    inputtransformer2 = pytest.importorskip("IPython.core.inputtransformer2")
    return inputtransformer2.TransformerManager()


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


@pytest.mark.parametrize("cell", CELLS)
def test_ipython_lines_are_found_as_ipython_finds_them(cell):
    manager = _ipython()
    lines = cell.split("\n")
    blocks = notebooks.magic_blocks(cell)
    if cell.lstrip("\n").startswith(("%%time\n", "%%capture")):
        # IPython hands the body of these to the magic, which transforms and runs it as Python.
        first = len(cell) - len(cell.lstrip("\n"))
        assert blocks[0] == (first, first + 1)
        body = "\n".join(lines[first + 1 :])
        assert blocks[1:] == [(s + first + 1, e + first + 1) for s, e in notebooks.magic_blocks(body)]
        cell, lines, blocks = body, lines[first + 1 :], notebooks.magic_blocks(body)
    transformed = manager.transform_cell(cell)
    in_block = {i for start, end in blocks for i in range(start, end)}
    out = transformed.rstrip("\n").split("\n")
    kept = set()
    for a, _, size in difflib.SequenceMatcher(None, lines, out, autojunk=False).get_matching_blocks():
        kept.update(range(a, a + size))
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if i in in_block:
            assert i not in kept or line.strip() in ("ls", "echo hi"), (line, transformed)
        else:
            assert i in kept, f"IPython rewrote {line!r}, which advisor reads as Python:\n{transformed}"
    virtual = "\n".join(notebooks._cell_lines(cell, notebooks.Virtual(""), 0))
    assert _parses(virtual) == _parses(transformed), (virtual, transformed)


def _notebook(cells, tmp_path, name="nb.ipynb"):
    """A notebook as older Jupyter wrote it: nbformat 4.5 without cell ids (nbformat warns)."""
    nb = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": c.splitlines(keepends=True),
            }
            for c in cells
        ],
    }
    path = tmp_path / name
    path.write_text(json.dumps(nb, indent=1) + "\n")
    return path


NOTEBOOK = [
    "import torch\nimport gpytorch",
    "with gpytorch.settings.max_preconditioner_size(10):\n    %time out = model(x)\ny = torch.cuda.memory_cached()",
    "!pip install -q diffusers \\\n   transformers \\\n   accelerate\nz = torch.cuda.memory_cached()",
    "%%bash\necho torch.cuda.memory_cached()",
    "torch.cuda?\nfiles = !ls\nw = torch.cuda.memory_cached()",
    "def broken(:\n    pass",
    "v = torch.cuda.is_current_stream_capturing()\n\nu = torch.cuda.memory_cached()",
    "%%time\nwith torch.no_grad():\n    %time q = torch.cuda.memory_cached()\n    t = torch.cuda.memory_cached()",
]


def test_a_notebook_as_ipython_reads_it(cli, tmp_path):
    _notebook(NOTEBOOK, tmp_path)
    proc = cli("scan", "nb.ipynb", "--no-cache", "--target-version", "2.12", "--format", "json", cwd=tmp_path)
    data = json.loads(proc.stdout)
    found = sorted((f["cell"], f["line"], f["rule"]) for f in data["findings"])
    assert found == [
        (2, 3, "ADV713"),
        (3, 4, "ADV713"),
        (5, 3, "ADV713"),
        (7, 1, "ADV101"),
        (7, 3, "ADV713"),
        (8, 4, "ADV713"),
    ], found
    (error,) = data["errors"]
    assert "cell 6: syntax error" in error["message"] and "(line 1, column" in error["message"], error
    assert "Warning" not in proc.stderr and "warn" not in proc.stderr.lower(), proc.stderr


def test_fixing_a_notebook_writes_back_the_ipython_lines_as_they_were(cli, tmp_path):
    path = _notebook(NOTEBOOK, tmp_path)
    proc = cli("fix", "nb.ipynb", "--target-version", "2.12", cwd=tmp_path)
    assert "Fixed 5 findings" in proc.stdout, proc.stdout + proc.stderr
    # What is left is reported at its cell and line, not at a line of the joined cells.
    assert "nb.ipynb:cell 7:1:5: ADV101" in proc.stdout, proc.stdout
    assert "Warning" not in proc.stderr, proc.stderr
    assert "nb.ipynb: error: cell 6: syntax error" in proc.stderr, proc.stderr
    cells = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    expected = [
        c.replace("memory_cached()", "memory_reserved()") if not c.startswith("%%bash") else c for c in NOTEBOOK
    ]
    expected[-1] = expected[-1].replace(
        "%time q = torch.cuda.memory_reserved()", "%time q = torch.cuda.memory_cached()"
    )
    assert cells == expected
    assert not any("get_ipython" in c or "advisor-notebook" in c for c in cells)
    before = path.read_bytes()
    cli("fix", "nb.ipynb", "--target-version", "2.12", cwd=tmp_path)
    assert path.read_bytes() == before  # idempotent


def test_a_fix_that_reaches_into_a_magic_line_writes_nothing():
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import torch\n%time f()\nx = 1")]
    virtual = notebooks.to_virtual(nb)
    assert "pass  # advisor-notebook-magic 0" in virtual.source
    with pytest.raises(notebooks.NotebookError, match="cell 1"):
        notebooks.from_virtual(nb, virtual, virtual.source.replace("pass  # advisor-notebook-magic 0", "pass"))
    rebuilt = notebooks.from_virtual(nb, virtual, virtual.source.replace("x = 1", "x = 2"))
    assert rebuilt == {0: "import torch\n%time f()\nx = 2"}


def test_a_fix_that_lost_a_cell_marker_writes_nothing():
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import torch"), nbformat.v4.new_code_cell("x = 1")]
    virtual = notebooks.to_virtual(nb)
    with pytest.raises(notebooks.NotebookError, match="cell 2: a fix removed the start of this cell"):
        notebooks.from_virtual(nb, virtual, virtual.source.replace("# advisor-notebook-cell 1\n", ""))
