"""Pins in a setup.py, read through `ast` only (never executed): every string expression that is a requirement of
torch, torchvision or torchaudio, and the requirements files it names (advisor.core.pinfiles reads the others)."""

from __future__ import annotations

import ast
import glob
import os
import re

from advisor.core import reading
from advisor.core.pinfiles import Reader, Row, split_requirement


class _Strings:
    """Evaluates the string expressions of a module: literals, module names bound to them,
    f-strings, `+`, `"sep".join([...])`, `.format(...)`. An unknown part becomes `*`."""

    def __init__(self, tree: ast.Module):
        self.names: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = node.value

    def value(self, node: ast.AST, depth: int = 0) -> str | None:
        if depth > 8:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.value(self.names[node.id], depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = [self.value(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1) for v in node.values]
            return "".join(p if p is not None else "*" for p in parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            owner = self.value(node.func.value, depth + 1)
            if (
                owner is not None
                and node.func.attr == "join"
                and len(node.args) == 1
                and isinstance(node.args[0], (ast.List, ast.Tuple))
            ):
                items = [self.value(e, depth + 1) for e in node.args[0].elts]
                return None if None in items else owner.join(items)  # type: ignore[arg-type]
            if owner is not None and node.func.attr == "format":
                values = iter([self.value(a, depth + 1) for a in node.args])
                return re.sub(r"\{[^}]*\}", lambda _: next(values, None) or "*", owner)
        return None


def _setup_tiers(tree: ast.Module) -> dict[int, str]:
    """id() of nodes under setup(extras_require=...) / setup(setup_requires=...) -> tier."""
    tiers: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setup":
            for kw in node.keywords:
                tier = {"extras_require": "extra", "setup_requires": "build"}.get(kw.arg or "", "")
                for sub in ast.walk(kw.value) if tier else ():
                    tiers[id(sub)] = tier
    return tiers


def setup_py(path: str, reader: Reader) -> tuple[list[Row], list[str]]:
    """Rows from every string expression that is a requirement, and the `.txt` files setup.py names
    (read through `open()`, `read_text()` or a helper such as `parse_requirements('requirements/x.txt')`)."""
    try:
        tree = ast.parse(reader.text(path) or "")
    except (SyntaxError, ValueError):
        return [], []
    except (RecursionError, MemoryError):
        reader.note(path, "code nested too deeply to read; no pins read from it")
        return [], []
    strings, tiers = _Strings(tree), _setup_tiers(tree)
    rows: list[Row] = []
    files: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
            continue
        text = strings.value(node)
        if not text:
            continue
        if text.endswith(".txt") and "\n" not in text:
            pattern = os.path.join(os.path.dirname(path), text)
            # A glob's matches are guesses: those outside the project are dropped, not warned about.
            files += (
                sorted(f for f in glob.glob(pattern) if reader.root is None or reading.inside(f, reader.root))
                if "*" in text
                else [pattern]
            )
            continue
        if re.match(r"^\s*torch(vision|audio)?\s*(\[[^\]]*\])?\s*[<>=!~]=?\s*[0-9]", text):
            req = split_requirement(text)
            if req:
                rows.append((req[0], req[1], node.lineno, tiers.get(id(node), "install")))
    return rows, files
