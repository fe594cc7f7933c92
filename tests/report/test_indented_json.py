"""advisor.report.output.indented_json writes what `json.dumps(obj, indent=n)` writes, byte for byte: on real reports
(fixes with their edits and shared edits, a notebook's, a file that does not parse, names and text beyond ASCII,
project-level findings) and on every kind of value `json` takes, and it refuses what `json` refuses."""

from __future__ import annotations

import enum
import json

import pytest

from advisor.report.output.indented_json import dumps
from tests.conftest import run_cli
from tests.fix.test_json_fixes import SHARED  # a file two fixes share an import in

TRAIN = (
    "import torch\nfrom torch.cuda.amp import GradScaler\n\nscaler = torch.cuda.amp.GradScaler()\n"
    'with torch.cuda.amp.autocast():\n    y = torch.load("w.pt")\n'
)
# Non-ASCII in a name, a comment, a string, and U+2028 (which json escapes, and a str's splitlines splits on).
ACCENTED = 'import torch\n\nx = torch.cuda.amp.autocast()  # café ☕ \u2028\ns = "naïve \\u00e9 \\"q\\" \\\\ \\t"\n'
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Entraînement"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": 1,
            "source": ["import torch\n", "with torch.cuda.amp.autocast():\n", '    s = "é"\n'],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
PYPROJECT = '[project]\nname = "démo"\nversion = "0.1"\ndependencies = ["torch>=2.1"]\n'


def _report(tree, *flags: str) -> str:
    out = run_cli("scan", ".", "--format", "json", "--no-cache", "--exit-zero", *flags, cwd=str(tree))
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("flags", [(), ("--min-torch", "2.4", "--target-version", "2.12")], ids=str)
def test_reports_are_what_json_dumps_writes(tmp_path, flags):
    (tmp_path / "shared.py").write_text(SHARED)
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "données.py").write_text(ACCENTED, encoding="utf-8")
    (tmp_path / "broken.py").write_text("import torch\nwith torch.cuda.amp.autocast(:\n")
    (tmp_path / "explore.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    text = _report(tmp_path, *flags)
    report = json.loads(text)
    # The shapes this test is for are all there: else it would compare less than it says.
    fixes = [f["fix"] for f in report["findings"] if f["fix"]]
    assert any(f["edits"] for f in fixes) and any(f.get("shared_edits") for f in fixes)
    assert any(f["cell"] for f in report["findings"]) and report["errors"]
    assert any(not f["path"].isascii() for f in report["findings"]) and "\\u" in text
    assert text == json.dumps(report, indent=2) + "\n"  # the CLI's output
    assert dumps(report, indent=2) == json.dumps(report, indent=2)  # the writer, on the same object


def test_the_example_project_report(cli):
    from tests.conftest import FIXTURES

    report = json.loads(_report(FIXTURES + "/project"))
    assert report["findings"]
    for indent in (0, 1, 2, 4):
        assert dumps(report, indent=indent) == json.dumps(report, indent=indent)


class Colour(enum.IntEnum):
    RED = 1


class Name(str):
    pass


VALUES = [
    None,
    True,
    False,
    0,
    -7,
    10**40,
    1.5,
    0.1 + 0.2,
    1 / 3,
    -2.5e-300,
    -0.0,
    1e300,
    float("nan"),
    float("inf"),
    float("-inf"),
    "",
    "plain",
    'quote " backslash \\ newline \n tab \t nul \x00 del \x7f é ☕ 𝄞 \u2028',
    Name("a str subclass"),
    Colour.RED,
    [],
    {},
    (),
    [[]],
    [{}],
    {"a": {}},
    {"a": []},
    (1, (2, 3), []),
    [1, "two", None, True, 2.5, [3, [4, {"five": 5}]]],
    {"k": [{"nested": {"deeper": [1, 2, {"x": None}]}}], "empty": [], "e2": {}},
    {1: "int key", 2.5: "float key", None: "null key"},
    {True: "true key", False: "false key"},
    {Name("sub"): 1, Colour.RED: 2, "é": 3, "\n": 4},
    {float("nan"): 1, float("inf"): 2, float("-inf"): 3},
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
@pytest.mark.parametrize("indent", [0, 1, 2, 3])
def test_every_kind_of_value(value, indent):
    assert dumps(value, indent=indent) == json.dumps(value, indent=indent)
    assert dumps({"in": [value, {"v": value}]}, indent=indent) == json.dumps(
        {"in": [value, {"v": value}]}, indent=indent
    )


# Ids by type: an object's repr holds its address, which differs between xdist's workers (a collection error).
@pytest.mark.parametrize(
    "value", [object(), {1, 2}, b"bytes", {"k": object()}, [1, object()], {(1, 2): 3}], ids=lambda v: type(v).__name__
)
def test_what_json_refuses_is_refused_with_its_message(value):
    with pytest.raises(TypeError) as theirs:
        json.dumps(value, indent=2)
    with pytest.raises(TypeError) as ours:
        dumps(value, indent=2)
    assert str(ours.value) == str(theirs.value)
