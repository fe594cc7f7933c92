"""A JSON fix's edits computed from a slice of the file (advisor.fix.slice_edits) are those of the whole file.

Every case of tests/fix/test_replace.py (imports removed and added, a name used again, shadowed, quoted, a
semicolon, non-ASCII text) is made sliceable: functions and a class follow it, one of whose methods holds a fix
while the others become stubs in the slice (a class thinned). Each report's fix, and all of them together, must
give the whole file's text byte for byte; most must come from the slice, not from the fallback to the whole file.
"""

from __future__ import annotations

import pytest

from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.fix import edits
from tests.fix.test_replace import AMP, CASES

SETTINGS = settings_at("2.15", "2.12")

# Statements over three lines: a slice leaves them out (stubs), so the slice is not the whole file.
PAD = """

def pad_one(x):
    y = x + 1
    z = y * 2
    return z


# between the two
@staticmethod
def pad_two(
    a,
    b,
):
    return a + b


class Model:
    def unrelated(self):
        e = 1
        f = e
        return f

    def forward(self, x):
        with autocast():
            return x

    # a comment at the method's indentation
    def after(self):
        g = 1
        h = g
        return h
"""

VARIANTS = {
    **{name: code + PAD for name, code in CASES.items()},
    "crlf": (AMP + "\nwith autocast():\n    pass\n" + PAD).replace("\n", "\r\n"),
    "footer comment": AMP + "\nwith autocast():\n    pass\n" + PAD + "# the end\n",
    "only in a method": AMP + PAD,
    "import added": "import torch\n" + PAD.replace("with autocast():", "with torch.cuda.amp.autocast():"),
    # A module docstring and a call over more than three lines: a slice writes `()` over them.
    "docstring, import added": '"""The module.\n\nIts docstring,\nover lines.\n"""\nimport torch\n'
    + PAD.replace("with autocast():", "with torch.cuda.amp.autocast():"),
    "docstring, amp": '"""The module.\n\nIts docstring,\nover lines.\n"""\n'
    + AMP
    + "\nwith autocast():\n    pass\n"
    + PAD,
    "docstring, __future__, import added": '"""The module.\n\nIts docstring,\nover lines.\n"""\n'
    + "from __future__ import annotations\nimport os\n"
    + PAD.replace("with autocast():", "with torch.cuda.amp.autocast():").replace(
        "class Model:", "import torch\n\nclass Model:"
    ),
    "a long call between imports": "import torch\nprint(\n    1,\n    2,\n    3,\n)\nimport os\n"
    + PAD.replace("with autocast():", "with torch.cuda.amp.autocast():"),
}

# Files a scan does not slice either (advisor.analysis.slices): no top-level torch import, two statements on a line.
NOT_SLICED = {"under a condition", "semicolon", "non-ASCII before"} | {
    name for name in CASES if name.startswith(("in a function", "in a method", "in a class body"))
}


def _whole_and_sliced(name: str) -> tuple[edits.FixableFile, edits.FixableFile]:
    data = VARIANTS[name].encode()
    whole = edits.FixableFile(f"{name}.py", data, all_rules(), SETTINGS)
    lines = sorted({finding.line for rep, finding in whole.analysed.items if rep.replacement is not None})
    return whole, edits.FixableFile(f"{name}.py", data, all_rules(), SETTINGS, lines)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_fix_from_a_slice_is_the_whole_files_fix(name):
    whole, sliced = _whole_and_sliced(name)
    assert (sliced.slice is None) == (name in NOT_SLICED)
    by_key = {key: rep for rep, key in whole.items()}
    reports = [(rep, key) for rep, key in sliced.items() if key in by_key]
    assert reports and len(reports) == len(by_key), "the slice finds what the whole file does"
    for chosen in [[r] for r in reports] + [reports]:
        got = sliced.fixed([rep for rep, _ in chosen])
        assert got == whole.fixed([by_key[key] for _, key in chosen]), (name, [key for _, key in chosen])


def test_most_cases_are_made_from_the_slice(monkeypatch):
    made = fell_back = 0
    original = edits.FixableFile.whole

    def whole(self):
        nonlocal fell_back
        fell_back += 1
        return original(self)

    monkeypatch.setattr(edits.FixableFile, "whole", whole)
    for name in set(VARIANTS) - NOT_SLICED:
        _, sliced = _whole_and_sliced(name)
        for rep, _ in sliced.items():
            if rep.replacement is not None:
                sliced.fixed([rep])
                made += 1
    assert made >= len(VARIANTS) and fell_back <= made // 5, (made, fell_back)


def test_a_change_where_the_slice_is_not_the_file_falls_back():
    """A stub's line is not the file's: a change there cannot be placed from the slice."""
    whole, sliced = _whole_and_sliced("only in a method")
    rep = next(rep for rep, _ in sliced.items() if rep.replacement is not None)
    assert sliced.slice is not None
    slice_ = sliced.slice
    i = next(i for i, code in enumerate(slice_.codes) if code.lstrip().startswith("def pad_one"))
    assert slice_._within(i, slice_.codes[i].replace("pad_one(*args, **kwargs)", "pad_one(*args)")) is None
    # and the real fix is still the whole file's
    assert sliced.fixed([rep]) == whole.fixed([rep for rep, _ in whole.items()][:1])


PIECES = [
    "import torch\n",
    "# header\n\nimport torch\n\n\n# before f\n@deco  # d\n# between decorators\n@other\ndef f():\n    return 1\n"
    "    # indented comment after the body\n\n# module comment\nx = 1; y = 2\n\n# footer\n",
    "class A:\n    def m(self):\n        pass\n\n\n    # the block's footer\n\n\nz = (\n    1,\n)\nw = 1 \\\n    + 2\n",
    "if x:\n    pass\nelse:\n    pass\n\ntry:\n    a\nexcept E:\n    b\n",
    "x = 1\r\n\r\n# c\r\ny = 2\r\n",
    "x = 1\ry = 2\r",
    '"""doc"""\n\n\nfrom __future__ import annotations\n',
    "\n\n\n",
    "# only a comment\n",
    "x = 1\x0c\n# form feed\ny = 2\n",
]


@pytest.mark.parametrize("source", PIECES)
def test_statements_cut_by_lines_are_those_generated(source):
    """`pieces` cuts each top-level statement's code from the text by the statements' first lines (no codegen):
    the same header, statements and footer as generating them, and the cut is taken (not the fallback)."""
    import ast

    import libcst

    from advisor.analysis.positions import statement_starts
    from advisor.fix import slice_edits

    module = libcst.parse_module(source)
    starts = statement_starts(ast.parse(source))
    generated = slice_edits.pieces(module, source)
    assert slice_edits.pieces(module, source, starts) == generated
    if generated is None:  # a CR-only file: LibCST does not give its last newline back, either way
        return
    head, _, foot = generated
    assert slice_edits._cut(module, source, starts, head, foot) == generated[1]


def test_statements_that_do_not_line_up_are_generated():
    """Starts of another text (a statement more): the cut gives up and the statements are generated."""
    import ast

    import libcst

    from advisor.analysis.positions import statement_starts
    from advisor.fix import slice_edits

    source = "x = 1\ny = 2\n"
    module = libcst.parse_module(source)
    starts = statement_starts(ast.parse("x = 1\ny = 2\nz = 3\n"))
    head, _, foot = slice_edits.pieces(module, source)
    assert slice_edits._cut(module, source, starts, head, foot) is None
    assert slice_edits.pieces(module, source, starts) == slice_edits.pieces(module, source)
