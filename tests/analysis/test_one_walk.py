"""One walk per analysed file: the scope builder, the rules and the evidence the later passes need
(compat gates, annotation and patch sites, test scopes, own attributes) share one traversal of the tree.

`advisor.syntax.walk.MODULE_WALKS` counts every walk and `nodes_of` search that starts at a whole module.
"""

from __future__ import annotations

import os

import pytest

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST
from advisor.syntax import walk as walk_module
from advisor.syntax.names import NameResolver
from tests.conftest import ROOT

RULES = [r for r in all_rules() if r.default_enabled]
DEMO = os.path.join(ROOT, "examples", "demo", "spectra.py")

# Every pass after the rules has something to do here: a version gate and a hasattr probe (compat),
# a try/except import fallback, an annotation, a patched attribute, a test function, a user class
# defining a profiler attribute, names bound after the function that uses them, and a star import.
SOURCE = b"""\
import torch
from typing import Optional
from torch.utils.data import *

if torch.__version__ >= "2.4":
    amp = torch.amp
else:
    amp = torch.cuda.amp

try:
    from torch.amp import GradScaler
except ImportError:
    from torch.cuda.amp import GradScaler


def train(model, x):
    scaler: Optional[torch.cuda.amp.GradScaler] = None
    with torch.cuda.amp.autocast():
        y = model(x)
    helper()
    if hasattr(torch.cuda.amp, "autocast"):
        torch.cuda.amp.autocast()
    return torch.linalg.eigh(y.cpu())


class Event:
    def cuda_time_total(self):
        return 0

    def total(self):
        return self.cuda_time_total


def test_it():
    torch.cuda.amp.GradScaler()


torch.cuda.amp.autocast = wrap(torch.cuda.amp.autocast)


def helper():
    return late.cpu()


late = torch.ones(2)
"""


def _walks(data: bytes, path: str) -> tuple[int, list]:
    before = walk_module.MODULE_WALKS[0]
    result, analysed = analyse(data, path, RULES, settings_at(NEWEST))
    assert analysed is not None, "the file must reach the rules"
    return walk_module.MODULE_WALKS[0] - before, result.findings


# ADV716's evidence of whole-object loads (a module method called on the value, an object saved to the same path)
# is gathered in the same walk.
LOADS = b"""\
import torch
model = torch.load(path)
model.eval()
torch.save(torch.nn.Linear(2, 2), "net.pt")
net = torch.load("net.pt")
"""


@pytest.mark.parametrize("name", ["crafted", "demo", "loads"])
def test_one_full_tree_traversal_per_analysed_file(name, monkeypatch):
    if name in ("crafted", "loads"):
        data, path = (SOURCE, "crafted.py") if name == "crafted" else (LOADS, "loads.py")
    else:
        with open(DEMO, "rb") as f:
            data, path = f.read(), DEMO
    checks = []
    finish = NameResolver.finish

    def counted_finish(self):
        checks.append(finish(self))
        return checks[-1]

    monkeypatch.setattr(NameResolver, "finish", counted_finish)
    walks, findings = _walks(data, path)
    assert findings, "the file has findings for the passes after the rules to work on"
    assert checks == [True], "no answer given during the walk changed once the scopes were complete"
    assert walks <= 1, f"{walks} traversals of the whole tree for one file"


def test_an_answer_changed_by_a_later_binding_runs_the_rules_again(monkeypatch):
    """`torch` is rebound inside an expression after the line that uses it (a walrus, which the scope
    builder meets only when the walk reaches it): the rules run again, on the finished scopes."""
    checks = []
    finish = NameResolver.finish

    def counted_finish(self):
        checks.append(finish(self))
        return checks[-1]

    monkeypatch.setattr(NameResolver, "finish", counted_finish)
    source = b"import torch\n\ndef f():\n    torch.cuda.amp.autocast()\n    print(torch := None)\n"
    result, _ = analyse(source, "late.py", RULES, settings_at(NEWEST))
    assert checks == [False]
    assert not [f for f in result.findings if "autocast" in f.message]
    with_global = b"import torch\n\ndef f():\n    torch.cuda.amp.autocast()\n"
    assert [
        f for f in analyse(with_global, "early.py", RULES, settings_at(NEWEST))[0].findings if "autocast" in f.message
    ]


def test_a_search_that_skips_keeps_the_order_of_what_it_finds():
    """`nodes_of(..., skip=)` finds what the full search finds outside the skipped fields, in the same order:
    the passes that prune their search (compat's function locals, ADV130's scope bindings) read it in order."""
    import libcst as cst

    from advisor.syntax.walk import nodes_of

    module = cst.parse_module(SOURCE.decode())
    kinds = (cst.SimpleStatementLine, cst.Assign, cst.Call, cst.FunctionDef)
    everything = nodes_of(module, *kinds)
    skip = {cst.FunctionDef: ("body",), cst.Lambda: None}
    inside = {id(n) for f in everything if isinstance(f, cst.FunctionDef) for n in nodes_of(f.body, cst.CSTNode)}
    assert nodes_of(module, *kinds, skip=skip) == [n for n in everything if id(n) not in inside]
    lines = nodes_of(module, cst.SimpleStatementLine)
    assert lines and nodes_of(module, cst.SimpleStatementLine, skip={cst.SimpleStatementLine: None}) == lines
