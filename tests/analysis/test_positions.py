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
