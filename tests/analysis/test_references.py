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


def test_string_constants_are_apart_from_references():
    refs = _refs('import torch\nRULES = {"torch.cuda.synchronize": 1}\ntorch.cuda.current_stream()\n')
    assert "torch.cuda.synchronize" in refs.strings and "torch.cuda.synchronize" in refs.qualnames
    assert "torch.cuda.synchronize" not in refs.referenced and "torch.cuda.current_stream" in refs.referenced
    assert refs.refers_to_any(["torch.cuda.synchronize"])  # `mock.patch("torch.x.y")`: what most rules read
    assert not refs.refers_to_any(["torch.cuda.synchronize"], strings=False)


def test_a_reference_rule_needs_a_name_not_a_string():
    """A file that only names an API in strings (torch's `_dynamo/trace_rules.py`) is nothing to a rule that reports
    at names, attributes and `getattr` calls; a rule that reads strings (`mock.patch(...)`) still looks at it."""
    from advisor.analysis.registry import rule_by_code

    only_strings = _refs('import torch\nSKIP = {"torch.cuda.is_current_stream_capturing", "torch.cuda.graph"}\n')
    named = _refs("import torch\nwith torch.cuda.graph(g):\n    pass\n")
    graph = rule_by_code("ADV301")  # device-specific graph capture: a SymbolRule over torch.cuda.graph
    assert graph.strings_name_targets is False
    assert not graph.may_match(only_strings) and graph.may_match(named)
    patched = _refs('from unittest import mock\nmock.patch("torch.cuda.is_current_stream_capturing")\n')
    assert rule_by_code("ADV101").may_match(patched)  # stream capture reads the patched name


def test_a_patched_name_needs_a_patcher():
    """ADV101 reads a string only as a patcher's argument: the API named in a set is nothing to it."""
    from advisor.analysis.registry import rule_by_code

    stream = rule_by_code("ADV101")
    assert not stream.may_match(_refs('import torch\nSKIP = {"torch.cuda.is_current_stream_capturing"}\n'))
    assert stream.may_match(
        _refs('import torch\n@mock.patch("torch.cuda.is_current_stream_capturing")\ndef t(): ...\n')
    )


# ADV130's evidence: each of these is reported, so `may_match` must let it through (a name's list is followed
# through a conditional, a tuple, a sum, an annotated binding, a store, an `insert`).
_LIST_INDEXES = [
    "import torch\ny = x[[None, 0]]\n",
    "import torch\ny = x[[0 if c else ..., 1]]\n",
    "import torch\ny = x[[slice(0, 2) for _ in r]]\n",
    "import torch\ny = x[[Ellipsis] * 2 + [0]]\n",
    "import torch\ndef f(x: torch.Tensor):\n    return x[[(0, 1), (1, 2)]]\n",
    "import torch\ndef f(x, n):\n    idx = [slice(None) if c else 0 for c in n]\n    return x[idx]\n",
    "import torch\ndef f(x, n):\n    idx: list = [slice(None)] * n\n    return x[idx + [None]]\n",
    "import torch\ndef f(x, n):\n    idx = list(x.shape)\n    idx[0] = slice(1, None) if n else None\n    return x[idx]\n",
    "import torch\ndef f(x, n):\n    idx = []\n    idx.insert(0, slice(n))\n    return x[idx]\n",
    "import torch\nidx = [slice(None)] * 2\ny = x[idx]\n",
]
# ...and nothing here can be: int or name lists, a slice object (not a list) as the index, a list of slices never
# used as one.
_NO_LIST_INDEXES = [
    "import torch\ny = x[[0, 2]]\n",
    "import torch\ny = x[[i, j]] + x[[f(i)]]\n",
    "import torch\ndef f(x, a):\n    idx = slice(a, None)\n    return x[idx]\n",
    "import torch\ndef f(x, n):\n    idx = [slice(None)] * n\n    return x[tuple(idx)]\n",
    "y = x[[None, 0]]\n",  # no torch
]


def test_list_index_evidence_lets_every_reported_list_through():
    from advisor.analysis.analyse import analyse
    from advisor.analysis.registry import rule_by_code
    from advisor.core.settings import settings_at
    from advisor.core.versions import NEWEST

    rule = rule_by_code("ADV130")
    for code in _LIST_INDEXES:
        result, _ = analyse(code.encode(), "example.py", [rule], settings_at(NEWEST))
        assert [f.rule for f in result.findings] == ["ADV130"], code  # the rule reports it...
        assert rule.may_match(_refs(code)), code  # ...and its cheap check lets the file through
    for code in _NO_LIST_INDEXES:
        assert not rule.may_match(_refs(code)), code
    refs = _refs(_LIST_INDEXES[5])
    assert refs.list_values and refs.index_names == {"idx"}
    refs.forget_calls()
    assert refs.list_values == {}  # it holds the tree


def test_calls_of_finds_a_renamed_import_by_its_new_name():
    """`from torch.optim import SGD as Opt`: `Opt(...)` may call it (and `SGD(...)`, another library's, may not,
    but a last name is all a cheap check has)."""
    from advisor.analysis.registry import rule_by_code

    refs = _refs("from torch.optim import SGD as Opt\nimport torch as t\na = Opt({w})\nb = t.optim.SGD(ps)\nc = f(x)\n")
    assert sorted(c.lineno for c in refs.calls_of(["torch.optim.SGD"])) == [3, 4]
    assert refs.calls_of(["torch.optim.Adam"]) == []
    sets = rule_by_code("ADV766")  # an optimizer given a set
    assert sets.may_match(refs)
    listed = _refs("from torch.optim import SGD as Opt\nopt = Opt(list(ps), **kw)\nopt = Opt(*groups)\n")
    assert not sets.may_match(listed)  # neither `**kw` nor `*groups` is where the rule looks for a set


def test_rocm_guards_are_read_per_if():
    """ADV804/ADV805 report a hip guard whose ROCm branch switches something off: a file whose hip guards only
    switch things on is nothing to them; the ROCm branch may be the `else` of a `not hip` test."""
    from advisor.analysis.registry import rule_by_code

    symm = rule_by_code("ADV804")
    head = "import torch\nimport torch.distributed._symmetric_memory as symm_mem\n"
    assert not symm.may_match(_refs(head + "if torch.version.hip:\n    fast = True\n"))
    assert symm.may_match(_refs(head + "if torch.version.hip:\n    fast = None\n"))
    assert symm.may_match(_refs(head + "if not is_hip():\n    pass\nelse:\n    raise RuntimeError\n"))
    assert symm.may_match(_refs(head + "if torch.version.hip is None:\n    x = 1\nelse:\n    pytest.skip('no')\n"))
    sparse = rule_by_code("ADV805")
    head = "import torch\nfrom torch.sparse import to_sparse_semi_structured as s\n"
    assert not sparse.may_match(_refs(head + "if torch.version.hip:\n    w = s(w)\n"))
    assert sparse.may_match(_refs(head + "if not torch.version.hip:\n    w = to_sparse_semi_structured(w)\n"))
    assert sparse.may_match(_refs(head + "@skipIfRocm\ndef test(): s(w)\n"))


def test_dotted_prefixes_of_references_and_imports_are_made_once():
    refs = _refs("import torch.cuda.amp\nfrom torch.utils.data import Sampler\nx = torch.a.b.c\n")
    found = refs.dotted_prefixes()
    assert {"torch.cuda", "torch.cuda.amp", "torch.utils", "torch.utils.data.Sampler"} <= found
    assert {"torch.a", "torch.a.b", "torch.a.b.c"} <= found
    assert "torch" not in found  # two parts at least
    assert refs.dotted_prefixes() is found
