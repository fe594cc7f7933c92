"""LibCST's parse without its per-node validation (advisor.analysis.parser): the same tree, and validation back on
for every node made afterwards, a failed parse included."""

from __future__ import annotations

import libcst as cst
import pytest

from advisor.analysis.parser import parse_unvalidated
from tests.conftest import ROOT

SOURCE = open(f"{ROOT}/examples/demo/spectra.py", "rb").read()


def test_the_tree_is_libcsts_own():
    mine, theirs = parse_unvalidated(SOURCE), cst.parse_module(SOURCE)
    assert mine.deep_equals(theirs) and mine.bytes == SOURCE


@pytest.mark.parametrize("data", [SOURCE, b"def f(:\n"])
def test_nodes_made_afterwards_are_validated(data):
    try:
        parse_unvalidated(data)
    except cst.ParserSyntaxError:
        pass
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not a name")  # what validation exists for: a hand-made node that is wrong
