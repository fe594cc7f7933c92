"""A reference rule looks up only the names and attributes that can refer to one of its names
(advisor.rule.reference.ReferenceRule._may_refer): an alias must never be skipped."""

from __future__ import annotations

import pytest

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import rule_by_code
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST
from advisor.syntax.references import References

ALIASED = [
    "import torch.nn.init as I\nI.uniform(w)\n",
    "from torch.nn import init as ii\nii.uniform(w)\n",
    "from torch.nn.init import uniform as u\nu(w)\n",
    "def f(w):\n    from torch.nn.init import uniform as u\n    return u(w)\n",
    "import importlib\nm = importlib.import_module('torch.nn.init')\nm.uniform(w)\n",
    "import importlib\nu = importlib.import_module('torch.nn.init.uniform')\nu(w)\n",
    "import torch\nf = [torch.nn.init.uniform]\n",
    "from torch.nn.init import *\nuniform(w)\n",
]


def _found(code: str) -> list[tuple]:
    result, _ = analyse(code.encode(), "m.py", [rule_by_code("ADV772")], settings_at(NEWEST))
    return [(f.rule, f.line, f.column, f.message) for f in result.findings]


@pytest.mark.parametrize("code", ALIASED)
def test_an_alias_is_looked_up(code, monkeypatch):
    found = _found(code)
    assert found, code
    monkeypatch.setattr(References, "alias_names", lambda self: None)  # not known: every name is looked up
    assert _found(code) == found


def test_alias_names_are_the_names_bound_to_another_name():
    import ast

    from advisor.syntax.references import collect

    tree = ast.parse(
        "import torch\nimport torch.nn.functional as F\nfrom torch.nn.init import uniform\n"
        "from torch.nn.init import normal as n\nfrom . import x as y\nm, ok = optional_import('torch.cuda')\n"
    )
    assert collect(tree, 400).alias_names() == {"F", "n", "m"}


@pytest.mark.parametrize(
    "code, kept",
    [
        ("import torch\nimport numpy as np\ny = torch.log(x)\nz = np.log(x)\n", [3]),
        ("from torch import log as ln\ny = ln(x)\n", [2]),
        ("def f(x):\n    import torch as t\n    return t.log(x)\n", [3]),
        ("from torch import *\ny = log(x)\n", [2]),
        ("import torch\ny = getattr(torch, 'log')(x)\nz = self.log(x)\nw = make().log(x)\n", [2]),
        ("import torch\ny = getattr(torch, 'special').log(x)\nz = (a * b).log(x)\nw = x[0].log()\n", [2]),
        ("import importlib\nm = importlib.import_module('torch')\ny = m.log(x)\n", [3]),
        ("import math\ny = math.log(x)\ndef g(log):\n    return log(x)\n", []),
    ],
)
def test_calls_to_keeps_the_calls_match_may_resolve(code, kept):
    """`advisor.rule.calls_to`: a call by the last name stays unless the imports resolve its callee to something else
    or no import binds it, or its head is no name (a call's result, an expression: `match` resolves none); a callee
    whose head is a `getattr(...)` stays."""
    import ast

    from advisor.rule import calls_to
    from advisor.syntax.references import collect

    refs = collect(ast.parse(code), 100)
    assert sorted(c.lineno for c in calls_to(refs, ("torch.log",))) == kept
