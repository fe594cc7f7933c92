"""The prefilter finds every trigger where it occurs, whatever the catalogue's size (advisor.analysis.prefilter)."""

from __future__ import annotations

from advisor.analysis.prefilter import Prefilter, _longest_word
from advisor.rule import Rule


def _rule(code: str, *triggers: str) -> type[Rule]:
    return type(f"R{code}", (Rule,), {"code": code, "triggers": triggers})


def test_a_call_shape_is_gated_by_its_longest_word():
    assert _longest_word(b".add_(-") == b"add_"
    assert _longest_word(b"log(1 +") == b"log" and _longest_word(b"[[") is None
    assert _longest_word(b"torch.add(") == b"add"  # not the word in nearly every file


def test_a_call_shape_under_torch_is_found_by_its_other_word():
    pf = Prefilter([_rule("ADV001", "torch.add(")])
    assert [r.code for r in pf.candidates(b"import torch\ny = torch.add(x, 1)\n")] == ["ADV001"]
    assert pf.candidates(b"import torch\ny = torch.addmm(x, a, b)\nz = add(1)\n") == []


def test_call_shapes_are_found_where_they_are_and_nowhere_else():
    rules = [_rule("ADV001", ".add_(-"), _rule("ADV002", "foo("), _rule("ADV003", "[["), _rule("ADV004", "log(1 +")]
    pf = Prefilter(rules)
    codes = lambda data: [r.code for r in pf.candidates(data)]  # noqa: E731
    assert codes(b"x.add_(-1)\n") == ["ADV001"]
    assert codes(b"y = foo(1)\n") == ["ADV002"] and codes(b"y = xfoo(1)\n") == []  # a word starts a word
    assert codes(b"x[[0, 1]]\n") == ["ADV003"]
    assert codes(b"z = log(1 + x)\n") == ["ADV004"] and codes(b"z = _log(1 + x)\n") == []
    assert codes(b"x.add_(1); add_(-1)\n") == []


def test_the_word_split_is_the_word_regex():
    """The prefilter splits a file into words with a byte table, not `\\w+`: the same words for every byte."""
    import random
    import re

    from advisor.analysis.prefilter import _SPACES

    rng = random.Random(7)
    samples = [
        bytes(range(256)),
        "é_x1 torch.cuda\tgraph(ünï)\r\n".encode(),
        bytes(rng.randrange(256) for _ in range(5000)),
    ]
    for data in samples:
        assert set(data.translate(_SPACES).split()) == set(re.findall(rb"\w+", data))


def test_call_shapes_tried_where_their_needle_is_find_what_whole_file_scans_find():
    from advisor.analysis.prefilter import _FEW, _occurring, _pattern

    shapes = [b".add(" + bytes([c]) for c in b"-0123456789"]
    brackets = [b"[[(", b"[[*", b"[[...", b"[[["]
    texts = [
        b"x.add(1)\n",
        b"x.add(10)\n",  # `.add(1` bounded: not in `.add(10`
        b"x.add(y)\ny.add(-1)\nz.add(2, 3)\n",
        b"a = [[[(1,)]]]\n",  # overlapping needles: `[[[` at 4, `[[(` at 5
        b"q = [[...]]; r = [[*s]]\n",
        b"x.add(y)\n" * (_FEW + 1) + b"x.add(3)\n",  # a common needle: the whole-file way
    ]
    for data in texts:
        for needle, group in ((b".add(", shapes), (b"[[", brackets)):
            if needle in data:
                slow = [t for t in group if t in data and _pattern(t).search(data)]
                assert sorted(_occurring(data, needle, group)) == sorted(slow), (data, needle)
