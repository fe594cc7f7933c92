"""Kinds that agree across rule families (issue 27): docs-only deprecations are advice, APIs that raise are breaking."""

from __future__ import annotations

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at


def _kinds(code: str, target: str = "2.13"):
    result, _ = analyse(code.encode(), "m.py", all_rules(), settings_at(target))
    return {(f.line, f.rule): f.kind for f in result.findings}


def test_docs_only_deprecations_are_advice():
    kinds = _kinds("import torch\na = torch.ger(x, y)\nb = torch.norm(x)\n")
    assert kinds == {(2, "ADV721"): "advice", (3, "ADV206"): "advice"}


def test_apis_that_raise_since_2_0_are_breaking():
    kinds = _kinds("import torch\na = torch.symeig(x)\nb = torch.solve(b, a)\nc = torch.lstsq(b, a)\nd = torch.lu(a)\n")
    assert [kinds[(n, "ADV206")] for n in (2, 3, 4)] == ["breaking"] * 3
    assert kinds[(5, "ADV206")] == "deprecated"  # warns, still works


def test_softmax_modules_without_dim_fail_only_where_called():
    kinds = _kinds(
        "import torch.nn as nn\nplaceholder = nn.Softmax()\nused = nn.Softmax()\ny = used(x)\nz = nn.LogSoftmax()(x)\n"
    )
    assert kinds == {(2, "ADV717"): "advice", (3, "ADV717"): "deprecated", (5, "ADV717"): "deprecated"}
