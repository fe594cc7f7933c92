"""Scanning a very large file in slices (advisor.analysis.slices) gives exactly the findings of the whole file."""

from __future__ import annotations

import glob
import os

import pytest

from advisor.analysis import slices
from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST
from tests.conftest import FIXTURES

RULES = [r for r in all_rules() if r.default_enabled]


def _findings(data, path, sliced):
    result, _ = analyse(data, path, RULES, settings_at(NEWEST), sliced=sliced)
    return [
        (f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.snippet, f.replacement)
        for f in result.findings
    ], result.errors


@pytest.fixture(params=["one slice", "a statement a slice"])
def slicing(request, monkeypatch):
    """Every file as a scan slices it (one thinned slice), and every file cut one statement per slice:
    the hardest case for names and ownership."""
    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)  # slice whatever can be, however little it leaves out
    if request.param == "a statement a slice":
        monkeypatch.setattr(slices, "SLICE_MIN_BYTES", 0)
        monkeypatch.setattr(slices, "SLICE_BYTES", 1)
    return request.param


@pytest.fixture
def tiny_slices(monkeypatch):
    monkeypatch.setattr(slices, "SLICE_MIN_BYTES", 0)
    monkeypatch.setattr(slices, "SLICE_BYTES", 1)


FILES = sorted(p for p in glob.glob(os.path.join(FIXTURES, "**", "*.py"), recursive=True) if not p.endswith(".out.py"))


def test_sliced_scan_equals_whole_scan_on_every_fixture(slicing, monkeypatch):
    planned = []
    real_plan = slices.plan

    def recording_plan(text, tree, rules, refs=None):
        parts = real_plan(text, tree, rules, refs)
        planned.append(parts is not None)
        return parts

    monkeypatch.setattr(slices, "plan", recording_plan)
    for path in FILES:
        with open(path, "rb") as f:
            data = f.read()
        assert _findings(data, path, sliced=True) == _findings(data, path, sliced=False), path
    # The rest have a candidate rule that judges the whole module (such as ADV716's whole-object
    # evidence), no torch import at the top, or too little to leave out.
    assert sum(planned) >= 5, planned


LARGE = '''import torch
import torch.nn.functional as F
from advisor.core.settings import settings_at
from torch.cuda import is_current_stream_capturing as capturing

# a comment before a decorated function
@torch.no_grad()
@staticmethod
def step_{i}(x):
    """Docstring
    over lines."""
    if capturing():
        return F.upsample(x, scale_factor=2)
    return torch.cuda.is_current_stream_capturing()


class Model_{i}(torch.nn.Module):
    def forward(self, x):
        y = x * 2
        z = y + 1
        return torch.range(0, 3)  # noqa: ADV718


def upsample(x):  # our own, shadowing nothing imported
    return x
x_{i} = torch.cuda.is_current_stream_capturing()
'''


def test_a_large_file_is_sliced_and_loses_nothing(tmp_path):
    copies = slices.SLICE_MIN_BYTES // len(LARGE) + 50
    body = "".join(LARGE.format(i=i) for i in range(copies))
    data = body.encode()
    assert len(data) > slices.SLICE_MIN_BYTES
    import ast

    from advisor.analysis.prefilter import Prefilter
    from advisor.syntax.references import collect

    tree = ast.parse(body)
    refs = collect(tree, 400)
    candidates = [r for r in Prefilter(RULES).candidates(data) if r.may_match(refs)]  # as the engine does
    plan = slices.plan(body, tree, candidates)
    assert plan is not None and len(plan) > 1, "the file was not sliced: the test proves nothing"
    sliced, errors = _findings(data, "big.py", sliced=True)
    whole, _ = _findings(data, "big.py", sliced=False)
    assert not errors and sliced == whole
    assert len(whole) >= 4 * copies


def test_module_wide_rules_and_shared_lines_are_not_sliced(tiny_slices):
    import ast

    src = "import torch\nimport os; x = 1\ny = torch.cuda.is_current_stream_capturing()\n"
    assert slices.plan(src, ast.parse(src), RULES) is None  # `import os; x = 1`
    src = "import torch\nx = 1\n"
    module_wide = [r for r in RULES if hasattr(r, "leave_Module")]  # they need the whole module
    assert module_wide and slices.plan(src, ast.parse(src), module_wide) is None
    assert slices.plan("import os\nx = 1\n", ast.parse("import os\nx = 1\n"), RULES[:1]) is None  # no torch import


# Classes whose methods hold nothing a rule looks for are thinned to stubs; what the rules and the
# compat pass read elsewhere in the file must survive: version flags over several lines, `self.x`
# attributes the user's class defines, decorators, nested classes, tabs, comments between methods.
THINNED = '''import torch
import torch.nn.functional as F

TORCH_GE_2_4 = (
    tuple(int(p) for p in torch.__version__.split(".")[:2])
    >= (2, 4)
)


class Profiled:
    """A class of ours with an attribute named like torch's."""

    def __init__(self):
        self.cuda_time_total = 0
        self.a = 1
        self.b = 2

    @property
    def unrelated(self):
        x = 1
        y = 2
        return x + y

    def total(self):
        return self.cuda_time_total

    class Inner(torch.nn.Module):
        def forward(self, x):
            a = x * 2
            b = a + 1
            return F.upsample(b, scale_factor=2)

        def other(self, x):
            a = x * 2
            b = a + 1
            return b


class Model(torch.nn.Module):
\tdef forward(self, x):
\t\tif TORCH_GE_2_4:
\t\t\treturn x
\t\treturn F.upsample(x, scale_factor=2)

\t# a comment between methods
\tdef helper(self, x):
\t\ty = x
\t\tz = y
\t\treturn z


def plain(x):
    a = x
    b = a
    return torch.range(0, 3)
'''


def test_a_thinned_class_loses_nothing(monkeypatch):
    import ast

    from advisor.analysis.prefilter import Prefilter
    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)  # a file this small saves too little to be sliced otherwise
    tree = ast.parse(THINNED)
    refs = collect(tree, 400)
    data = THINNED.encode()
    candidates = [r for r in Prefilter(RULES).candidates(data) if r.may_match(refs)]
    parts = slices.plan(THINNED, tree, candidates, refs)
    assert parts is not None and len(parts) == 1, "the file was not sliced: the test proves nothing"
    source = parts[0][0]
    assert source.count("\n") == THINNED.count("\n")  # every line where it was
    assert "def unrelated(*args, **kwargs):\n" in source and "def other(*args, **kwargs):\n" in source
    assert "\tdef helper(*args, **kwargs):\n" in source
    assert ">= (2, 4)" in source  # the flag the compat pass reads is kept whole
    assert "self.cuda_time_total = 0" in source
    sliced, errors = _findings(data, "thinned.py", sliced=True)
    whole, _ = _findings(data, "thinned.py", sliced=False)
    assert not errors and sliced == whole
    assert [f[0] for f in whole].count("ADV708") == 2 and "ADV718" in {f[0] for f in whole}  # upsample, range


def test_a_class_written_on_one_line_is_kept_whole():
    import ast

    src = "import torch\nclass A: x = torch.range(0, 3)\n" + "def f():\n    a = 1\n    b = 2\n    return a\n" * 5
    parts = slices.plan(src, ast.parse(src), RULES[:1])
    assert parts is None or "class A: x = torch.range(0, 3)" in parts[0][0]


def _examples(rule):
    for example in [*rule.valid, *rule.invalid]:
        yield example if isinstance(example, str) else example.code


@pytest.mark.parametrize("rule", [r for r in all_rules() if r.valid or r.invalid], ids=lambda r: r.code)
def test_every_rule_finds_the_same_in_slices(rule, tiny_slices, monkeypatch):
    """A rule that reads beyond the statements holding its triggers must say `whole_module = True`: its
    examples, cut one statement a slice, find exactly what they find whole."""
    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    for i, code in enumerate(_examples(rule)):
        data = code.encode()
        one = analyse(data, f"example_{i}.py", [rule], settings_at(NEWEST), sliced=True)[0]
        whole = analyse(data, f"example_{i}.py", [rule], settings_at(NEWEST), sliced=False)[0]
        assert [f.to_dict() for f in one.findings] == [f.to_dict() for f in whole.findings], code


def test_a_statement_that_uses_an_import_alias_is_kept(monkeypatch):
    """`from m import upsample as up`: `up(x)` holds no trigger word; the alias counts as one."""
    import ast

    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    src = "import torch\nfrom torch.nn.functional import upsample as up\n\n\ndef f(x):\n    a = x\n    b = a\n    return up(b)\n"
    tree = ast.parse(src)
    refs = collect(tree, 400)
    parts = slices.plan(src, tree, [r for r in RULES if r.code == "ADV708"], refs)
    assert parts is None or "return up(b)" in parts[0][0]
    sliced, _ = _findings(src.encode(), "alias.py", sliced=True)
    whole, _ = _findings(src.encode(), "alias.py", sliced=False)
    assert sliced == whole and any(f[0] == "ADV708" for f in whole)


# A table at module level (torch's `op_db`, a dict of tuned parameters): its elements without a trigger are
# left out, over exactly their lines and columns; what a rule flags inside a kept element, and after the
# table, keeps its position. Multi-line elements, one-line elements, comments, a `**` entry and non-ASCII text.
TABLE_ROW = '''    Row("op{i}", lambda x: x + {i},  # a comment
        doc="""Ünïcode
        over lines""", skips=(1, 2, 3)),
    Row("short{i}", None), 7,
'''
TABLE = (
    "import torch\nimport torch.nn.functional as F\n\nclass Row:\n    def __init__(self, *a, **k):\n        pass\n\n"
    "TABLE = [\n{rows}    Row('up', lambda x: F.upsample(x, scale_factor=2)),  Row('é', torch.range(0, 3)),\n"
    "{rows}]\nPARAMS = {{\n{entries}    **dict(a=1),\n    'r': torch.range(0, 3), 'z': 1,\n}}\n"
    "y = F.upsample(torch.ones(1), scale_factor=2)\n"
)


def test_a_big_table_is_thinned_and_loses_nothing():
    import ast

    from advisor.analysis.prefilter import Prefilter
    from advisor.syntax.references import collect

    rows = "".join(TABLE_ROW.format(i=i) for i in range(200))
    entries = "".join(f"    ('k{i}', 'ü'): [{i}, 2.0, 'x' * 3],\n" for i in range(600))
    body = TABLE.format(rows=rows, entries=entries)
    data = body.encode()
    tree = ast.parse(body)
    refs = collect(tree, 400)
    candidates = [r for r in Prefilter(RULES).candidates(data) if r.may_match(refs)]
    parts = slices.plan(body, tree, candidates, refs)
    assert parts is not None and len(parts) == 1
    source = parts[0][0]
    assert len("".join(source.split())) < len("".join(body.split())) / 5, "the tables were not thinned"
    assert source.count("\n") == body.count("\n")
    ast.parse(source)
    sliced, errors = _findings(data, "table.py", sliced=True)
    whole, _ = _findings(data, "table.py", sliced=False)
    assert not errors and sliced == whole
    # In the table (after a kept element on its line), in the dict, and after both.
    assert [(f[0], f[2]) for f in whole] == [("ADV708", 25), ("ADV718", 67), ("ADV718", 10), ("ADV708", 5)]


# ADV716's file-wide evidence (`Rule.kept_lines`): a `torch.save` of a whole object to the path a load in
# another function reads, and an allow-list call in a third; sliced one statement a slice, each must reach the
# load's slice, or the load would get the `weights_only=True` fix that breaks it.
SAVED_ELSEWHERE = """import torch


class Net(torch.nn.Module):
    pass


def save(path):
    x = 1
    x += 1
    torch.save(Net(), 'net.pt')


def load():
    y = 2
    y += 1
    return torch.load('net.pt')


def other():
    z = 3
    z += 1
    return torch.load('other.pt')
"""


def test_evidence_from_other_statements_is_kept_in_every_slice(tiny_slices, monkeypatch):
    import ast

    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    adv716 = [r for r in RULES if r.code == "ADV716"]
    tree = ast.parse(SAVED_ELSEWHERE)
    parts = slices.plan(SAVED_ELSEWHERE, tree, adv716, collect(tree, 400))
    assert parts is not None and len(parts) == 2  # sliced: the save sits in every slice, not parsed whole
    assert all("torch.save(Net(), 'net.pt')" in source for source, _ in parts)
    sliced, _ = _findings(SAVED_ELSEWHERE.encode(), "saved.py", sliced=True)
    whole, _ = _findings(SAVED_ELSEWHERE.encode(), "saved.py", sliced=False)
    loads = [f for f in whole if f[0] == "ADV716"]
    assert sliced == whole and len(loads) == 2 and "same path" in loads[0][5]
    allowed = (
        SAVED_ELSEWHERE + "\n\ndef trust():\n    a = 1\n    a += 1\n    torch.serialization.add_safe_globals([Net])\n"
    )
    sliced, _ = _findings(allowed.encode(), "allowed.py", sliced=True)
    assert sliced == _findings(allowed.encode(), "allowed.py", sliced=False)[0]
    assert not any("same path" in f[5] for f in sliced)  # the allow list reached the load's slice


def test_a_statement_with_only_a_reference_rules_word_is_left_out(monkeypatch):
    """`range` in a loop is not `torch.range`: a statement that holds a reference rule's trigger word but refers
    to none of its names (through the file's imports) is left out of the slice; one that refers to one is kept,
    by an alias too."""
    import ast

    from advisor.analysis.registry import rule_by_code
    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    src = (
        "import torch\nfrom torch import range as trange\n\n"
        "def loop(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n\n"
        "def old():\n    return torch.range(0, 3)\n\n"
        "def aliased():\n    return trange(0, 3)\n\n"
        "def named():\n    return getattr(torch, 'range')(0, 3)\n"
    )
    tree = ast.parse(src)
    rule = rule_by_code("ADV718")
    [(source, _)] = slices.plan(src, tree, [rule], collect(tree, 400))
    assert "for i in range(n)" not in source
    assert "torch.range(0, 3)" in source and "trange(0, 3)" in source and "getattr(torch, 'range')" in source
    sliced = analyse(src.encode(), "m.py", [rule], settings_at(NEWEST), sliced=True)[0]
    whole = analyse(src.encode(), "m.py", [rule], settings_at(NEWEST), sliced=False)[0]
    assert [f.to_dict() for f in sliced.findings] == [f.to_dict() for f in whole.findings]
    assert len(whole.findings) == 3


def test_a_rule_that_reports_beyond_references_keeps_its_words_statements(monkeypatch):
    """ADV101 also reports `patch.object(torch.cuda, "is_current_stream_capturing")`, which refers to none of its
    names: it says `reports_at_references = False`, and the statement stays."""
    import ast

    from advisor.analysis.registry import rule_by_code
    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    src = (
        "import torch\nfrom unittest import mock\n\n"
        "def test_capture():\n"
        "    with mock.patch.object(torch.cuda, 'is_current_stream_capturing', return_value=False):\n"
        "        pass\n\n"
        "def other():\n    return 1\n"
    )
    tree = ast.parse(src)
    rule = rule_by_code("ADV101")
    assert not rule.reports_at_references
    [(source, _)] = slices.plan(src, tree, [rule], collect(tree, 400))
    assert "mock.patch.object" in source
    sliced = analyse(src.encode(), "m.py", [rule], settings_at(NEWEST), sliced=True)[0]
    assert [f.rule for f in sliced.findings] == ["ADV101"]


def test_an_expression_statement_without_a_trigger_is_left_out(monkeypatch):
    """A module-level call (`add_docstr(torch.abs, r\"\"\"...\"\"\")`) binds nothing: a slice writes `()` over its
    lines; one with `:=` binds a name, and stays."""
    import ast

    from advisor.analysis.registry import rule_by_code
    from advisor.syntax.references import collect

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    doc = 'add_docstr(\n    torch.abs,\n    r"""\n    abs(input) -> Tensor\n    """,\n)\n\n'
    walrus = "print(\n    (n := 3),\n    1,\n    2,\n)\n\n"
    src = "import torch\nfrom torch._C import _add_docstr as add_docstr\n\n" + doc + walrus + "x = torch.range(0, n)\n"
    tree = ast.parse(src)
    rule = rule_by_code("ADV718")
    [(source, _)] = slices.plan(src, tree, [rule], collect(tree, 400))
    assert "abs(input)" not in source and "(n := 3)" in source
    assert source.count("\n") == src.count("\n")
    ast.parse(source)
    sliced = analyse(src.encode(), "m.py", [rule], settings_at(NEWEST), sliced=True)[0]
    whole = analyse(src.encode(), "m.py", [rule], settings_at(NEWEST), sliced=False)[0]
    assert [f.to_dict() for f in sliced.findings] == [f.to_dict() for f in whole.findings] != []


# ADV301 names the first marker of device-generic code its search meets in the module (`_generic_marker`): a file
# that may hold one is sliced with every line that may hold one in every slice (`kept_lines`), not parsed whole.
MARKED = """import torch
from torch import accelerator as acc


def pick():
    a = 1
    a += 1
    return "xpu"


def capture(model, x):
    b = 2
    b += 1
    g = torch.cuda.CUDAGraph()
    return g


def generic():
    c = 3
    c += 1
    return acc.Graph


def other():
    d = 4
    d += 1
    return torch.cuda.graph_pool_handle()
"""


def test_a_generic_marker_is_found_in_slices_as_in_the_whole_module(tiny_slices, monkeypatch):
    import ast

    from advisor.analysis.analyse import guard_tree

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    adv301 = [r for r in RULES if r.code == "ADV301"]
    tree, refs = guard_tree(MARKED, "marked.py")
    assert adv301[0].kept_lines(refs) == (2, 8, 21)  # the alias's import, the device string, the alias's use
    parts = slices.plan(MARKED, tree, adv301, refs)
    assert parts is not None and len(parts) == 2  # sliced, each slice with every marker
    assert all('return "xpu"' in source and "return acc.Graph" in source for source, _ in parts)
    assert slices.plan(MARKED, ast.parse(MARKED), adv301, None) is None  # without the text: whole, as before
    for text in (MARKED, MARKED.replace('return "xpu"', "return 1")):
        sliced, _ = _findings(text.encode(), "marked.py", sliced=True)
        whole, _ = _findings(text.encode(), "marked.py", sliced=False)
        found = [f for f in whole if f[0] == "ADV301"]
        assert sliced == whole and len(found) == 2 and "this file is not CUDA-only" in found[0][5]


# ADV756 reports `register_generator_state` calls only in a file that refers to the CUDA graph API anywhere.
GRAPH_STATE = """import torch
import torch.cuda as tc


def make():
    a = 1
    a += 1
    return tc.CUDAGraph()


def seed(g, gen):
    b = 2
    b += 1
    g.register_generator_state(gen)


def other(g, gen):
    c = 3
    c += 1
    g.register_generator_state(gen)
"""


def test_a_module_wide_reference_is_found_in_slices_as_in_the_whole_module(tiny_slices, monkeypatch):
    from advisor.analysis.analyse import guard_tree

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    adv756 = [r for r in RULES if r.code == "ADV756"]
    tree, refs = guard_tree(GRAPH_STATE, "graphs.py")
    assert adv756[0].kept_lines(refs) == (8,)
    parts = slices.plan(GRAPH_STATE, tree, adv756, refs)
    assert parts is not None and len(parts) == 2 and all("tc.CUDAGraph()" in source for source, _ in parts)
    for text, count in ((GRAPH_STATE, 2), (GRAPH_STATE.replace("tc.CUDAGraph()", "tc.Stream()"), 0)):
        sliced, _ = _findings(text.encode(), "graphs.py", sliced=True)
        whole, _ = _findings(text.encode(), "graphs.py", sliced=False)
        assert sliced == whole and len([f for f in whole if f[0] == "ADV756"]) == count


# ADV807 reports the file's first GPU extension, unless the file passes `--offload-arch` anywhere.
EXTENSIONS = """import torch
from torch.utils.cpp_extension import CUDAExtension, load as jit

IS_ROCM = torch.version.hip is not None


def first():
    a = 1
    a += 1
    return jit("k", ["k.cu"])


def second():
    b = 2
    b += 1
    return CUDAExtension("ops", ["ops.cpp"])


def flags():
    c = 3
    c += 1
    return ["-O3"]
"""


def test_the_first_extension_is_found_in_slices_as_in_the_whole_module(tiny_slices, monkeypatch):
    from advisor.analysis.analyse import guard_tree

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    adv807 = [r for r in RULES if r.code == "ADV807"]
    tree, refs = guard_tree(EXTENSIONS, "ext.py")
    assert adv807[0].kept_lines(refs) == (2, 10, 16)
    assert slices.plan(EXTENSIONS, tree, adv807, refs) is not None
    offload = EXTENSIONS.replace('["-O3"]', '["--offload-arch=gfx942"]')
    for text, line in ((EXTENSIONS, 10), (offload, None), (EXTENSIONS.replace('["k.cu"]', '["k.cpp"]'), 16)):
        sliced, _ = _findings(text.encode(), "ext.py", sliced=True)
        whole, _ = _findings(text.encode(), "ext.py", sliced=False)
        found = [f[1] for f in whole if f[0] == "ADV807"]
        assert sliced == whole and found == ([line] if line else [])


# ADV780 judges a legacy TF32 flag by whether the file also sets `fp32_precision` anywhere.
TF32 = """import torch


def new():
    a = 1
    a += 1
    torch.backends.cuda.matmul.fp32_precision = "tf32"


def old():
    b = 2
    b += 1
    torch.backends.cuda.matmul.allow_tf32 = True


def reads():
    c = 3
    c += 1
    return torch.backends.cudnn.allow_tf32
"""


def test_a_module_wide_setting_is_found_in_slices_as_in_the_whole_module(tiny_slices, monkeypatch):
    from advisor.analysis.analyse import guard_tree

    monkeypatch.setattr(slices, "KEEP_MAX", 1.01)
    adv780 = [r for r in RULES if r.code == "ADV780"]
    tree, refs = guard_tree(TF32, "tf32.py")
    assert adv780[0].kept_lines(refs) == (7,)
    assert slices.plan(TF32, tree, adv780, refs) is not None
    for text, mixed in ((TF32, True), (TF32.replace("matmul.fp32_precision", "matmul.precision"), False)):
        sliced, _ = _findings(text.encode(), "tf32.py", sliced=True)
        whole, _ = _findings(text.encode(), "tf32.py", sliced=False)
        found = [f for f in whole if f[0] == "ADV780"]
        assert sliced == whole and len(found) == 2
        assert ("also sets `fp32_precision`" in found[0][5]) == mixed
