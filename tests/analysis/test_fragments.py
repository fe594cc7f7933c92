"""A scan's statement-local rules on only the statements that refer (advisor.analysis.fragments) find exactly what
the whole file's analysis finds, and leave a rule to LibCST wherever they cannot shape its findings."""

from __future__ import annotations

import gc

import pytest

from advisor.analysis import fragments
from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.core.versions import NEWEST

RULES = [r for r in all_rules() if r.default_enabled]
LOCAL = [r for r in all_rules() if r.statement_local]


def _findings(data: bytes, sliced: bool, rules=LOCAL):
    """The statement-local rules alone by default: the fragments run only where no other rule is left to LibCST."""
    result, _ = analyse(data, "example.py", rules, settings_at(NEWEST), sliced=sliced)
    shown = [
        (f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.snippet, f.replacement, f.kind, f.fix, f.data)
        for f in result.findings
    ]
    return shown, result.errors, result.suppressed


@pytest.fixture
def done(monkeypatch):
    """The rule codes each file's fragments reported (not left to LibCST)."""
    codes: list[str] = []
    real = fragments.report

    def recording(found, refs, rules, *args):
        left = real(found, refs, rules, *args)
        codes.extend(r.code for r in rules if r not in left)
        return left

    monkeypatch.setattr(fragments, "report", recording)
    return codes


def test_there_are_statement_local_rules():
    assert {"ADV777", "ADV406", "ADV794", "ADV206"} <= {r.code for r in LOCAL}
    assert all(r.reports_at_references for r in LOCAL)


@pytest.mark.parametrize("rule", LOCAL, ids=lambda r: r.code)
def test_every_example_of_a_statement_local_rule_is_found_as_the_whole_file_finds_it(rule):
    for example in [*rule.valid, *rule.invalid]:
        code = example if isinstance(example, str) else example.code
        assert _findings(code.encode(), True) == _findings(code.encode(), False), code


CASES = {
    "nested in a method": (
        "import torch\n\nclass Saver:\n    def keep(self, t):\n        x = 1\n"
        "        if x:\n            p = t.storage().size()\n        return torch.FloatStorage(3)\n",
        "ADV777",
    ),
    "a compat gate around it": (
        "import torch\n\ndef f(t):\n    if torch.__version__ < '2.0':\n        return t.storage()\n    return t\n",
        "ADV777",
    ),
    "an elif and a multi-line call": (
        "import torch\n\ndef f(m, x, a):\n    if a:\n        pass\n    elif x:\n        return torch.jit.trace(\n"
        "            m,  # the module\n            x,\n        )\n",
        "ADV406",
    ),
    "a name that starts like elif": (
        "import torch\n\ndef f(t):\n    elif_storage = t.storage()\n    return 1\n",
        "ADV777",
    ),
    "a decorator": ("import torch\n\n\n@torch.jit.script\ndef f(x):\n    return x\n", "ADV406"),
    "a decorator in a function": (
        "import torch\n\ndef outer():\n    @torch.jit.script\n    def f(x):\n        return x\n    return f\n",
        "ADV406",
    ),
    # the `ast` partner is looked for down the nodes whose lines hold it, not over the whole table
    "an element of a table": (
        "import torch\n\nOPS = [\n    (1, 2),\n    dict(a=[torch.jit.script(f), 3]),\n    (4, 5),\n]\n",
        "ADV406",
    ),
    "an annotation": ("import torch\n\ndef f(s: torch.FloatStorage):\n    return s\n", "ADV777"),
    "columns after non-ASCII text": (
        "import torch\n\ndef f(t):\n    s = 'é' + str(t.storage())  # é\n    return s\n",
        "ADV777",
    ),
    "an import under another name": (
        "from torch.jit import trace as tr\n\ndef f(m, x):\n    return tr(m, x)\n",
        "ADV406",
    ),
    "a suppressed one": (
        "import torch\n\ndef f(m, x):\n    return torch.jit.trace(m, x)  # advisor: ignore[ADV406]\n",
        "ADV406",
    ),
    "in a test": (
        "import torch\n\nclass TestIt:\n    def test_it(self, m, x):\n        torch.jit.script(m)\n",
        "ADV406",
    ),
    "CRLF lines": (
        "import torch\r\n\r\ndef f(t):\r\n    return torch.quantize_per_tensor(t, 0.1, 0, torch.quint8)\r\n",
        "ADV794",
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_fragments_find_what_the_whole_file_does(name, done):
    code, rule = CASES[name]
    sliced = _findings(code.encode(), True)
    assert rule in done
    assert sliced == _findings(code.encode(), False)
    assert sliced[0] or sliced[2], "the case finds something"


LEFT_TO_LIBCST = {
    "two statements on a line": "import torch\nx = 1; y = t.storage()\n",
    "a fix": "import torch\nsame = a.storage().data_ptr() == b.storage().data_ptr()\n",
    "the file's own class defines the attribute": (
        "import torch\n\nclass Box:\n    def storage(self):\n        return 1\n\nb = Box()\nn = b.storage()\n"
    ),
}


@pytest.mark.parametrize("name", sorted(LEFT_TO_LIBCST))
def test_what_the_fragments_cannot_shape_is_left_to_libcst(name, done):
    code = LEFT_TO_LIBCST[name]
    assert _findings(code.encode(), True) == _findings(code.encode(), False)
    assert "ADV777" not in done


def test_a_big_table_is_thinned_as_a_slice_thins_it(done, monkeypatch):
    rows = "".join(f"    ({i}, 'row number {i} of a long table of tuned parameters'),\n" for i in range(600))
    code = f"import torch\n\nTABLE = [\n{rows}    (1, torch.FloatStorage),\n]\n"
    parsed: list[int] = []
    real = fragments.parse_unvalidated

    def measuring(source):
        parsed.append(len(source))
        return real(source)

    monkeypatch.setattr(fragments, "parse_unvalidated", measuring)
    assert _findings(code.encode(), True) == _findings(code.encode(), False)
    assert "ADV777" in done
    assert parsed and parsed[0] < len(code) / 4


def test_beside_a_rule_left_to_libcst_the_statement_local_ones_run_on_libcst_too(done):
    """A slice is parsed anyway: fragments beside it would cost more than they save."""
    code = CASES["a decorator"][0].encode()
    assert _findings(code, True, RULES) == _findings(code, False, RULES)
    assert not done


def test_nothing_of_the_fragments_outlives_the_analysis(monkeypatch):
    """No cycle keeps the fragments' tree for the collector (context -> reports -> rules -> context): with the
    collector off, reference counting alone frees it. (LibCST's nodes take no weak reference: found by id.)"""
    made: list[int] = []
    real = fragments.parse_unvalidated

    def keeping(source):
        module = real(source)
        made.append(id(module))
        return module

    monkeypatch.setattr(fragments, "parse_unvalidated", keeping)
    gc.collect()
    gc.disable()
    try:
        _findings(CASES["nested in a method"][0].encode(), True)
        alive = {
            id(o) for o in gc.get_objects() if type(o).__name__ == "Module" and type(o).__module__.startswith("libcst")
        }
    finally:
        gc.enable()
    assert made and not alive.intersection(made)
