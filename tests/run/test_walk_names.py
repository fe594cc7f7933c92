"""Discovery judges a file name by two C tests (the patterns' literal ends and starts) before the regex: those tests
may only skip the regex for names it would refuse. Checked on names made from every pattern and on near misses."""

from __future__ import annotations

import itertools

import pytest

from advisor.analysis.textfiles import TEXT_FILE_PATTERNS, is_text_name
from advisor.run import discovery
from advisor.run.discovery import SOURCE_SUFFIXES, _candidate, _literal_ends

FILLS = ["", "x", "a.b", ".", "*", "py", "-dev", "Dockerfile", ".env", "requirements", ".txt", "é"]


def _names() -> set[str]:
    names = set()
    for pattern in (*("*" + s for s in SOURCE_SUFFIXES), *TEXT_FILE_PATTERNS):
        for fill in FILLS:
            name = pattern.replace("*", fill)
            names.update({name, name + "x", "x" + name, name[:-1], name[1:], name + ".py", name.upper()})
    names.update(a + b for a, b in itertools.product(FILLS, [".py", ".pyi", ".ipynb", ".sh", ".txt", ".toml", ".h"]))
    return {n for n in names if n and "/" not in n}


@pytest.mark.parametrize("name", sorted(_names()))
def test_the_quick_tests_never_refuse_what_the_patterns_take(name):
    assert _candidate(name) == bool(name.endswith(SOURCE_SUFFIXES) or is_text_name(name))
    text = (name.endswith(discovery._TEXT_ENDS) or name.startswith(discovery._TEXT_STARTS)) and is_text_name(name)
    assert bool(text) == is_text_name(name)


def test_literal_ends_of_each_kind_of_glob():
    assert _literal_ends(["*.py", "Makefile", "Dockerfile.*", "req*.txt", "a?b", "[ab]c"]) == (
        (".py", "Makefile", ".txt"),
        ("Dockerfile.", "", ""),  # "?" and "[" are not taken apart: every name goes on to the regex
    )
