"""The architecture's limits, checked on every run (issue #14): they hold because a test says so.

- no module over 400 lines, no function over 80 lines in advisor/ and rules/;
- a rule's whole world is `advisor.rule`: rules import nothing else from advisor;
- the CLI only parses options and prints: `cli.fix` stays short.
The layering itself (no cycles, no upward imports) is import-linter's contract in pyproject.toml, run by .ci/run.
"""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80

pytestmark = pytest.mark.torch_free


def _modules(top: str):
    for folder, _, files in os.walk(os.path.join(ROOT, top)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    yield os.path.relpath(path, ROOT), f.read()


def test_no_module_or_function_is_too_long():
    too_long = []
    for top in ("advisor", "rules"):
        for path, source in _modules(top):
            if source.count("\n") > MAX_MODULE_LINES:
                too_long.append(f"{path}: {source.count(chr(10))} lines")
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    length = node.end_lineno - node.lineno + 1
                    if length > MAX_FUNCTION_LINES:
                        too_long.append(f"{path}:{node.lineno} {node.name}(): {length} lines")
    assert not too_long, "\n".join(too_long)


def _is_rule_world(module: str) -> bool:
    return module == "advisor.rule" or module.startswith(("advisor.rule.", "advisor.rules"))


def test_rules_import_only_the_rule_world():
    outside = []
    for path, source in _modules("rules"):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            outside += [
                f"{path}:{node.lineno} imports {n}" for n in names if n.startswith("advisor") and not _is_rule_world(n)
            ]
    assert not outside, "\n".join(outside)


def test_cli_fix_only_parses_and_prints():
    with open(os.path.join(ROOT, "advisor", "cli.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    (fix,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "fix"]
    # The body, not the signature: one line per option is how the formatter lays out the flags.
    assert fix.end_lineno - fix.body[0].lineno + 1 <= 40


def test_every_package_is_installed():
    """`pip install .` ships only the packages pyproject.toml names: a new folder must be listed there."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        listed = set(tomllib.load(f)["tool"]["setuptools"]["packages"])
    found = set()
    for top, name in (("advisor", "advisor"), ("rules", "advisor.rules")):
        for folder, _, files in os.walk(os.path.join(ROOT, top)):
            if "__init__.py" in files:
                rel = os.path.relpath(folder, os.path.join(ROOT, top))
                found.add(name if rel == "." else name + "." + rel.replace(os.sep, "."))
    assert found <= listed, sorted(found - listed)
