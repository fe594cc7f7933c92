"""One project, Python, notebook and project-level findings: every output counts the same findings, by rule and kind."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from tests.conftest import run_cli

PYPROJECT = '[project]\nname = "demo"\nversion = "0.1"\nrequires-python = ">=3.9"\ndependencies = ["torch>=2.1"]\n'
TRAIN = (
    "import torch\nfrom torch.cuda.amp import autocast, GradScaler\n\nscaler = GradScaler()\n"
    'x = torch.load("model.pt")\nwith autocast():\n    y = torch.chain_matmul(x, x, x)\n'
)
MODEL = (
    "import torch\nfrom torch.profiler import profile\n\n\ndef run(m, x):\n"
    "    with profile(use_cuda=True) as prof:\n        m(x)\n    return torch.cross(x, x)\n"
)
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["import torch\n", "from torch.cuda.amp import autocast\n", "with autocast():\n", "    pass"],
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("user")
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "train.py").write_text(TRAIN)
    (root / "model.py").write_text(MODEL)
    (root / "explore.ipynb").write_text(json.dumps(NOTEBOOK, indent=1))
    return root


def _scan(project, *args):
    return run_cli("scan", ".", "--no-cache", *args, cwd=project)


def test_every_output_counts_the_same(project, tmp_path):
    data = json.loads(_scan(project, "--output-format", "json").stdout)
    rules = Counter(f["rule"] for f in data["findings"])
    kinds = Counter(f["kind"] for f in data["findings"])
    # The three sorts of finding are all there: Python, notebook, project-level (the Python floor).
    assert {"ADV781", "ADV701", "ADV601"} <= set(rules) and any(f["cell"] for f in data["findings"])
    # torch>=2.1 installs on Python 3.9, so the Python floor (ADV781) is advice there, not breaking (issue 37)
    assert kinds["breaking"] == 1 and data["summary"]["by_kind"]["breaking"] == 1
    total = sum(rules.values())

    text = _scan(project)
    assert text.returncode == 1
    assert Counter(re.findall(r"^[^ ]+(?: [^ ]+)?: (ADV\d+) ", text.stdout, re.M)) == rules
    assert f"Found {total} findings" in text.stdout
    assert f"{kinds['breaking']} breaking, {kinds['deprecated']} deprecated, {kinds['advice']} advice" in text.stdout

    sarif = json.loads(_scan(project, "--output-format", "sarif").stdout)["runs"][0]["results"]
    assert Counter(r["ruleId"] for r in sarif) == rules
    assert Counter(r["properties"]["kind"] for r in sarif) == kinds

    github = _scan(project, "--output-format", "github").stdout
    assert Counter(re.findall(r"title=(ADV\d+)::", github)) == rules

    junit = _scan(project, "--output-format", "junit").stdout
    assert Counter(re.findall(r'<failure type="(ADV\d+)"', junit)) == rules

    report = tmp_path / "rep"
    _scan(project, "--report", str(report))
    md = (report / "report.md").read_text(encoding="utf-8")
    assert md.index("## Project (1)") < md.index("## Summary")  # what blocks the install comes first
    assert f"- **{total}** findings. By kind: {kinds['breaking']} breaking on the target" in md
    assert "## Breaking on the target (1)" in md
    breaking = md.split("## Breaking on the target (1)", 1)[1].split("\n## ", 1)[0]
    assert sorted(re.findall(r"^- \*\*(ADV\d+)\*\*", breaking, re.M)) == ["ADV601"]
    # ADV781 is advice here (torch>=2.1 installs on Python 3.9), so it is in the Project section, on no hop
    assert "ADV781" in md.split("## Project (1)", 1)[1].split("\n## ", 1)[0]
    html = (report / "report.html").read_text(encoding="utf-8")
    assert html.index('<h2 id="project">') < html.index('<h2 id="summary">Summary</h2>')
    assert '<div class="card breaking"><b>1</b>' in html

    (tmp_path / "list.txt").write_text(f"{project}\n")
    run_cli("audit", str(tmp_path / "list.txt"), "--out", str(tmp_path / "audit"), "--no-cache", cwd=tmp_path)
    audited = json.loads((tmp_path / "audit" / "audit.json").read_text())["repositories"][0]
    assert audited["by_rule"] == dict(rules) and audited["by_kind"]["breaking"] == kinds["breaking"]


def test_fix_counts_what_it_cannot_fix_as_scan_does(project, tmp_path):
    data = json.loads(_scan(project, "--output-format", "json").stdout)
    fixable = sum(1 for f in data["findings"] if f["fix"] and f["fix"]["applicability"] == "safe")
    diff = run_cli("fix", "--diff", ".", cwd=project)
    assert diff.returncode == 1
    left = re.findall(r"^[^ ]+(?: [^ ]+)?: (ADV\d+) ", diff.stderr, re.M)
    assert "ADV781" in left and not re.search(
        r"^[^ ]+(?: [^ ]+)?: ADV\d+ ", diff.stdout, re.M
    )  # stdout: the diff alone
    assert fixable + len(left) == len(data["findings"])
    assert f"Would fix {fixable} findings" in diff.stderr
    # After the fixes, what is left fails `fix` as it fails `scan`: the Python floor is not fixable.
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    assert run_cli("fix", ".", cwd=copy).returncode == 1
    again = run_cli("fix", ".", cwd=copy)
    assert again.returncode == 1 and "pyproject.toml:4:1: ADV781" in again.stdout
    assert "Fixed 0 findings" in again.stdout and "no automatic fix" in again.stdout
    assert run_cli("scan", ".", "--no-cache", cwd=copy).returncode == 1
