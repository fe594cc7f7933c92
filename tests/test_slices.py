"""Scanning a very large file in slices (advisor.analysis.slices) gives exactly the findings of the whole file."""

from __future__ import annotations

import glob
import os

import pytest

from advisor.analysis import slices
from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST

RULES = [r for r in all_rules() if r.default_enabled]
FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


def _findings(data, path, sliced):
    result, _ = analyse(data, path, RULES, settings_at(NEWEST), sliced=sliced)
    return [
        (f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.snippet, f.replacement)
        for f in result.findings
    ], result.errors


@pytest.fixture
def tiny_slices(monkeypatch):
    """Slice every file, one statement per slice: the hardest case for names and ownership."""
    monkeypatch.setattr(slices, "SLICE_MIN_BYTES", 0)
    monkeypatch.setattr(slices, "SLICE_BYTES", 1)


FILES = sorted(p for p in glob.glob(os.path.join(FIXTURES, "**", "*.py"), recursive=True) if not p.endswith(".out.py"))


def test_sliced_scan_equals_whole_scan_on_every_fixture(tiny_slices, monkeypatch):
    planned = []
    real_plan = slices.plan

    def recording_plan(text, tree, rules):
        parts = real_plan(text, tree, rules)
        sliceable = (
            len(text) >= slices.SLICE_MIN_BYTES
            and not any(slices._module_wide(r) for r in rules)
            and slices._imports_torch_at_top(tree)
        )
        planned.append((parts is not None, sliceable))
        return parts

    monkeypatch.setattr(slices, "plan", recording_plan)
    for path in FILES:
        with open(path, "rb") as f:
            data = f.read()
        assert _findings(data, path, sliced=True) == _findings(data, path, sliced=False), path
    # Every fixture that can be sliced was (the rest have a module-wide candidate rule, such as ADV716's
    # whole-object evidence, or no torch import at the top), and some were.
    assert all(sliced == sliceable for sliced, sliceable in planned), planned
    assert sum(sliced for sliced, _ in planned) >= 5, planned


LARGE = '''import torch
import torch.nn.functional as F
from advisor.core.settings import settings_at
from torch.cuda import is_current_stream_capturing as capturing

# a comment before a decorated function
@torch.no_grad()
@staticmethod
def step_{i}(x):
    """Docstring
    over lines."""
    if capturing():
        return F.upsample(x, scale_factor=2)
    return torch.cuda.is_current_stream_capturing()


class Model_{i}(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        z = y + 1
        return torch.range(0, 3)  # noqa: ADV718


def upsample(x):  # our own, shadowing nothing imported
    return x
x_{i} = torch.cuda.is_current_stream_capturing()
'''


def test_a_large_file_is_sliced_and_loses_nothing(tmp_path):
    copies = slices.SLICE_MIN_BYTES // len(LARGE) + 50
    body = "".join(LARGE.format(i=i) for i in range(copies))
    data = body.encode()
    assert len(data) > slices.SLICE_MIN_BYTES
    import ast

    from advisor.analysis.prefilter import Prefilter
    from advisor.syntax.references import collect

    tree = ast.parse(body)
    refs = collect(tree, 400)
    candidates = [r for r in Prefilter(RULES).candidates(data) if r.may_match(refs)]  # as the engine does
    plan = slices.plan(body, tree, candidates)
    assert plan is not None and len(plan) > 1, "the file was not sliced: the test proves nothing"
    sliced, errors = _findings(data, "big.py", sliced=True)
    whole, _ = _findings(data, "big.py", sliced=False)
    assert not errors and sliced == whole
    assert len(whole) >= 4 * copies


def test_module_wide_rules_and_shared_lines_are_not_sliced(tiny_slices):
    import ast

    src = "import torch\nimport os; x = 1\ny = torch.cuda.is_current_stream_capturing()\n"
    assert slices.plan(src, ast.parse(src), RULES) is None  # `import os; x = 1`
    src = "import torch\nx = 1\n"
    module_wide = [r for r in RULES if hasattr(r, "leave_Module")]
    assert module_wide and slices.plan(src, ast.parse(src), module_wide) is None
    assert slices.plan("import os\nx = 1\n", ast.parse("import os\nx = 1\n"), RULES[:1]) is None  # no torch import
