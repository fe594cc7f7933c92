"""What `References` gathers from `ast` for the rules' cheap checks (`may_match`)."""

from __future__ import annotations

import ast

from advisor.syntax.references import collect


def _refs(code: str):
    return collect(ast.parse(code), 400)


def _expr(code: str):
    return ast.parse(code, mode="eval").body


def test_resolve_follows_the_files_imports_without_scopes():
    refs = _refs("import torch as th\nimport re\nfrom torch.nn import functional as F\n")
    assert refs.resolve(_expr("th.addmm")) == {"torch.addmm"}
    assert refs.resolve(_expr("F.softmax")) == {"torch.nn.functional.softmax"}
    assert refs.resolve(_expr("re.sub")) == {"re.sub"}
    assert refs.resolve(_expr("x.y")) == set()  # a local name
    assert refs.resolve(_expr("f().x")) is None
    assert _refs("from m import *\n").resolve(_expr("x")) == {"m.x"}  # a star import may bind any name


def test_transposed_receivers_and_the_calls_assigned_to_names():
    refs = _refs(
        "import torch\ndef f():\n    x = torch.zeros(2, 3, 4)\n    y: T = torch.arange(3)\n"
        "    a, b = g()\n    return x.T, torch.eye(2).mT, self.w.T, y.H\n"
    )
    assert sorted((attr, type(node).__name__) for attr, node in refs.transposed) == [
        ("H", "Name"),
        ("T", "Name"),
        ("mT", "Call"),
    ]  # not `self.w.T`: its receiver is neither a name nor a call
    assert sorted(refs.assigned) == ["x", "y"]  # not `a, b = g()`
    refs.forget_calls()
    assert refs.transposed == [] and refs.assigned == {}
