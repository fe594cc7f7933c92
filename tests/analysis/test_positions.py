"""Our lean position computation must agree with LibCST's PositionProvider, node for node."""

import glob
import os

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from advisor.analysis.positions import compute_positions
from tests.conftest import ROOT

HERE = os.path.join(ROOT, "tests")  # the ids stay relative to tests/
SOURCES = sorted(glob.glob(os.path.join(HERE, "fixtures", "**", "*.py"), recursive=True))
SOURCES = [p for p in SOURCES if "broken" not in p]
SOURCES += sorted(glob.glob(os.path.join(HERE, "..", "advisor", "*.py")))


@pytest.mark.parametrize("path", SOURCES, ids=[os.path.relpath(p, HERE) for p in SOURCES])
def test_same_positions_as_libcst(path):
    module = cst.parse_module(open(path, "rb").read())
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lean = compute_positions(module)
    for node, r in expected.items():
        assert lean[id(node)] == (r.start.line, r.start.column, r.end.line, r.end.column), module.code_for_node(node)[
            :80
        ]


@pytest.mark.parametrize(
    "code",
    [
        "x = 1\r\ny = (a,\r\n     b)\r\n",
        "@dec\nclass A:\n    def f(self): return [i for i in range(3)]\n",
        "a = 'é'; b = f'{a!r:>{w}}'\n",
        "if x:\n\tpass\nelse:\n\tpass\n",
    ],
)
def test_tricky_sources(code):
    module = cst.parse_module(code)
    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lean = compute_positions(module)
    assert all(lean[id(n)] == (r.start.line, r.start.column, r.end.line, r.end.column) for n, r in expected.items())


# A finding's positions come from generating only the innermost statement that holds it (StatementPositions),
# going down from the top-level statement through defs and classes: they must be the whole module's, node for node.
INNER = [
    "class A:\n    '''Doc.'''\n\n    # a comment\n    @dec  # trailing\n\n    # before the def\n    @other(1)\n    def f(self, x):\n"
    "        y = x; z = y\n        return [i for i in range(3)]\n\n    def g(self): return 1\n\n\n"
    "    class B:\n        async def h(self):\n            if x:\n                return (a,\n    b)\n",
    "class T:\n\tdef f(self):\n\t\t# tab\n\t\treturn 1\n\t# footer\n",
    "def outer():\n    def inner():\n        return torch.load(p)\n  # odd comment\n    return inner\n".replace(
        "\n", "\r\n"
    ),
    "if x:\n    def f():\n        return 1\nelse:\n    class C:\n        def g(self):\n            return 2\n",
    "@dec\n\nclass D(Base):\n    x = 1\n\n    # c\n    def m(self, a,\n          b):\n        return a\n",
    # The first block of compound statements too: `if`, `for`, `while`, `with`, `try` (not an `else`, `elif`, `except`)
    "if x:\n    # c\n    a = 1\n\n    for i in y:\n        while i:\n            with f() as g, \\\n"
    "                    h():\n                b = (1,\n  2)\nelif z:\n    c = 3\nelse:\n    d = 4\n",
    "try:\n    import torch\n    x = torch.load(p)  # t\nexcept ImportError:\n    x = None\nfinally:\n    pass\n",
    "async def f():\n    async with a:\n        async for i in b:\n            await c(i)\n    if d: e()\n",
    "def f():\n\tif x:\n\t\ttry:\n\t\t\treturn 1\n\t\texcept* E:\n\t\t\tpass\n\t# footer\n".replace("\n", "\r\n"),
]


def _parents(module) -> dict[int, object]:
    parents, stack = {}, [module]
    while stack:
        node = stack.pop()
        for child in node.children:
            parents[id(child)] = node
            stack.append(child)
    return parents


@pytest.mark.parametrize("code", INNER + [open(p).read() for p in SOURCES[-6:]])
def test_the_innermost_statements_positions_are_the_whole_modules(code, monkeypatch):
    import ast

    from advisor.analysis import positions as P
    from advisor.analysis.facts import Facts

    module = cst.parse_module(code)
    whole = compute_positions(module)
    facts = Facts()
    facts.parents.update(_parents(module))
    starts = P.statement_starts(ast.parse(code))
    nodes, stack = [], list(module.body)
    while stack:
        node = stack.pop()
        nodes.append(node)
        stack.extend(node.children)
    if code not in INNER:  # a real file: its statements and small statements, each asked about alone
        nodes = [n for n in nodes if isinstance(n, (cst.BaseSmallStatement, cst.BaseCompoundStatement))]
    depths: set[int] = set()
    generate = P._generate
    monkeypatch.setattr(
        P, "_generate", lambda m, n, line, indents=(): depths.add(len(indents)) or generate(m, n, line, indents)
    )
    for node in nodes:
        positions = P.StatementPositions(module, starts, facts)
        positions.cover(node)
        assert positions[id(node)] == whole[id(node)], module.code_for_node(node)[:80]
        assert positions._whole is None  # not the whole module's
    if any(isinstance(s, (cst.FunctionDef, cst.ClassDef, cst.If, cst.Try)) for s in module.body):
        assert max(depths) >= 1  # statements inside defs, classes and blocks were generated alone
