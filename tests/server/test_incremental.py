"""An editor's next analysis re-analyses only the top-level statement its edit changed, and gets exactly what
a scan of the new text gets (advisor.analysis.incremental)."""

from __future__ import annotations

import glob
import os
import random

import pytest

from advisor.analysis import analyse as analyse_module
from advisor.analysis import incremental
from advisor.analysis.analyse import analyse
from advisor.analysis.prefilter import Prefilter
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST

RULES = [r for r in all_rules() if r.default_enabled]
SETTINGS = settings_at(NEWEST)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SOURCE = """import torch
import torch.nn.functional as F
from torch.cuda.amp import autocast

GE_2_4 = torch.__version__ >= "2.4"


def first(x):
    with torch.cuda.amp.autocast():
        y = F.upsample(x, scale_factor=2)
    return torch.range(0, 3)


class Model(torch.nn.Module):
    def forward(self, x):
        if GE_2_4:
            return x
        return F.upsample(x, scale_factor=2)

    def other(self, x):
        return torch.linalg.eigh(x.cpu())


def last(p):
    return torch.load(p)
"""


@pytest.fixture(autouse=True)
def fresh():
    incremental.forget()
    yield
    incremental.forget()


def _candidates(data: bytes):
    return Prefilter(RULES).candidates(data)


def _scan(data: bytes, path: str):
    result = analyse(data, path, _candidates(data), SETTINGS, sliced=True)[0]
    return [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message) for f in result.findings], result.errors


def _edit(data: bytes, path: str):
    result = incremental.analyse_edit(data, path, _candidates(data), SETTINGS)
    return [(f.rule, f.line, f.column, f.end_line, f.end_column, f.message) for f in result.findings], result.errors


def test_an_edit_inside_a_function_parses_that_function_only(monkeypatch):
    path = "m.py"
    assert _edit(SOURCE.encode(), path) == _scan(SOURCE.encode(), path)
    parsed = []
    real = analyse_module.parse_cst
    monkeypatch.setattr(analyse_module, "parse_cst", lambda data: parsed.append(data) or real(data))
    # A new finding in `first`, one line more: `Model` and `last` keep theirs, a line further down.
    new = SOURCE.replace("    return torch.range(0, 3)\n", "    z = torch.range(0, 4)\n    return torch.range(0, 3)\n")
    before = incremental.stats["statement"]
    assert _edit(new.encode(), path) == _scan(new.encode(), path)
    assert incremental.stats["statement"] == before + 1
    kept = parsed[0].decode()
    assert "def first(x):\n    with torch.cuda.amp.autocast():" in kept and "torch.linalg.eigh" not in kept


def test_an_edit_of_imports_or_module_statements_is_analysed_whole():
    path = "m.py"
    _edit(SOURCE.encode(), path)
    for new in (
        SOURCE.replace("from torch.cuda.amp import autocast\n", ""),
        SOURCE.replace('GE_2_4 = torch.__version__ >= "2.4"', 'GE_2_4 = torch.__version__ >= "2.9"'),
        SOURCE.replace("def first(x):", "def first(x, y):"),  # a header
        SOURCE.replace("        y = F.upsample", "        y = F.upsample  # noqa: ADV101\n        y = F.upsample"),
    ):
        before = incremental.stats["statement"]
        assert _edit(new.encode(), path) == _scan(new.encode(), path)
        assert incremental.stats["statement"] == before
        _edit(SOURCE.encode(), path)


FILES = [os.path.join(REPO, "examples", "demo", "train.py"), os.path.join(REPO, "examples", "demo", "spectra.py")]
FILES += sorted(glob.glob(os.path.join(REPO, "tests", "fixtures", "project", "**", "*.py"), recursive=True))[:6]


@pytest.mark.parametrize("seed", range(4))
def test_random_edits_give_what_a_scan_gives(seed):
    """Lines duplicated, deleted or inserted at the indentation of their neighbour, one after another, as typing
    does; every result equals a scan of the text (some edits do not parse: then both say so)."""
    rng = random.Random(seed)
    snippets = ["y = torch.range(0, 3)", "x = F.upsample(x, scale_factor=2)", "pass", "torch.load(p)"]
    before = incremental.stats["statement"]
    for path in FILES:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        if len(lines) < 4:
            continue
        for _ in range(12):
            k = rng.randrange(len(lines))
            op = rng.choice(["dup", "del", "ins", "ins"])
            if op == "dup":
                lines.insert(k, lines[k])
            elif op == "del" and len(lines) > 4:
                del lines[k]
            else:
                indent = lines[k][: len(lines[k]) - len(lines[k].lstrip())].strip("\r\n")
                lines.insert(k, indent + rng.choice(snippets) + "\n")
            data = "".join(lines).encode()
            assert _edit(data, path) == _scan(data, path), (path, op, k)
    assert incremental.stats["statement"] > before  # some edits took the one-statement way
