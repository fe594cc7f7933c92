"""advisor.fix.unimport takes unused imports out exactly as LibCST's RemoveImportsVisitor does."""

from __future__ import annotations

import libcst as cst
import pytest
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import RemoveImportsVisitor

from advisor.fix import unimport

STATEMENTS = [
    "import a\n",
    "import a, b\n",
    "import a as x, b\n",
    "import a.b\n",
    "import a.b as c, d  # why\n",
    "from m import a\n",
    "from m import a, b\n",
    "from m import a as x, b as y, c\n",
    "from m.n import (a, b)\n",
    "from m import (\n    a,  # first\n    b,  # second\n)\n",
    "from m import (\n    a,\n    b,\n    c,\n)\n",
    "from m import (  # the block\n    a,  # first\n    b\n)\n",
    "from m import (a,\n    # before b\n    b)\n",
    "# leading\nfrom m import a, b  # trailing\n",
]
# The same statements inside a function that reads none of their names.
NESTED = ["def f(v):\n    " + s.rstrip("\n").replace("\n", "\n    ") + "\n    return v\n" for s in STATEMENTS]


def _removals(code: str) -> list[tuple]:
    """Every import of `code`, as the (module, name, asname) the fixer would ask to remove."""
    out = []
    for node in _nodes(cst.parse_module(code)):
        if isinstance(node, cst.Import):
            out += [(a.evaluated_name, None, a.evaluated_alias) for a in node.names]
        elif isinstance(node, cst.ImportFrom):
            module = cst.helpers.get_full_name_for_node(node.module)
            out += [(module, a.evaluated_name, a.evaluated_alias) for a in node.names]
    return out


def _nodes(module):
    found = []

    class Collect(cst.CSTVisitor):
        def visit_Import(self, node):
            found.append(node)

        def visit_ImportFrom(self, node):
            found.append(node)

    module.visit(Collect())
    return found


def _visitor(code: str, removals: list[tuple]) -> str:
    context = CodemodContext()
    for mod, name, asname in removals:
        RemoveImportsVisitor.remove_unused_import(context, mod, name, asname)
    return RemoveImportsVisitor(context).transform_module(cst.parse_module(code)).code


@pytest.mark.parametrize("code", STATEMENTS + NESTED)
def test_each_removal_and_all_of_them_as_the_visitor_makes_them(code):
    removals = _removals(code)
    for chosen in [[r] for r in removals] + [removals]:
        assert unimport.remove(cst.parse_module(code), chosen).code == _visitor(code, chosen), chosen


def test_other_imports_and_relative_ones_stay():
    code = "from . import a\nfrom m import *\nimport b\n"
    assert unimport.remove(cst.parse_module(code), [("m", "a", None), ("c", None, None)]).code == code
