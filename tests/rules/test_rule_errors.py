"""A rule that raises loses one node, never the file; and no rule raises on odd shapes of code.

The corpus puts every name any rule looks for into shapes a rule may not expect: starred and
keyword-splat arguments, no arguments, subscripts, decorators, bases, assignments and deletions,
comprehensions, lambdas, `match`, `async`, walrus, keyword-only and positional-only parameters,
string annotations, and a notebook without an `nbformat` key.
"""

from __future__ import annotations

import json

import pytest

from advisor.core.settings import settings_at
from advisor.analysis.analyse import analyse
from advisor.analysis.registry import select_rules
from advisor.rule import Rule, Severity

RULES = select_rules()
NAMES = sorted({q for r in RULES for q in r.targets if q.startswith(("torch", "functorch"))})  # imports: all
ATTRIBUTES = sorted({a for r in RULES for a in r.attribute_targets})

# Each shape gets `Q` (a qualified name) replaced; one file per rule holds every shape of (some of) its names.
SHAPES = (
    "Q\n",
    "Q(*args, **kwargs)\n",
    "Q()\n",
    "Q(weights_only=None, verbose=True, use_reentrant=1, dim=-1, only_inputs=0)\n",
    "Q()()(x)[0].y(z=1)\n",
    "Q[0]\nQ[...] = 1\n",
    "Q = Q\nx, *y = Q, Q\n",
    "Q += 1\n",
    "x: Q = Q\ny: 'Q' = None\n",
    "del Q\n",
    "@Q\n@Q()\ndef f(a, /, b, *, c=Q, **k) -> Q:\n    return Q\n",
    "class C(Q, metaclass=Q):\n    attr = Q\n    def state_dict(self, *a, **k):\n        return Q(self, *a)\n",
    "[Q(i) for i in Q if Q]\n{k: Q for k in Q}\n(Q for _ in ())\n",
    "f = lambda *a, **k: Q(*a, **k)\n",
    "if (y := Q(1)) is not None:\n    pass\n",
    "match Q:\n    case Q.x:\n        Q()\n    case {'a': b}:\n        pass\n",
    "async def f():\n    async with Q() as g:\n        await Q(g)\n    async for i in Q:\n        yield Q\n",
    "with Q(), Q(enabled=False) as (a, b):\n    pass\n",
    "try:\n    Q()\nexcept Q as e:\n    raise Q from e\nfinally:\n    Q\n",
    "def f():\n    global torch\n    return Q.__name__\n",
    "s = f'{Q(1)!r:>{Q}}'\n",
)
IMPORTS = "import torch\nimport torch as t\nimport functorch\nfrom torch import *\n"
# The names that once crashed a whole file (a catalogue message with braces), always in the corpus.
ALWAYS = (
    "torch.utils.data.datapipes.iter.grouping.ShardingFilterIterDataPipe",
    "torch.utils.data.datapipes.iter.grouping.SHARDING_PRIORITIES",
)


def _sample(names: list[str], n: int = 3) -> list[str]:
    """`n` names spread over the sorted list (a rule's shapes, not every name, keep the test fast)."""
    names = sorted(names)
    return names if len(names) <= n else [names[i * (len(names) - 1) // (n - 1)] for i in range(n)]


def _module(rule) -> str:
    names = [q for q in rule.targets if q.startswith(("torch", "functorch"))] or list(rule.targets)
    names = _sample(names) + [q for q in ALWAYS if q in names]
    return IMPORTS + "".join(shape.replace("Q", q) for q in names for shape in SHAPES)


def _imports() -> str:
    lines = []
    for q in NAMES:
        parent, _, last = q.rpartition(".")
        if parent:
            lines.append(f"from {parent} import {last}\nfrom {parent} import {last} as alias_\nimport {q}\n")
    return "".join(lines)


def _attributes() -> str:
    shapes = ("x.A\n", "x.A()\n", "x.A(*a)\n", "x.A = 1\n", "del x.A\n", "x().A[0].A\n", "(x or y).A\n")
    return IMPORTS + "x = torch.nn.Linear(1, 1)\n" + "".join(s.replace("A", a) for a in ATTRIBUTES for s in shapes)


def _errors(code: str, path: str = "odd.py", target: str = "2.15", lowest: str | None = "2.0") -> list[str]:
    result, _ = analyse(code.encode(), path, RULES, settings_at(target, lowest))
    return [e.message for e in result.errors]


@pytest.mark.parametrize("rule", [r for r in RULES if r.targets], ids=lambda r: r.code)
def test_no_rule_raises_on_its_names_in_odd_shapes(rule):
    assert _errors(_module(rule)) == []


@pytest.mark.parametrize("target", ["2.0", "2.15"])
def test_no_rule_raises_on_imports_of_any_name(target):
    assert _errors(_imports(), target=target, lowest=None) == []


def test_no_rule_raises_on_any_attribute_in_an_odd_shape():
    assert _errors(_attributes()) == []


def test_a_notebook_without_an_nbformat_key_is_analysed():
    cell = {"cell_type": "code", "metadata": {}, "source": ["import torch\n", "torch.load('a.pt')\n"]}
    data = json.dumps({"cells": [cell], "metadata": {}}).encode()
    result, _ = analyse(data, "nb.ipynb", RULES, settings_at("2.15", "2.0"))
    assert result.errors == []
    assert any(f.rule == "ADV716" for f in result.findings)


class _Raises(Rule):
    """Raises on every call of `boom`, reports every other call."""

    code = "ADV990"
    name = "test-raises"
    message = "a call"
    severity = Severity.WARNING
    triggers = ("boom", "ok")

    @classmethod
    def may_match(cls, refs):
        return True

    def visit_Call(self, node):
        if getattr(node.func, "value", None) == "boom":
            raise KeyError("bad data")
        self.report(node, "a call")


def test_a_rule_that_raises_on_one_node_loses_that_node_only():
    code = "import torch\nboom(1)\nok(2)\nboom(3)\ntorch.load('a.pt')\n"
    rules = [_Raises, *[r for r in RULES if r.code == "ADV716"]]
    result, _ = analyse(code.encode(), "f.py", rules, settings_at("2.15", "2.0"))
    assert sorted((f.rule, f.line) for f in result.findings) == [
        ("ADV716", 5),
        ("ADV990", 3),
        ("ADV990", 5),  # the rule's other nodes are kept, after the node it failed on
    ]
    # once, naming the rule and where it first failed
    assert [e.message for e in result.errors] == [
        "internal error in rule ADV990 at line 2 (KeyError: 'bad data'); "
        "only what this rule would have reported there is missing; please report it"
    ]
