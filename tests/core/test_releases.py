"""One table of releases (`advisor.core.releases`): everything that lists releases derives from it.

Adding a release is one row there. These tests fail when a release list, a default release or a
tagline is typed somewhere else, so a new row can never leave a stale copy behind.
"""

from __future__ import annotations

import ast
import os
import re
import zipfile

import pytest

from advisor.core import pins, releases, versions
from advisor.core.releases import NEWEST, OLDEST, RANGE, RELEASES, STATIC_TAGLINE, TAGLINE
from tests.conftest import ROOT

VERSION = re.compile(r"^2\.\d+(\.\d+)?$")

pytestmark = pytest.mark.torch_free


def _key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split("."))


def test_rows_are_consecutive_minor_releases_with_monotone_columns():
    keys = [r.key for r in RELEASES]
    assert keys == sorted(set(keys)) and all(b == (a[0], a[1] + 1) for a, b in zip(keys, keys[1:]))
    for column in ("torchvision", "torchaudio", "python"):
        values = [_key(getattr(r, column)) for r in RELEASES]
        assert values == sorted(values), column  # a newer torch never pairs with an older companion or Python


def test_everything_that_lists_releases_is_a_view_of_the_table():
    names = tuple(r.torch for r in RELEASES)
    assert versions.KNOWN_VERSIONS == names and (versions.OLDEST, versions.NEWEST) == (names[0], names[-1])
    assert pins.COMPANIONS == {r.torch: (r.torchvision, r.torchaudio) for r in RELEASES}
    assert releases.release(NEWEST) is RELEASES[-1] and releases.release("9.9") is None


def _python_sources(top: str):
    for folder, _, files in os.walk(os.path.join(ROOT, top)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, ROOT).replace(os.sep, "/"), ast.parse(f.read())


def test_no_release_list_or_default_release_outside_the_table():
    """advisor/ names no release as a literal: not a list of them, not a default target, not `(2, 13)`.

    (Rules state their own windows, which are per-API facts, not release lists; SARIF's "2.1.0" is
    its schema version, JSON-RPC's "2.0" its protocol version.)"""
    found = []
    for path, tree in _python_sources("advisor"):
        if path in ("advisor/core/releases.py",):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and VERSION.match(node.value):
                if not (path == "advisor/report/output/sarif.py" and node.value == "2.1.0") and not (
                    path == "advisor/server/protocol.py" and node.value == "2.0"  # JSON-RPC's version
                ):
                    found.append(f"{path}:{node.lineno} {node.value!r}")
            elif (
                isinstance(node, ast.Tuple)
                and len(node.elts) == 2
                and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)
                and node.elts[0].value == 2
            ):
                found.append(f"{path}:{node.lineno} (2, {node.elts[1].value})")
    assert not found, "release literals outside advisor/core/releases.py:\n" + "\n".join(found)


def test_no_list_of_releases_in_the_rules():
    """A rule may name the releases of its own window, never three or more releases in a row (a release list)."""
    found = []
    for path, tree in _python_sources("rules"):
        for node in ast.walk(tree):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                texts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
                if len(texts) >= 3 and all(VERSION.match(t) for t in texts):
                    found.append(f"{path}:{node.lineno} {texts}")
    assert not found, "\n".join(found)


def _read(name: str) -> str:
    with open(os.path.join(ROOT, name), encoding="utf-8") as f:
        return f.read()


def test_taglines_come_from_the_table():
    """The static copies name no release (they cannot read the table); the CLI's help names the table's range."""
    import advisor
    from advisor.cli import app

    assert advisor.__doc__.strip() == f"torch-upgrade-advisor: {STATIC_TAGLINE[0].lower()}{STATIC_TAGLINE[1:]}"
    assert f'description = "{STATIC_TAGLINE}"' in _read("pyproject.toml")
    for line in _read(".pre-commit-hooks.yaml").splitlines():
        if line.strip().startswith("description:"):
            assert not re.search(r"\b2\.\d+\b", line), line
    assert app.info.help == TAGLINE and RANGE in TAGLINE


def test_the_documented_release_range_is_the_tables():
    """Every "2.0 to 2.N" / "2.0–2.N" of torch releases in the README and docs/ is the table's range."""
    oldest = re.escape(OLDEST)
    pattern = re.compile(
        rf"(?:torch (?:releases )?\**|known: |knows: |catalogue knows torch )\**{oldest}\s*(?:to|–|-)\s*(2\.\d+)"
    )
    stale = []
    docs = ["README.md"] + [
        os.path.join("docs", n) for n in sorted(os.listdir(os.path.join(ROOT, "docs"))) if n.endswith(".md")
    ]
    for name in docs:
        for number, line in enumerate(_read(name).splitlines(), 1):
            stale += [f"{name}:{number}: {OLDEST} to {m}" for m in pattern.findall(line) if m != NEWEST]
    assert not stale, "\n".join(stale)


WHEELS = os.environ.get("ADVISOR_WHEELS")  # a folder of torch wheels (never downloaded by the tests)


@pytest.mark.skipif(not WHEELS or not os.path.isdir(WHEELS), reason="set ADVISOR_WHEELS to a folder of torch wheels")
def test_python_floor_is_the_wheels_requires_python():
    checked = 0
    for name in sorted(os.listdir(WHEELS)):
        match = re.match(r"torch-(\d+\.\d+)\.0(?:-\d+)?-", name)
        row = releases.release(match.group(1)) if match else None
        if row is None:
            continue
        with zipfile.ZipFile(os.path.join(WHEELS, name)) as wheel:
            metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            text = wheel.read(metadata).decode()
        floor = re.search(r"^Requires-Python: >=(\d+\.\d+)", text, re.M).group(1)
        assert floor == row.python, (name, floor, row.python)
        checked += 1
    assert checked, f"no torch X.Y.0 wheel in {WHEELS}"
