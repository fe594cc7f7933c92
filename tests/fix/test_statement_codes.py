"""The JSON fix edits generate only what a fix changed (advisor.fix.statement_codes), and that is byte for byte the
whole module's code: a change in a method of a big class, in nested blocks, a decorator, a one-line suite, a
`match`, among comments and blank lines, with CRLF newlines and tabs, with code that occurs twice (the narrow
place is then not certain: a larger one is taken), and, through the fixes themselves, with an import added and
removed (two top-level statements change), where a LibCST codemod rebuilt the whole module, and in a notebook.
"""

from __future__ import annotations

import json

import pytest

from advisor.analysis.registry import all_rules
from advisor.core.lazy import cst
from advisor.core.settings import settings_at
from advisor.fix import edits, replace, statement_codes
from advisor.fix.fixer import fixed_module
from advisor.syntax.walk import walk

METHODS = "".join(f"\n    def method_{i}(self, x):\n        y = x + {i}\n        return y * 2\n" for i in range(30))

# Each `old_api` Name is swapped for `new.api` (the first only, where the name says so), as a fix swaps a node; then
# the old code the narrowest certain place has: a name, or a statement where two names of it change (None: none).
CASES = {
    "a method of a big class": (
        "import os\n\n\nclass Big:" + METHODS + "\n    def m(self):\n        old_api()\n",
        "old_api",
    ),
    "nested blocks": (
        "def f(xs):\n    for x in xs:\n        with open(x) as h:\n            try:\n"
        "                if x:\n                    pass\n                elif old_api:\n                    old_api(h)\n"
        "            except OSError:\n                raise\n            else:\n                pass\n"
        "            finally:\n                print(x)\n    return xs\n",
        "                if x:\n                    pass\n                elif old_api:\n                    old_api(h)\n",
    ),
    "a decorator": (
        "class C:\n    @property\n    @old_api(1)\n    def m(self):\n        return 1\n" + METHODS[1:],
        "old_api",
    ),
    "comments and blank lines": (
        "# top\n\n\nclass C:  # the class\n    # before\n\n    def m(self):\n        # leading comment\n\n"
        "        old_api = old_api  # trailing comment\n\n        # after, in the block\n    # the class's last\n\n\n# end\n",
        "        # leading comment\n\n        old_api = old_api  # trailing comment\n",
    ),
    "a one-line suite": (
        "class C:\n    def m(self, x):\n        if x: old_api(); return old_api\n        return x\n",
        "        if x: old_api(); return old_api\n",
    ),
    "CRLF and tabs": (
        "class C:\r\n\tdef m(self):\r\n\t\tif old_api:\r\n\t\t\treturn old_api\r\n\t\treturn None\r\n",
        "\t\tif old_api:\r\n\t\t\treturn old_api\r\n",
    ),
    "blocks indented differently": (
        "class C:\n  def m(self):\n        if old_api:\n           old_api()\n        pass\n",
        "        if old_api:\n           old_api()\n",
    ),
    "a match": (
        "def f(x):\n    match x:\n        case 1:\n            if old_api:\n                old_api()\n        case _:\n"
        "            pass\n",
        "            if old_api:\n                old_api()\n",
    ),
    "the same code twice, first": (
        "class C:\n    def m(self):\n        old_api()\n        old_api()\n",
        "    def m(self):\n        old_api()\n        old_api()\n",
    ),
    "in a docstring too, first": (
        'def f():\n    """Call old_api() here."""\n    return old_api()\n',
        "    return old_api()\n",
    ),
    "a lambda and a starred item": ("class C:\n    def m(self):\n        g = lambda a=old_api: [*a, 2]\n", "old_api"),
    "two methods": (
        "class C:" + METHODS + "\n    def m(self):\n        old_api()\n\n    def n(self):\n        old_api()\n",
        None,
    ),
    "two top-level statements": (
        "def f():\n    return old_api\n\n\nx = 1\n\n\ndef g():\n    return old_api\n",
        "old_api",
    ),
}


def _parents(module) -> dict[int, object]:
    """The parents the fixer reads, as the analysis' one walk records them."""
    parents: dict[int, object] = {}
    walk(module, [], parents=parents)
    return parents


def _fixed(module, first_only: bool):
    """`module` with its `old_api` names swapped as `advisor.fix.replace.replaced` swaps a fix's node."""
    names = [n for n in _walk(module) if isinstance(n, cst.Name) and n.value == "old_api"]
    names = names[:1] if first_only else names
    return replace.replaced(module, {n: cst.parse_expression("new.api") for n in names}, _parents(module))


def _walk(node):
    yield node
    for child in node.children:
        yield from _walk(child)


def _spy(monkeypatch) -> list[str]:
    """What `statement_codes` generates of statements and expressions in blocks: each old code it looks for, and
    after the one it finds, the new code written over it."""
    generated: list[str] = []
    real = statement_codes._code_in_blocks
    monkeypatch.setattr(
        statement_codes, "_code_in_blocks", lambda m, node, i: generated.append(real(m, node, i)) or generated[-1]
    )
    return generated


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_narrow_code_is_the_whole_modules(name, monkeypatch):
    code, narrowest = CASES[name]
    old = cst.parse_module(code)
    new = _fixed(old, first_only="first" in name)
    generated = _spy(monkeypatch)
    codes = statement_codes.statement_codes(old, [old.code_for_node(s) for s in old.body], new)
    assert codes == [new.code_for_node(s) for s in new.body]
    ends = ["".join(map(new.code_for_node, lines)) for lines in (new.header, new.footer)]
    assert ends[0] + "".join(codes) + ends[1] == new.code != old.code
    if narrowest is None:  # two changes in the class's body: the class is generated whole
        assert generated == []
    else:
        assert generated[-2] == narrowest, generated
        assert generated[-1] == narrowest.replace("old_api", "new.api", 1 if "first" in name else -1)


def test_code_that_occurs_twice_is_not_the_narrow_place(monkeypatch):
    # `old_api()` occurs twice in the method, the line too: none of them is the place for certain, the method is
    generated = _spy(monkeypatch)
    _, narrowest = CASES["the same code twice, first"]
    old = cst.parse_module(CASES["the same code twice, first"][0])
    new = _fixed(old, first_only=True)
    assert "".join(statement_codes.statement_codes(old, [old.code], new)) == new.code
    assert generated == [
        "old_api",
        "old_api()",
        "        old_api()\n",
        narrowest,
        narrowest.replace("old_api", "new.api", 1),
    ]


def test_a_statement_rebuilt_with_the_same_children_keeps_its_code(monkeypatch):
    # advisor.fix.parking rebuilds a statement whose leading lines it parks: nothing of it is generated again
    old = cst.parse_module("import os\n\n\nclass C:" + METHODS)
    old_codes = [old.code_for_node(s) for s in old.body]
    rebuilt = old.body[1].with_changes(leading_lines=list(old.body[1].leading_lines))
    new = old.with_changes(body=[old.body[0], rebuilt])
    assert rebuilt is not old.body[1]
    monkeypatch.setattr(cst.Module, "code_for_node", lambda *a: pytest.fail("generated"))
    monkeypatch.setattr(statement_codes, "_code_in_blocks", lambda *a: pytest.fail("generated"))
    assert statement_codes.statement_codes(old, old_codes, new) == old_codes


SETTINGS = settings_at("2.15", "2.12")
AMP = "from torch.cuda.amp import autocast\n"
# Through the fixes: `autocast()` becomes `torch.amp.autocast("cuda")`, its import is removed and `import torch`
# added (two or three top-level statements change); `torch.ger` becomes `torch.outer`, no import changes.
FILES = {
    "import removed and added": "import os\n"
    + AMP
    + "\n\nclass Big:"
    + METHODS
    + "\n    def m(self):\n        with autocast():\n"
    "            pass\n",
    # LibCST's AddImportsVisitor places `import torch`, rebuilding every node: each statement is generated whole
    "no import block": AMP
    + "\n\nclass Big:"
    + METHODS
    + "\n    def m(self):\n        with autocast():\n            pass\n",
    "import kept": "import torch\n\n\nclass Big:"
    + METHODS
    + "\n    def m(self, a, b):\n        # the outer product\n\n"
    "        if a:  # when there is one\n            return torch.ger(a, b)\n\n        return None\n",
    "CRLF and tabs": ("import torch\n\n\nclass Big:\n\tdef m(self, a, b):\n\t\tif a: return torch.ger(a, b)\n").replace(
        "\n", "\r\n"
    ),
    "decorated": "import torch\n\n\nclass Big:" + METHODS + "\n    @torch.ger(1, 2)\n    def m(self):\n        pass\n",
}


def _notebook(cells: list[str]) -> bytes:
    code = [{"cell_type": "code", "metadata": {}, "outputs": [], "source": c.splitlines(True)} for c in cells]
    return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1).encode()


@pytest.mark.parametrize("name", sorted(FILES) + ["notebook"])
def test_a_fixs_narrow_splice_is_the_whole_modules_code(name, monkeypatch):
    if name == "notebook":
        path, data = "nb.ipynb", _notebook(["import torch\n", FILES["import kept"].split("\n", 1)[1], "x = 1"])
    else:
        path, data = f"{name}.py", FILES[name].encode()
    file = edits.FixableFile(path, data, all_rules(), SETTINGS)
    reports = [rep for rep, _ in file.items()]
    assert reports, name
    generated = _spy(monkeypatch)
    for chosen in [[rep] for rep in reports] + [reports]:
        module = fixed_module(file.analysed, chosen, path)
        generated.clear()
        assert file._spliced(module) == module.code, (name, chosen)
        if name == "no import block":
            assert generated == []
        else:
            assert generated and max(map(len, generated)) < 40, generated  # the call the fix changed, not the class
        with monkeypatch.context() as m:  # and the text of the file (the .ipynb JSON) made from it
            fast = file.fixed(chosen)
            m.setattr(edits.FixableFile, "_spliced", lambda self, new: None)
            assert fast == file.fixed(chosen), name
