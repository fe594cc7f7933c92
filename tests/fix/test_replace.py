"""The fixer's cheap edit step (advisor.fix.replace) gives byte for byte what the whole-module one gives.

Each case is fixed twice: as the fixer does it, and with the short cuts off (every node rebuilt, every removal
handed to LibCST's RemoveImportsVisitor over the whole module). The cases are the ones where a short cut could
go wrong: a name used again, shadowed, quoted in an annotation or `__all__`, imported twice or in a function,
a statement importing several names, comments and blank lines around the import, non-ASCII text before a use.
"""

from __future__ import annotations

import pytest

from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.fix import replace
from advisor.fix.fixer import fix_bytes

SETTINGS = settings_at("2.15", "2.12")

AMP = "from torch.cuda.amp import autocast\n"
F = "import torch.nn.functional as F\n"
CASES = {
    "only use": AMP + "\n\ndef f(m, x):\n    with autocast():\n        return m(x)\n",
    "used again": AMP + "\n\ndef f(m, x):\n    with autocast():\n        return m(x)\n\n\ng = autocast\n",
    "shadowed in a function": AMP
    + "\n\ndef f(m, x, autocast=None):\n    return autocast\n\n\nwith autocast():\n    pass\n",
    "string annotation": AMP + "\n\ndef f(a: 'autocast'):\n    with autocast():\n        pass\n",
    "in __all__": AMP + "\n__all__ = ['autocast']\n\nwith autocast():\n    pass\n",
    "imported twice": AMP + "\n\ndef f():\n    from torch.cuda.amp import autocast\n\n\nwith autocast():\n    pass\n",
    "in a function": "def f():\n    from torch.cuda.amp import autocast\n\n    with autocast():\n        pass\n",
    "several names": "import os\nfrom torch.cuda.amp import (  # amp\n    GradScaler,  # scaler\n    autocast,  # ctx\n)\n"
    "\ns = GradScaler\nwith autocast():\n    pass\n",
    "first of a group": '"""Doc."""\n\n' + AMP + "import os\n\nwith autocast():\n    os.getcwd()\n",
    "semicolon": "from torch.cuda.amp import autocast; import os\n\nwith autocast():\n    pass\n",
    "non-ASCII before": AMP + "\ns = 'é'; t = autocast\nwith autocast():\n    pass\n",
    "alias used again": F + "\n\ndef g(a):\n    return F.sigmoid(a) + F.relu(a)\n",
    "alias only use": '"""Doc."""\n\n' + F + "from os import path\n\n\ndef g(a):\n    return F.sigmoid(a)\n",
    "alias rebound": F + "\nF = F\n\n\ndef g(a):\n    return F.sigmoid(a)\n",
    "global": AMP + "\n\ndef h():\n    global autocast\n    autocast = 1\n\n\nwith autocast():\n    pass\n",
    "under a condition": "import sys\nif sys:\n    from torch.cuda.amp import autocast\nwith autocast():\n    pass\n",
    "comprehension": AMP + "\nx = [autocast for autocast in range(3)]\nwith autocast():\n    pass\n",
    "f-string": AMP + "\nx = f'{autocast}'\nwith autocast():\n    pass\n",
    "two fixes": AMP + "\nwith autocast():\n    pass\nwith autocast():\n    pass\n",
    # A string that names it as prose (a docstring) is no use of it; one that is an expression may be.
    "named in a docstring": AMP
    + '\n"""Call autocast here, or torch.cuda.amp.autocast."""\nwith autocast():\n    pass\n',
    # `import a.b as c` in a function: LibCST's terms are those of `from a import b as c`, which no statement is
    "aliased module in a function": "import torch\n\n\ndef f(t):\n    import torch.distributed as dist\n\n"
    "    return dist._reduce_scatter_base(t, t)\n",
    "a subscript in a string": AMP + "\nx: 'list[autocast]' = []\nwith autocast():\n    pass\n",
    # An import in a function or class: RemoveImportsVisitor decides on the top-level statement around it alone.
    "in a function, used again": "def f():\n    from torch.cuda.amp import autocast\n\n    g = autocast\n"
    "    with autocast():\n        pass\n",
    "in a method": "class C:\n    def f(self):\n        from torch.cuda.amp import autocast\n\n"
    "        with autocast():\n            pass\n",
    "in a function, read by a closure": "def f():\n    from torch.cuda.amp import autocast\n\n"
    "    def inner():\n        return autocast\n\n    with autocast():\n        pass\n",
    "in a function, named in __all__": "__all__ = ['autocast']\n\n\ndef f():\n    from torch.cuda.amp import autocast\n\n"
    "    with autocast():\n        pass\n",
    "in a function, read in its defaults": "def f(a=autocast):\n    from torch.cuda.amp import autocast\n\n"
    "    with autocast():\n        pass\n",
    "in a class body, read there": "class C:\n    from torch.cuda.amp import autocast\n\n    x = autocast\n"
    "    with autocast():\n        pass\n",
    "in a function, read in a loop before it": "def f(xs):\n    for x in xs:\n        g = autocast\n"
    "        from torch.cuda.amp import autocast\n\n        with autocast():\n            pass\n",
    "in a function, assigned again": "def f():\n    from torch.cuda.amp import autocast\n\n    with autocast():\n"
    "        pass\n    autocast = 1\n    g = autocast\n",
    "in a function, kept by the replacement": "def f(m, x):\n    from torch.utils.checkpoint import checkpoint\n\n"
    "    return checkpoint(m, x)\n",
    "in a function, read before it": "def f():\n    g = autocast\n    from torch.cuda.amp import autocast\n\n"
    "    with autocast():\n        pass\n",
    "in a function, global elsewhere": "def h():\n    global autocast\n    autocast = 1\n\n\n"
    "def f():\n    from torch.cuda.amp import autocast\n\n    with autocast():\n        pass\n",
}


def _slow(monkeypatch) -> None:
    monkeypatch.setattr(replace, "classify", lambda *a, **k: replace.Classified(set(), set(), set(), set()))
    monkeypatch.setattr(replace, "_ancestors", lambda *a, **k: None)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_short_cuts_change_no_byte(name, monkeypatch):
    code = CASES[name].encode()
    fast = fix_bytes(code, "m.py", all_rules(), SETTINGS)
    with monkeypatch.context() as m:
        _slow(m)
        slow = fix_bytes(code, "m.py", all_rules(), SETTINGS)
    assert fast.error is None and slow.error is None
    assert fast.fixed != code, "the case must have a fix"
    assert fast.fixed == slow.fixed


def test_a_sure_removal_runs_no_scope_analysis(monkeypatch):
    """An import nothing uses any more is taken out as the visitor would (advisor.fix.unimport), without it."""
    from libcst.codemod.visitors import RemoveImportsVisitor

    sizes = []
    real = RemoveImportsVisitor.transform_module

    def counted(self, module):
        sizes.append(len(module.body))
        return real(self, module)

    monkeypatch.setattr(RemoveImportsVisitor, "transform_module", counted)
    code = (AMP + "\n\ndef f(m, x):\n    with autocast():\n        return m(x)\n" + "\n\ny = 1\n" * 50).encode()
    out = fix_bytes(code, "m.py", all_rules(), SETTINGS)
    assert b"import autocast" not in out.fixed
    assert sizes == []
    nested = CASES["in a method"].encode()
    assert b"import autocast" not in fix_bytes(nested, "m.py", all_rules(), SETTINGS).fixed
    assert sizes == []  # nothing in the method reads it any more


def test_a_local_import_goes_to_the_visitor_only_where_a_nested_scope_may_read_it(monkeypatch):
    from libcst.codemod.visitors import RemoveImportsVisitor

    sizes = []
    real = RemoveImportsVisitor.transform_module
    monkeypatch.setattr(
        RemoveImportsVisitor, "transform_module", lambda self, m: sizes.append(len(m.body)) or real(self, m)
    )
    out = fix_bytes(CASES["in a function, used again"].encode(), "m.py", all_rules(), SETTINGS)
    assert b"import autocast" in out.fixed  # `g = autocast`, in the function's own body, still reads it
    out = fix_bytes(CASES["in a function, kept by the replacement"].encode(), "m.py", all_rules(), SETTINGS)
    assert b"import checkpoint" in out.fixed and b"use_reentrant=True" in out.fixed  # the new call reads it
    assert sizes == []
    out = fix_bytes(CASES["in a function, read by a closure"].encode(), "m.py", all_rules(), SETTINGS)
    assert b"import autocast" in out.fixed
    assert sizes == [1]  # the function alone


def test_a_used_import_is_not_asked_about(monkeypatch):
    from libcst.codemod.visitors import RemoveImportsVisitor

    calls = []
    monkeypatch.setattr(RemoveImportsVisitor, "transform_module", lambda self, m: calls.append(m) or m)
    out = fix_bytes(CASES["used again"].encode(), "m.py", all_rules(), SETTINGS)
    assert b"from torch.cuda.amp import autocast" in out.fixed and b"torch.amp.autocast" in out.fixed
    assert calls == []


def test_only_the_statements_that_name_them_are_read_and_the_same_uses_come_out():
    """`uses_of` with the file's statement starts parses only the top-level statements that hold a name (the others
    left blank on their lines): what it finds of those names, and where, is what the whole file's walk finds."""
    import ast

    from advisor.analysis.positions import statement_starts
    from advisor.fix.name_uses import uses_of

    text = (
        "import os\nimport torch.cuda.amp as amp\nfrom torch import autocast\n\n\n"
        "def f(x):\n    import sys\n    with autocast('cuda'):\n        return sys.argv, x\n\n\n"
        "class C:\n    'doc'\n\n    def g(self) -> 'autocast':\n        global amp\n        return os.sep\n\n\n"
        "x = [autocast for autocast in range(3)]\n__all__ = ['amp']\ny = 1; z = amp.x\n"
    )
    names = frozenset({"autocast", "amp", "sys"})
    starts = statement_starts(ast.parse(text))

    def seen(uses):
        spot = lambda n: (n.lineno, n.col_offset)  # noqa: E731
        return (
            uses.imports,
            uses.nested_imports,
            sorted(spot(n) for n, _ in uses.reads),
            uses.module_binds,
            uses.globals,
            {k: sorted(map(spot, v)) for k, v in uses.every.items()},
            sorted(map(spot, uses.loads)),
            uses.in_strings,
        )

    (some, lines), (every, all_lines) = uses_of(text, names, starts), uses_of(text, names)
    assert lines == all_lines
    assert seen(some)[1:] == seen(every)[1:]
    assert some.imports == {k: v for k, v in every.imports.items() if k != ("os", None, None)}  # os: not asked
