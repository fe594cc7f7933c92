"""The `ast` resolver (advisor.syntax.ast_names) answers as the LibCST one (advisor.syntax.names) does, node for node.

Each case is code where the two could part: scopes, bindings LibCST and `ast` spell differently, string literals
(`getattr`, importing calls). Nodes are paired by kind and span, as `benchmarks/resolver_agreement.py` pairs them on
whole trees (it found no difference on torch 2.13's tree or Megatron-LM: docs/speed.md).
"""

from __future__ import annotations

import ast
import importlib.util
import os
import textwrap

import pytest

from advisor.syntax.ast_names import AstResolver

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks", "resolver_agreement.py")
_spec = importlib.util.spec_from_file_location("resolver_agreement", _PATH)
agreement = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(agreement)  # type: ignore[union-attr]

CASES = {
    "class scope invisible from methods": """
        import torch.nn as nn
        class C:
            nn = 3
            x = nn
            def f(self):
                return nn.Linear
            y = [nn for _ in range(3)]
        """,
    "parameter and local shadowing": """
        import torch
        def f(torch, *a, k=torch.cuda, **kw):
            return torch.cuda
        def g():
            x = torch.cuda
            torch = None
            return x
        h = lambda torch=torch.cuda: torch.cuda
        """,
    "global and nonlocal": """
        def f():
            global torch
            import torch
        def g():
            return torch.cuda.synchronize()
        def outer():
            import torch.cuda as tc
            def inner():
                nonlocal tc
                tc = None
                return tc.stream
            return inner
        """,
    "comprehensions and walrus": """
        import torch as t
        xs = [t.cuda for t in range(3)]
        ys = {k: t.cuda for k in t.cuda.devices}
        zs = [(t := 1) for _ in range(3)]
        w = t.cuda
        gen = (a.b for a in [t])
        """,
    "imports of every shape": """
        import torch.cuda.amp
        import torch.cuda.amp as amp
        from torch import nn as tnn, cuda
        from . import sibling
        from .pkg import thing as other
        from .evo import *
        from torch.nn.functional import *
        x = torch.cuda.amp.autocast, amp.autocast, tnn.Linear, cuda.Stream, sibling.f, other.g, softmax, torch.x
        """,
    "importing calls": """
        import importlib, pytest
        m = importlib.import_module("torch.cuda")
        n = pytest.importorskip("torch")
        o, ok = optional_import("torchvision", name="models")
        p = __import__(name="torch.fx")
        q = import_module(r"torch.cuda")
        x = m.Stream, n.cuda, o.resnet, p.fx, q.Stream
        """,
    "getattr literals": """
        import torch
        a = getattr(torch.cuda, "memory_cached")
        b = getattr(torch.cuda, 'memory_cached')
        c = getattr(torch.cuda, r"memory_cached")
        d = getattr(torch.cuda, "memory" "_cached")
        e = getattr(torch.cuda, u"memory_cached")
        f = getattr(torch.cuda, \"\"\"memory_cached\"\"\")
        g = getattr(torch.cuda, "not an identifier")
        h = getattr(torch.cuda, name)
        i = getattr(torch, "cuda").Stream
        def k(getattr):
            return getattr(torch, "cuda")
        """,
    "other bindings": """
        import torch
        try:
            pass
        except ImportError as torch:
            pass
        with open("f") as (torch, fh):
            pass
        for torch.x in []:
            pass
        match command:
            case [torch, *rest]:
                pass
            case {"k": v, **torch}:
                pass
            case other as torch:
                pass
        del torch
        x: torch.Tensor = torch.zeros(1)
        y = torch.cuda
        """,
    "decorators, bases and annotations in the enclosing scope": """
        import torch
        class A(torch.nn.Module, metaclass=torch.M):
            torch = 1
            @torch.jit.script
            def f(self, x: torch.Tensor = torch.ones(1)) -> torch.Tensor:
                return torch.cuda
        """,
    "a star import names torch": """
        from utils import *
        x = torch.load("f"), load("g")
        """,
    "non-ascii text before a name": """
        import torch
        s = "é"; t = torch.cuda.Stream
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_resolvers_agree(name: str) -> None:
    text = textwrap.dedent(CASES[name]).lstrip()
    ours, _ = agreement._ast_answers(text)
    theirs, _ = agreement._cst_answers(text.encode("utf-8"))
    assert any(ours.values()), "the case refers to something"
    for key, answer in ours.items():
        assert key in theirs, key  # every `ast` node has its LibCST partner
        assert answer == theirs[key], (key, answer, theirs[key])


def test_answers() -> None:
    """What the resolver says, spelled out (the agreement test alone would pass on two resolvers wrong alike)."""
    text = textwrap.dedent(CASES["class scope invisible from methods"] + CASES["getattr literals"]).lstrip()
    tree = ast.parse(text)
    resolver = AstResolver(tree, text)
    by_source = {
        ast.unparse(n): resolver.qualnames(n) for n in ast.walk(tree) if isinstance(n, (ast.Attribute, ast.Call))
    }
    assert by_source["nn.Linear"] == {"torch.nn.Linear"}
    assert by_source["getattr(torch.cuda, 'memory_cached')"] == {"torch.cuda.memory_cached"}
    assert by_source["getattr(torch, 'cuda').Stream"] == {"torch.cuda.Stream"}
    assert resolver.module_imports() == {"torch.nn", "torch"}
