"""The text gate (advisor.analysis.text_gate): it rules a file out only where `may_match` would, before any parse."""

from __future__ import annotations

import ast

import pytest

from advisor.analysis.prefilter import _SPACES, Prefilter
from advisor.analysis.registry import all_rules
from advisor.analysis.text_gate import FileText
from advisor.syntax.ast_parts import IMPORTING_CALLS
from advisor.syntax.references import collect

RULES = all_rules()


def _refers(code: str, target: str, importing: tuple[str, ...] = IMPORTING_CALLS) -> bool:
    data = code.encode()
    text = FileText(data, frozenset(data.translate(_SPACES).split()), importing)
    return text.passes(((target,), (), (), (), ()))


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nx = torch.range(3)\n",
        "import torch as t\nt.range(3)\n",
        "from torch import range\nrange(3)\n",
        "from torch import range as r\nr(3)\n",
        "if x: from torch import range\n",
        "import torch\nf = (torch).range\n",  # `ast` has no parentheses
        "import torch\ny = (torch  # a comment\n  .range)\n",
        "import torch\ny = (torch.  # a comment\n  range)\n",
        "import torch\ny = (torch.\n  # a comment\n  range)\n",
        "import torch\ngetattr(torch, 'range')(1)\n",
        "import torch\ngetattr(torch, 'range',)(1)\n",
        "from torch import *\nrange(3)\n",  # a star import binds each name to the module's
        "from m import *\ntorch.range(3)\n",  # and `torch` to torch (references.STAR_MODULES)
        "import importlib\nm = importlib.import_module('torch')\nm.range(2)\n",
        "import importlib\nm = (importlib  # why\n    .import_module('torch'))\nm.range(2)\n",
        "import importlib\nm, ok = get().import_module('torch')\nm.range(2)\n",  # the text cannot tell
        "from torch \\\n  import range\n",
        'patch("torch.range")\n',  # a string constant naming it
        "\ufeffimport torch\r\nx = torch.range(3)\r\n",  # a byte order mark before the first import
        "import torch\nx = (torch).range(3)\ny = [(torch.cuda).x, f(a, (torch).range)]\n",  # parenthesized names
        "import torch as t\ndef f():\n    return (t).range(3)\n",  # after a keyword: no call
        "import torch as t\nx = (t  # g(\n     ).range(3)\n",  # a comment's bracket, read backwards, ends nothing
        "import torch as t\nx = g(a,  # (t)\n      (t)).range\n",  # the text cannot tell past a comment
        "import torch\ny = getattr(\n    torch,  # a note, with a comma\n    'range',\n)\n",  # a getattr's name
        "import torch\ny = getattr((torch), 'range')\n",
    ],
)
def test_what_may_refer_passes(code):
    assert _refers(code, "torch.range")


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nfor i in range(3):\n    pass\n",  # the builtin
        "import torch, re\nre.compile(x)\n",  # another module's name
        "import torch\ngm.graph\n",  # a local's attribute
        "import torch\nx[0].range\n",  # no dotted name
        "from . import range\nrange(2)\n",  # a relative import binds nothing absolute
        "from m import *\nrange(3)\n",  # m.range
        "import torch\nd = {'range': 1}\n",  # a string constant, but no getattr's name
        "import importlib\ndef f():\n    return importlib.import_module('m')\nm.range(2)\n",  # binds no name
        "import torch\nmonkeypatch.setattr(torch, 'range', f)\ngetattr(torch, 'range', None)\n",  # no getattr chain
        "import importlib\nok = x == importlib.import_module('m')\nm.range(2)\n",
        "import torch\n'''\nimport numpy as torch\n'''\nnp.range\n",
        "import torch\nn = x.size(0).range\nm = y[k](t).range\n",  # a call's or a subscript's result
        "import importlib\nnp = importlib.import_module('numpy')\nnp.range(2)\n",  # bound to another module
        "from m import (  # a note (with brackets)\n    range as r,\n)\nr(2)\n",  # a comment's bracket ends nothing
        's = """\\\nimport torch as np\n"""\nnp.range(2)\n',  # an import in a string after a backslash
        "import torch as t\nx = g(a,\n      (t)).range\n",  # a call's result, its arguments on lines of their own
        "import torch\ny = get(torch, 'range')\nz = x.getattr(torch, 'range')\n",  # no getattr's name
        "import torch\ny = getattr(torch[0], 'range')\n# getattr(torch, 'range')\n",
    ],
)
def test_what_cannot_refer_is_ruled_out(code):
    target = "torch.compile" if "re." in code else "torch.cuda.graph" if "graph" in code else "torch.range"
    assert not _refers(code, target)


@pytest.mark.parametrize(
    "code",
    [
        'import torch\n"""Call torch.range(3) for a range."""\n',  # a docstring
        "import torch\n# torch.range is gone\nx = 1\n",  # a comment
        "import torch\ns = 'see torch.range'\n",
        'import torch\ns = """a\ntorch.range\n"""\n',
        "import torch\ns = b'see torch.range'  # bytes\n",
        'import torch\ns = "it\\" torch.range"\n',  # an escaped quote does not end it
        'import torch\n"""\nimport this is prose\n"""\n',  # an "import" in prose: no parse, no star
        'import torch\ns = f"torch.range of {n}"\n',  # an f-string's text, outside its fields
        "import torch\nx = 1  # a comment\ny = x.range\n",  # a comment above the head of a dotted name
        "import torch\nx = 1  # a comment\n# another\n\ny = (x.range)\n",
        "import torch\n# A sentence.\nx.range(3)\n",  # a comment's full stop is no dot
        "import torch\n# One.\n# Two.\nx.range(3)\n",  # nor is one of a comment above it
        "import torch\ns = f\"__import__('{name}')\"\nx.range(3)\n",  # an import by a call, in a string's text
        'import torch\ns = f"{{ torch.range }}"\n',  # doubled braces are an f-string's text
        'import torch\ns = f"if ({x}) {{"\n# torch.range(3)\n',  # and pair with nothing
    ],
)
def test_a_name_in_a_comment_or_a_string_refers_to_nothing(code):
    assert not _refers(code, "torch.range")


@pytest.mark.parametrize(
    "code",
    [
        "import torch\ny = (torch.  # a\n  # b\n  range)\n",  # a dot, then comments
        "import torch\ny = (torch.  # a\n\n  range)\n",
        'import torch\ny = f(torch.  # a "#"\n  range)\n',
    ],
)
def test_a_dot_before_comments_is_seen(code):
    assert _refers(code, "torch.range")


@pytest.mark.parametrize(
    "code",
    [
        'import torch\nprint(f"{torch.range(3)}")\n',  # an f-string's replacement field is code
        'import torch\nprint(rf"{torch.range(3)}")\n',
        'import torch\n"""doc"""\nx = torch.range(3)  # torch.range\n',  # after a docstring
        "import torch\ns = '#'; x = torch.range(3)\n",  # a `#` in a string starts no comment
        'import torch\ns = "a\\\\"; x = torch.range(3)\n',  # an escaped backslash ends no string
        # Python 3.12 nests an f-string's own quotes: read short by the 3.11 rules, so the rest is taken for code
        'import torch\nx = f"{d["#"]}" + str(torch.range(3))\n',
    ],
)
def test_a_name_in_code_after_strings_and_comments_passes(code):
    assert _refers(code, "torch.range")


def test_a_module_named_by_an_import_counts_with_the_names_above_it():
    # the mined families read `imports` too: `from torch.a.b import c` names torch.a
    assert _refers("from torch.a.b import c\n", "torch.a")
    assert _refers("import torch.a.b.c\n", "torch.a.b")


def test_a_dotted_name_s_head_may_come_from_a_star_import():
    assert _refers("from torch.cuda import *\ny = graphs.graph\n", "torch.cuda.graphs.graph")
    assert not _refers("from torch.cuda import *\ny = graphs.graph\n", "torch.graphs.graph")


def test_a_gate_says_no_only_where_may_match_does():
    """Every rule's examples, valid and invalid: where `may_match` holds, its gate lets the file through, and so
    does the prefilter's whole-file answer."""
    prefilter = Prefilter(RULES)
    checked = 0
    for rule in RULES:
        gate = rule.text_gate()
        examples = [*rule.valid, *(e.code for e in rule.invalid)]
        for code in examples:
            code = code if isinstance(code, str) else code.code
            try:
                refs = collect(ast.parse(code), 400)
            except SyntaxError:
                continue
            if not rule.may_match(refs):
                continue
            data = code.encode()
            if gate is not None:
                checked += 1
                words = frozenset(data.translate(_SPACES).split())
                assert FileText(data, words, IMPORTING_CALLS).passes(gate), (rule.code, code)
            if rule in prefilter.candidates(data):
                assert rule in prefilter.candidates(data, IMPORTING_CALLS), (rule.code, code)
    assert checked > 300


def test_calls_patterns_and_imports_let_through_what_may_match_reads():
    def passes(code: str, gate) -> bool:
        data = code.encode()
        return FileText(data, frozenset(data.translate(_SPACES).split()), IMPORTING_CALLS).passes(gate)

    log = ((), (), (), ("log",), ())
    assert passes("from math import log\ny = log(1 + x)\n", log)  # by its last name, as calls_of finds it
    assert passes("from torch import log as L\ny = L(1 + x)\n", log)  # renamed: any call may be it
    assert passes("y = getattr(torch, 'log')(1 + x)\n", log)
    assert passes("y = log  # why\\\n(1 + x)\n", log)
    assert passes("y = getattr(torch, 'log'  # why\n  ,)(1 + x)\n", log)
    assert not passes("log = logging.getLogger()\nlog.info('x')\n", log)
    assert not passes("def log(x):\n    pass\nclass  log(Base):\n    pass\n", log)  # a definition calls nothing
    assert not passes("d = os.path.join(root, 'log')\n# log(1 + x)\ns = 'log(1 + x)'\n", log)  # a string, a comment
    assert passes("from torch import sum as S\n", ((), (), (), (), ("sum",)))
    state = ((), (), (r"state_dict[ \t\f\\\r\n]*\([ \t\f\\\r\n]*[^)\s\\]",), (), ())
    assert passes("m.state_dict(dest)\n", state) and passes("m.state_dict(\n    # why\n    dest)\n", state)
    assert not passes("sd = m.state_dict()\nm.state_dict( )\n", state)


@pytest.mark.parametrize(
    "code, passes",
    [
        ("import torch\ny = x[[slice(None), 0]]\n", True),
        ("import torch\ny = x[ ( [None, 0])]\n", True),
        ("import torch\ny = x[  # why\n    [None]]\n", True),
        ("import torch\ny = x[idx + [None]]\n", True),
        ("import torch\ny = x[[1] * 2 + [...]]\n", True),
        ("import torch\nidx = [slice(None)] * 2\ny = x[idx]\n", True),
        ("import torch\n# no slice here\nrows = [[None, 1]]\nz = rows + [0, 1]\n", False),
        ('import torch\ny = x[["a]", None]]\n', True),  # a `]` in a string: the text cannot tell
        ("import torch\ny = x[[f(a)[0] if c else None]]\n", True),
        ("import torch\nf: Callable[[int], None]\ny = x[[0, 1]]\n", False),  # a tuple index; advanced indexing
        ("import torch\ns = slice(0, 2)\nself.t = slice(1, 2)\ny = x[s]\ndef f():\n    return slice(a)\n", False),
        ("import torch\nidx[d] = slice(0, 2)\n", True),  # stored into a list
        ('import torch\n"""y = x[[None]]"""\n# idx = [slice(None)] * n\ns = "a + [None]"\n', False),  # no code
        ("import torch\nidx[d] = s = slice(0, 2)\n", True),
        ("import torch\nidx = list(f(dim = slice(0, 2)))\n", True),
        ("import torch\nidx.append(  # why\n    slice(0, 2))\n", True),
        ("import torch\ny = x[[f(a), g(b)]]\nz = w + [len(v)]\n", False),  # calls are no tuples
        ("import torch\ny = x[[f(a), (b, c)]]\n", True),
        ("import torch\n# " + "#(" * 40 + "\ny = a * (  # " + "#" * 40 + "\n  [f(b)]\n", False),  # no blow-up
        # A `[` or a `*` after what may end an operand (past line breaks and comments), not a display or a star
        ("import torch\nrows = f(\n    [[None, 1]],\n)\n", False),
        ("import torch\nif a:\n    return [[None]]\nassert [[None]]\n", False),
        ("import torch\nf(*[[None]], **g)\n", False),
        ("import torch\ny = (x\n    [[None]])\n", True),
        ("import torch\ny = (x  # why.\n    # more\n    [[None]])\n", True),
        ("import torch\ny = x[[0]\n    + [None]]\n", True),
        ("import torch\ny = x[idx ** [None]]\n", True),
        ("import torch\ny = aten.slice(x, 0)\ndef slice(g, x):\n    pass\n", False),  # no call of the builtin
        ("import torch\nz = w + [' ...', \"b\"]\n", False),  # plain strings are looked past
        # The list the whole index or an operand, not a tuple's first item: `Callable[[..], R]`
        ("import torch\nf: Callable[[int, Optional[slice]], None]\ng: Callable[[Callable[P, R]], None]\n", False),
        ("import torch\nh: Callable[[dis.Positions | None, int], None]\nk: Callable[[...], object]\n", False),
        ("import torch\ny = x[[None, a[0]]]\n", True),
        ("import torch\ny = x[([None]) ]\n", True),
        ("import torch\ny = x[[None] - d]\n", True),  # any binary operation
        ("import torch\ny = x[d - [None]]\n", True),
        ('import torch\nf: Callable[["Node", None], str]\n', True),  # a string: the text cannot tell
        ("import torch\ny = x[[a[b[c[None]]]], 0]\n", True),  # three deep: the text cannot tell
        ('import torch\nz = w + ["a\\n", None]\n', True),  # an escape: the text cannot tell
    ],
)
def test_a_list_index_or_a_slice_call_lets_adv130_through(code, passes):
    from advisor.analysis.registry import rule_by_code

    data = code.encode()
    text = FileText(data, frozenset(data.translate(_SPACES).split()), IMPORTING_CALLS)
    assert text.passes(rule_by_code("ADV130").text_gate()) is passes


@pytest.mark.parametrize(
    "code, code_of_rule, passes",
    [
        ("import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nd = {1: 2}\n", "ADV766", False),
        ("import torch\nopt = torch.optim.SGD({w, b}, lr=0.1)\n", "ADV766", True),
        ("import torch\nopt = torch.optim.SGD(  # why\n    frozenset(ps))\n", "ADV766", True),
        ("import torch\nopt = torch.optim.SGD(lr=0.1, params = {w})\n", "ADV766", True),
        ("import torch\nx = {w, b}\n", "ADV766", False),  # a set, but no optimizer
        ("import torch\nx = torch.ones(2, 3, 4)\ny = x.sum()\n", "ADV139", False),
        ("import torch\nx = torch.ones(2, 3, 4)\ny = x.T\n", "ADV139", True),
        ("import torch\nx = torch.ones(2, 3, 4)\ny = x.\\\n  mT\n", "ADV139", True),
        ("from torch import ones as o\nx = o(2, 3, 4)\n", "ADV139", True),  # renamed: any call may be a factory
        ("from torch import (ones  # why\n    as o)\nx = o(2, 3, 4)\n", "ADV139", True),
        ("import torch\nx = torch.ones(2, 3, 4)\nwith open(f) as g:\n    pass\n", "ADV139", False),
        ('import torch\nx = torch.ones(2, 3, 4)\n"""x.T"""\n', "ADV139", False),  # not in code
        ("import torch\nx.scatter_(0, i, src)\nif reduce == 'add':\n    pass\n", "ADV135", False),
        ("import torch\nx.scatter_(0, i, src, reduce  # why\n    ='add')\n", "ADV135", True),
        # ADV717: a call that may lack `dim` (one positional at most, no `dim=`), or one the text cannot read
        (
            "import torch.nn.functional as F\np = F.softmax(f(x, y)[:, 0], dim=g(a, b(c)))\nq = F.softmax(x,\n  -1,)\n",
            "ADV717",
            False,
        ),
        ("import torch.nn.functional as F\np = F.softmax(f(x, y)[:, 0])\n", "ADV717", True),
        ("import torch.nn.functional as F\np = F.log_softmax(x <= 1, dtype=t)\n", "ADV717", True),
        ("import torch.nn.functional as F\np = F.softmax(x, *rest)\nq = F.softmin(  # a)\n    x)\n", "ADV717", True),
        ("import torch.nn.functional as F\np = F.softmax(g(h(k(x))), dim=0)\n", "ADV717", True),  # too deep to read
        ("import torch.nn.functional as F\np = getattr(F, 'softmax')(x)\n", "ADV717", True),
        ("import pathlib\nimport torch\nq = pathlib.Path('.').resolve()\n", "ADV798", False),  # no Dispatcher
        ("from torch.fx.experimental.unification.multipledispatch import Dispatcher\nd.resolve(t)\n", "ADV798", True),
        ("import torch\nsizes = dataset.cummulative_sizes\n", "ADV798", True),
        ("import torch\nx = torch.zeros(4)\ny = aten.resize\nx.resize_(2, 2)\n", "ADV151", False),  # no method call
        ("import torch\nx = torch.zeros(4)\ny = x.resize  (2, 2)\n", "ADV151", True),
        ("from PIL import Image\nimg = img.resize((224, 224))\n", "ADV151", False),  # no tensor known
        ("import torch.distributed as dist\nPG = dist.ProcessGroupNCCL\nb = pg._get_backend(dev)\n", "ADV770", False),
        ("import torch.distributed as dist\nok = isinstance(pg, dist.ProcessGroupNCCL)\n", "ADV770", True),
        ("import torch\nb = pg._get_backend(torch.device('cuda'))\nb.comm_split_count()\n", "ADV770", True),
        (
            "from torch.nn.attention.flex_attention import flex_attention\nout = flex_attention(q, k, v)\n",
            "ADV806",
            False,
        ),
        ("def f(kernel_options=None):\n    return g(kernel_options=kernel_options)\n", "ADV806", False),  # no flex
        (
            "from m import flex_attention\nout = flex_attention(q, k, v, kernel_options  # why\n    ={})\n",
            "ADV806",
            True,
        ),
        ("import torch\nwith torch.autograd.graph.save_on_cpu():\n    y = checkpoint(f, x)\n", "ADV754", False),
        (
            "import torch\nwith torch.autograd.graph.save_on_cpu():\n    y = checkpoint(f, x, context_fn=cf)\n",
            "ADV754",
            True,
        ),
        ("import json\nprof.export_chrome_trace('t.json')\n", "ADV602", False),  # no JSON load
        ("import json\ndata = json.load(f)\n# prof.export_chrome_trace(p)\n", "ADV602", False),  # a comment's
        ("import json\ngetattr(prof, 'export_chrome_trace')(p)\nd = json.load(f)\n", "ADV602", True),
        ("import torch\nrows = p.key_averages()\nwith profile() as p:\n    pass\n", "ADV762", False),
        ("import torch\nwith profile(with_stack=True) as p:\n    pass\nrows = p.key_averages()\n", "ADV762", True),
        ("import torch\nok = x.device.type == 'mkldnn'\n# f(device='mkldnn')\n", "ADV137", False),
        ("import torch\nd = torch.device((  # why\n    'mkldnn'))\n", "ADV137", True),
        # ADV757: a method's call, not an attribute read
        ("import torch\nop = aten.cholesky.default\nf = torch.Tensor.qr\n", "ADV757", False),
        ("import torch\nL = a.cholesky  # why\n(upper=True)\n", "ADV757", True),
        # ADV110: `1 + x` or `x + 1` in a `log(` call, or what the text cannot read, or `log` renamed or quoted
        (
            "import math\nimport torch\ny = math.log(2.0) + torch.log(x)\nz = torch.log(2 * x + 1, out=o)\n",
            "ADV110",
            False,
        ),
        ('import logging\nimport torch\nlogger.log(level, "ran %s", name)\n', "ADV110", False),
        ("import torch\ny = torch.log(  # why\n    (1.0) + x)\n", "ADV110", True),
        ("import torch\ny = torch.log(x.sum(0) + (1),)\n", "ADV110", True),
        ('import torch\ny = torch.log(t["a\\n"] + 1)\n', "ADV110", True),  # an escape: not read
        ("from torch import log as ln\ny = ln(x + 1)\n", "ADV110", True),
        ("import torch\ny = getattr(torch, 'log')(1 + x)\n", "ADV110", True),
        # ADV111: `exp(...)` with one subtracted
        ("import torch\ny = torch.exp(x) * 2 - 1\nn = len(x) - 1\n", "ADV111", False),
        ("import torch\ny = (torch.exp(f(x[0]))) - (1.0)\n", "ADV111", True),
        # a rule for which a string naming a target is no reference (`Rule.strings_name_targets`): only a getattr's
        ("import torch\nRULES = {'torch.nn.functional.sigmoid': 1}\n", "ADV722", False),
        ("import torch\nf = getattr(torch.nn.functional, 'sigmoid')\n", "ADV722", True),
        ("from unittest import mock\nimport torch\nmock.patch('torch.cuda.amp.autocast')\n", "ADV701", False),
        # ADV134: `.add`/`.sub` only with a number or a minus first; any other method of the family
        ("import torch\ns = set()\ns.add(x)\ny = aten.sub(a, b)\n", "ADV134", False),
        ("import torch\np.data.add_(  # why\n    (-lr), d_p)\n", "ADV134", True),
        ("import torch\ny = b.addmm(beta, x, w)\n", "ADV134", True),
        ("import torch\nused.add(0)\nn.add_(1)\np.addcmul_(a, b, value=v)\n", "ADV134", False),
        ("import torch\ny = b.addmm(f(a, b), m[0, 1], {k: v})\n", "ADV134", True),
        ("import torch\ny = b.addcdiv_(a == c, x, w)\n", "ADV134", True),
        ("import torch\ny = b.addmm(t['a'], x)\n", "ADV134", True),  # a string: the text cannot tell
        ("from torch import add as plus\ny = plus(x, 2, z)\n", "ADV134", True),
        ("import torch\nclass Q:\n    def add(self, x, y, z):\n        return x.add(y)\n", "ADV134", False),  # a def
        ("import torch\ny = torch.add(x, 2, y)\n", "ADV134", True),  # a function of the generic names
        ("import torch\ny = getattr(x, 'addmm')(a, b, c)\n", "ADV134", True),
        ("import torch\ny = torch.add(x, y)\nz = torch.addmm(a, b)\n", "ADV134", False),  # the current forms
        # ADV112: `sum(` with `exp(` first in it
        ("import torch\ny = torch.log(torch.sum(x, 1))\nz = torch.exp(x)\n", "ADV112", False),
        ("import torch\ny = torch.log(torch.sum(  # why\n    torch.exp(x), 1))\n", "ADV112", True),
        ("from torch import exp as e\nimport torch\ny = torch.log(torch.sum(e(x), 1))\n", "ADV112", True),
        ("import torch\ny = torch.log(getattr(torch, op)(torch.exp(x), 1))\n", "ADV112", True),  # any getattr
        ("import torch\ny = torch.log(x)\nr = 'sum'\ne = ['exp']\n", "ADV112", False),  # names in strings
        ("import torch\ny = torch.log(x)\nz = getattr(m, op)(x, 1)\n", "ADV112", False),  # no argument of a call
        ("import torch\ny = torch.log(torch.sum(getattr(torch, 'exp')(x), 1))\n", "ADV112", True),
        # ADV110/ADV111: a getattr's name counts where it is called
        ("import torch\ny = getattr(torch, 'log')(x + 1)\n", "ADV110", True),
        ("import torch\ny = torch.log(x)\nkind = f('log', 1)\n", "ADV110", False),
        ("import torch\ny = torch.log(g, add(g, f(h(1), s), s))\n", "ADV110", False),  # two arguments
        ("import torch\ny = torch.log(a[i, j] + 1)\n", "ADV110", True),  # a comma in brackets
        ("import torch\ny = torch.log(f(a, b) + 1,)\n", "ADV110", True),
        ("import torch\ny = getattr(torch, 'exp'  # why\n  )(x) - 1\n", "ADV111", True),
        # ADV732: a checkpoint call that passes no `use_reentrant=`
        ("from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)\n", "ADV732", False),
        ("from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, use_reentrant)\n", "ADV732", True),
        ("from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, g(use_reentrant=1))\n", "ADV732", True),
        ("from torch.utils.checkpoint import checkpoint as ck\ny = ck(f, x)\n", "ADV732", True),
        # ADV161: an ignore call that may drop
        ("import torch\n@torch.jit.ignore\ndef f():\n    pass\nwarnings.simplefilter('ignore')\n", "ADV161", False),
        ("import torch\n@torch.jit.ignore(  # why\n    drop=True)\ndef f():\n    pass\n", "ADV161", True),
        ("import torch\n@torch.jit.ignore(f(a), **kw)\ndef f():\n    pass\n", "ADV161", True),
        # ADV717: a definition calls nothing
        (
            "import torch.nn.functional as F\nclass Softmin(Module):\n    def softmax(x, dim=None):\n        pass\n",
            "ADV717",
            False,
        ),
        # ADV137: "mkldnn" where a device is read
        ("import torch\nlib = torch.library.Library(\n    'mkldnn', 'IMPL')\nb = 'mkldnn'\n", "ADV137", False),
        ("import torch\ny = getattr(x, 'to')(  # why\n    'mkldnn')\n", "ADV137", True),
        ("import torch\nd = torch.device(type='mkldnn')\n", "ADV137", True),
        # ADV131: a meshgrid call without `indexing=` (or with `indexing=None`)
        ("import torch\nx, y = torch.meshgrid(a, b, indexing='ij')\n", "ADV131", False),
        ("import torch\nx, y = torch.meshgrid(a, b, indexing=(None))\n", "ADV131", True),
        ("import torch\nx, y = torch.meshgrid(a, b, my_indexing=1)\n", "ADV131", True),
        # ADV135: `reduce=` given to a scatter call
        ("import torch\ny = x.scatter_(0, i, s)\nz = f(reduce='sum')\n", "ADV135", False),
        ("import torch\ny = x.scatter_(0, i, s,  # why\n    reduce='add')\n", "ADV135", True),
        # ADV795: a plain `def __torch_function__`
        (
            "import torch\nclass T(torch.Tensor):\n    @classmethod\n    def __torch_function__(c, f, t, a=(), k=None):\n"
            "        pass\n",
            "ADV795",
            False,
        ),
        (
            "import torch\nclass T(torch.Tensor):\n  @classmethod\n  def __torch_function__(c, f, t, a=(), k=None):\n"
            "    pass\n",
            "ADV795",
            True,
        ),  # an indentation the gate does not look back at: the text cannot tell
        # ADV130: a list's items are words; a plain subscript is one item
        ("import torch\ny = x[[dims[1:], x_None, a.slice]]\n", "ADV130", False),
        ("import torch\ny = head + [f(a) for a in zip(slice_numels[1:], dims[1:])]\n", "ADV130", False),
        ("import torch\ny = x[[d[0], None]]\n", "ADV130", True),
    ],
)
def test_a_pattern_also_needed_holds_besides_the_reference(code, code_of_rule, passes):
    """`advisor.rule.ALSO_NEEDED`: a reference to a target, and a shape the rule's `may_match` asks for too."""
    from advisor.analysis.registry import rule_by_code

    data = code.encode()
    text = FileText(data, frozenset(data.translate(_SPACES).split()), IMPORTING_CALLS)
    assert text.passes(rule_by_code(code_of_rule).text_gate()) is passes
