"""`split_lines` breaks only where Python's tokenizer does (`\n`, `\r\n`, `\r`), by `str.splitlines` where the text
holds no other break of its, by the pattern otherwise: both the same on every text."""

from __future__ import annotations

import random

from advisor.core.textlines import _LINE, lines_of, split_lines


def _by_the_pattern(text: str, keepends: bool) -> list[str]:
    lines = _LINE.findall(text)
    return lines if keepends else [line.rstrip("\r\n") for line in lines]


def test_a_form_feed_or_a_line_separator_is_no_line_break():
    text = "a = 1\x0c\nb = 2\u2028c\r\nd\re"
    assert split_lines(text) == ["a = 1\x0c", "b = 2\u2028c", "d", "e"]
    assert split_lines(text, keepends=True) == ["a = 1\x0c\n", "b = 2\u2028c\r\n", "d\r", "e"]


def test_both_ways_agree_on_random_texts():
    pieces = ["a", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "é"]
    rng = random.Random(15)
    for _ in range(5000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 24)))
        for keepends in (True, False):
            assert split_lines(text, keepends) == _by_the_pattern(text, keepends), repr(text)


def test_lines_of_offsets_as_python_numbers_them():
    text = "a\r\nb\x0cc\rd\n\ne"
    offsets = [text.index(c) for c in "abcde"]
    assert lines_of(text, offsets) == [1, 2, 2, 3, 5]  # a form feed breaks no line; `\r` alone does
