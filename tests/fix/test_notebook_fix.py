"""Notebooks through the real CLI: `fix` and `--add-noqa` change only the JSON strings of the cells
they edit, and every output format says which cell a finding is in (and, where the format has no
cells, the line of the .ipynb file where that cell's line is written).

The notebooks are written as Jupyter (nbformat: indent 1, sorted keys, ids, outputs), Colab
(minified on one line, no ids, its own key order) and `json.dump` (indent 2 or none, non-ASCII escaped) write them.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

MARKDOWN = "## Café: torch.ger is deprecated"  # a mention outside code: never touched
CELLS = [
    "import torch\nx = torch.ones(2)",
    "%matplotlib inline\nw = torch.ger(a, b)",
    "import torch\ny = torch.ger(a, b)\n",  # ends in a newline and is the last cell: no blank line may appear
]
OUTPUT = {"name": "stdout", "output_type": "stream", "text": ["torch.ger is deprecated\n"]}


def _jupyter() -> str:
    import nbformat

    nb = nbformat.v4.new_notebook(
        metadata={
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.4"},
        }
    )
    first = nbformat.v4.new_code_cell(CELLS[0], execution_count=1, outputs=[nbformat.from_dict(OUTPUT)])
    nb.cells = [
        first,
        nbformat.v4.new_markdown_cell(MARKDOWN),
        nbformat.v4.new_code_cell(CELLS[1], execution_count=2),
        nbformat.v4.new_code_cell(CELLS[2], execution_count=3),
    ]
    return nbformat.writes(nb) + "\n"  # Jupyter's own save ends with a newline


def _cells_as_dicts(code_keys) -> list[dict]:
    markdown = {"cell_type": "markdown", "metadata": {}, "source": [MARKDOWN]}
    code = [code_keys(c, n) for n, c in enumerate(CELLS)]
    code[0]["outputs"] = [OUTPUT]
    return [code[0], markdown, code[1], code[2]]


def _colab(minor: int) -> str:
    """Colab's download: one line, its key order, no cell ids (a cell's id lives in its metadata)."""

    def cell(source, n):
        return {
            "cell_type": "code",
            "source": source.splitlines(keepends=True),
            "metadata": {"id": f"c{n}"},
            "execution_count": None,
            "outputs": [],
        }

    nb = {
        "nbformat": 4,
        "nbformat_minor": minor,
        "metadata": {
            "colab": {"provenance": []},
            "kernelspec": {"name": "python3", "display_name": "Python 3"},
            "language_info": {"name": "python"},
        },
        "cells": _cells_as_dicts(cell),
    }
    return json.dumps(nb, separators=(",", ":"), ensure_ascii=False)


def _dumped(indent) -> str:
    def cell(source, n):
        return {
            "cell_type": "code",
            "execution_count": n or None,
            "metadata": {},
            "outputs": [],
            "source": source.splitlines(keepends=True),
        }

    nb = {
        "cells": _cells_as_dicts(cell),
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(nb, indent=indent)  # no final newline, non-ASCII as \u escapes


WRITERS = {
    "jupyter": _jupyter,
    "colab-4.0": lambda: _colab(0),
    "colab-4.5-no-ids": lambda: _colab(5),
    "json.dump-indent-2": lambda: _dumped(2),
    "json.dump-one-line": lambda: _dumped(None),
}


@pytest.mark.parametrize("writer", WRITERS)
def test_fix_changes_only_the_fixed_strings(cli, tmp_path, writer):
    original = WRITERS[writer]().encode("utf-8")
    path = tmp_path / "nb.ipynb"
    path.write_bytes(original)
    diffs = [cli("fix", "nb.ipynb", "--diff", cwd=tmp_path) for _ in range(2)]
    assert diffs[0].stdout == diffs[1].stdout and "torch.outer" in diffs[0].stdout  # nothing random (no new ids)
    proc = cli("fix", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Warning" not in proc.stderr and "Warning" not in diffs[0].stderr, proc.stderr
    # Every byte is the original's but the two call sites: the outputs, the markdown cell, the
    # layout, key order, escapes and the final newline (or its absence) stay as they were.
    assert path.read_bytes() == original.replace(b"torch.ger(", b"torch.outer("), path.read_text()
    sources = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert sources[3] == "import torch\ny = torch.outer(a, b)\n"  # no blank line added
    assert sources[2] == "%matplotlib inline\nw = torch.outer(a, b)"
    again = cli("fix", "nb.ipynb", cwd=tmp_path)
    assert path.read_bytes() == original.replace(b"torch.ger(", b"torch.outer("), again.stdout


def test_a_fix_that_adds_an_import_edits_only_that_cell(cli, tmp_path):
    text = json.dumps(
        {
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": 1,
                    "metadata": {},
                    "outputs": [],
                    "source": ["from torch import log\n", "import numpy as np"],
                },
                {
                    "cell_type": "code",
                    "execution_count": 2,
                    "metadata": {},
                    "outputs": [],
                    "source": ["y = log(x + 1)\n"],
                },
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 4,
        },
        indent=1,
    )
    (tmp_path / "nb.ipynb").write_text(text)
    proc = cli("fix", "nb.ipynb", "--unsafe-fixes", "--extend-select", "ADV110", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = (tmp_path / "nb.ipynb").read_text()
    cells = ["".join(c["source"]) for c in json.loads(fixed)["cells"]]
    assert cells == ["import numpy as np\nimport torch", "y = torch.log1p(x)\n"], cells
    head = text[: text.index('"source"')]
    assert fixed.startswith(head) and fixed.endswith(text[text.rindex("]\n  }") :])  # the rest of the file as it was
    assert (
        '\n   "source": [\n    "import numpy as np\\n",\n    "import torch"\n   ]' in fixed
    )  # in the file's own layout


def test_removing_the_import_that_opens_a_cell_keeps_the_cells_apart(cli, tmp_path):
    # LibCST removes a statement with its leading comments, a cell's marker among them.
    cells = [["from torch import log\n", "y = log(x + 1)\n"], ["from torch import log as l\n", "z = l(w + 1)"]]
    text = json.dumps(
        {
            "cells": [
                {"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": [], "source": c}
                for n, c in enumerate(cells, 1)
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 4,
        },
        indent=1,
    )
    (tmp_path / "nb.ipynb").write_text(text)
    proc = cli("fix", "nb.ipynb", "--unsafe-fixes", "--extend-select", "ADV110", cwd=tmp_path)
    assert "Fixed 2 findings" in proc.stdout, proc.stdout + proc.stderr
    fixed = ["".join(c["source"]) for c in json.loads((tmp_path / "nb.ipynb").read_text())["cells"]]
    assert fixed == ["import torch\n\ny = torch.log1p(x)\n", "z = torch.log1p(w)"], fixed


def _notebook_with_twins(tmp_path, minified: bool = False):
    """Two cells whose findings sit at the same cell line and column."""
    twin = "import torch\ny = torch.ger(a, b)\n"
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "metadata": {},
                "outputs": [],
                "source": twin.splitlines(True),
            },
            {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": twin},
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    text = json.dumps(nb, separators=(",", ":")) if minified else json.dumps(nb, indent=1)
    (tmp_path / "nb.ipynb").write_text(text)
    return text


def _at(text: str, line: int, column: int) -> str:
    return text.split("\n")[line - 1][column - 1 :]


@pytest.mark.parametrize("minified", [False, True])
def test_ci_formats_point_at_the_cells_line_in_the_file(cli, tmp_path, minified):
    text = _notebook_with_twins(tmp_path, minified)
    scan = lambda fmt: cli("scan", "nb.ipynb", "--no-cache", "--output-format", fmt, cwd=tmp_path).stdout  # noqa: E731

    annotations = [line for line in scan("github").splitlines() if line.startswith("::")]
    assert len(annotations) == 2
    places = set()
    for n, line in enumerate(annotations, 1):
        props = dict(p.split("=", 1) for p in line[len("::warning ") : line.index("::", 2)].split(","))
        assert _at(text, int(props["line"]), int(props["col"])).startswith("torch.ger"), line
        assert f"::cell {n}, line 2, column 5: " in line, line
        places.add((props["line"], props["col"]))
    assert len(places) == 2  # one place per cell: no collision

    results = json.loads(scan("sarif"))["runs"][0]["results"]
    regions = set()
    for n, r in enumerate(results, 1):
        location = r["locations"][0]
        region = location["physicalLocation"]["region"]
        assert _at(text, region["startLine"], region["startColumn"]).startswith("torch.ger(a, b)"), region
        assert region["endColumn"] - region["startColumn"] == len("torch.ger")
        assert r["properties"]["cell"] == n and r["properties"]["cellLine"] == 2
        assert location["logicalLocations"] == [{"name": f"cell {n}", "kind": "module"}]
        regions.add((region["startLine"], region["startColumn"]))
    assert len(regions) == 2

    cases = ET.fromstring(scan("junit")).iter("testcase")
    names = [c.get("name") for c in cases]
    assert names == ["ADV721 nb.ipynb:cell 1:2:5", "ADV721 nb.ipynb:cell 2:2:5"], names

    report = cli("scan", "nb.ipynb", "--no-cache", "--report", "rep", cwd=tmp_path)
    assert report.returncode in (0, 1), report.stderr
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "nb.ipynb:cell 1:2:5" in md and "nb.ipynb:cell 2:2:5" in md
    assert "nb.ipynb:cell 2:2:5" in (tmp_path / "rep" / "report.html").read_text()


def test_full_output_frames_the_cells_line(cli, tmp_path):
    _notebook_with_twins(tmp_path)
    out = cli("scan", "nb.ipynb", "--no-cache", "--output-format", "full", cwd=tmp_path).stdout
    frame = "nb.ipynb:cell 2:2:5: ADV721"
    assert frame in out, out
    assert "2 | y = torch.ger(a, b)\n  |     ^^^^^^^^^\n" in out[out.index(frame) :], out


def test_add_noqa_comments_the_cell_and_nothing_else(cli, tmp_path):
    original = _jupyter()
    path = tmp_path / "nb.ipynb"
    path.write_text(original)
    proc = cli("scan", "nb.ipynb", "--no-cache", "--add-noqa", cwd=tmp_path)
    assert "Added 2 suppression comments" in proc.stderr, proc.stderr
    assert proc.returncode == 0, proc.stderr
    comment = "  # advisor: ignore[ADV721]"
    assert path.read_text() == (
        original.replace('"w = torch.ger(a, b)"', f'"w = torch.ger(a, b){comment}"').replace(
            '"y = torch.ger(a, b)\\n"', f'"y = torch.ger(a, b){comment}\\n"'
        )
    )
    again = cli("scan", "nb.ipynb", "--no-cache", cwd=tmp_path)
    assert again.returncode == 0 and "Found 0 findings" in again.stdout and "2 suppressed" in again.stdout, again.stdout


@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_the_file_column_counts_the_json_escapes(cli, tmp_path, ensure_ascii):
    source = ["import torch\n", 's = "\u00e9\U0001f600\\t\\"\t"; y = torch.ger(a, b)\n']
    nb = {
        "cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    text = json.dumps(nb, indent=1, ensure_ascii=ensure_ascii)
    (tmp_path / "nb.ipynb").write_text(text, encoding="utf-8")
    out = cli("scan", "nb.ipynb", "--no-cache", "--output-format", "github", cwd=tmp_path).stdout
    (line,) = [a for a in out.splitlines() if a.startswith("::")]
    props = dict(p.split("=", 1) for p in line[len("::warning ") : line.index("::", 2)].split(","))
    assert _at(text, int(props["line"]), int(props["col"])).startswith("torch.ger(a, b)"), (line, text)
    assert _at(text, int(props["endLine"]), int(props["endColumn"])).startswith("(a, b)"), line


@pytest.mark.parametrize("separators", [(",", ":"), (", ", ": ")])
def test_a_one_line_source_list_grows_in_the_files_own_separators(cli, tmp_path, separators):
    cells = [["import numpy as np\n"], ["from torch import log\n", "y = log(x + 1)\n"]]
    nb = {
        "cells": [
            {"cell_type": "code", "execution_count": n, "metadata": {}, "outputs": [], "source": c}
            for n, c in enumerate(cells, 1)
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    text = json.dumps(nb, separators=separators)
    (tmp_path / "nb.ipynb").write_text(text)
    cli("fix", "nb.ipynb", "--unsafe-fixes", "--extend-select", "ADV110", cwd=tmp_path)
    nb["cells"][0]["source"] = ["import numpy as np\n", "import torch\n"]
    nb["cells"][1]["source"] = ["y = torch.log1p(x)\n"]
    assert (tmp_path / "nb.ipynb").read_text() == json.dumps(nb, separators=separators)
