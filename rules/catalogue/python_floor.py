from __future__ import annotations

import os
import re

from advisor.rule import Example, Kind, Rule, Severity, Window, get_arg, string_value

# The first torch release that raised the Python floor, and that floor: `Requires-Python` of the wheels'
# METADATA (2.0.0-2.5.0: >=3.8.0; 2.6.0: >=3.9.0; 2.9.0: >=3.10; 2.15.0: >=3.11).
FLOORS = (((2, 6), 9), ((2, 9), 10), ((2, 15), 11))
_OLDEST = 8  # 2.0-2.5 need Python 3.8
_BOUND = re.compile(r"(>=|~=|==|\^|>)\s*3\.(\d+)")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: 3\.(\d+)\b")
_REQUIRES = {
    "pyproject.toml": re.compile(r"^\s*requires-python\s*=\s*[\"']([^\"']*)[\"']"),
    "setup.cfg": re.compile(r"^\s*python_requires\s*=\s*(\S[^#;\n]*)"),
}
_POETRY = re.compile(r"^\s*python\s*=\s*[\"']([^\"']*)[\"']")
_SETUP = ("setuptools.setup", "distutils.core.setup")


def lowest_minor(spec: str) -> int | None:
    """The lowest Python 3 minor a specifier allows (`>=3.8,<4` -> 8), or None when it sets no lower bound."""
    bounds = [int(minor) for _, minor in _BOUND.findall(spec)]
    return max(bounds) if bounds else None


def floor(target: tuple[int, int]) -> int:
    return max([minor for release, minor in FLOORS if release <= target], default=_OLDEST)


def window(minor: int) -> Window | None:
    """Breaking from the first torch release whose floor is above Python 3.<minor>."""
    for release, need in FLOORS:
        if need > minor:
            version = f"{release[0]}.{release[1]}"
            return Window(since=version, removed_in=version)  # since: nothing to say on older targets
    return None


def message(declared: str, minor: int, target: tuple[int, int]) -> str:
    return (
        f"`{declared}` allows Python 3.{minor}, but torch {target[0]}.{target[1]} requires Python >= "
        f"3.{floor(target)} (the wheel's Requires-Python), so it does not install there; raise the project's "
        f"Python floor to 3.{floor(target)}"
    )


class PythonFloor(Rule):
    """The project allows a Python that the target torch no longer supports (3.9 from 2.6, 3.10 from 2.9, 3.11 from 2.15).

    What it finds: once per declaration file, the Python floor a project declares:
    `requires-python` in pyproject.toml (or poetry's `python = "^3.8"`),
    `python_requires` in setup.cfg or in a `setup(...)` call of setup.py, and, where
    none is declared, the lowest `Programming Language :: Python :: 3.X` classifier.
    It reports the declaration when that Python is below what the target torch needs.
    CI matrices are not read.

    Why: pip installs torch only where the wheel's `Requires-Python` holds: ">=3.8.0"
    for 2.0-2.5, ">=3.9.0" for 2.6-2.8, ">=3.10" for 2.9-2.14, ">=3.11" for 2.15. A
    project that promises Python 3.9 cannot get torch 2.9 there (pip falls back to an
    old torch, or fails), so it is breaking from the release that raised the floor.

    Example:
        requires-python = ">=3.9"
        # with torch 2.15
        requires-python = ">=3.11"

    Fix safety: no automatic fix: dropping a Python version is a project decision.

    Verified: `Requires-Python` in the METADATA of every torch wheel from 2.0.0 to
    2.15.0. Truth: K-781/requires-python (the METADATA of the matrix's torch).

    Validation: none.
    """

    code = "ADV781"
    name = "python-floor"
    message = "the project allows a Python older than the target torch supports"
    severity = Severity.ERROR
    kind = Kind.BREAKING
    triggers = ("python_requires",)
    targets = _SETUP

    valid = [
        "from setuptools import setup\nsetup(name='p', python_requires='>=3.11')\n",
        "import torch\nx = torch.ones(2)\n",
        "from mylib import setup\nsetup(python_requires='>=3.8')\n",  # not setuptools
        "from setuptools import setup\nsetup(name='p', python_requires='<4')\n",  # no lower bound
    ]
    invalid = [
        Example(
            "from setuptools import setup\nsetup(name='p', python_requires='>=3.9')\n",
            message="breaks in 2.9: `python_requires='>=3.9'` allows Python 3.9, but torch 2.15 requires Python >= 3.11",
            line=2,
            column=17,
        ),
        Example("import setuptools\nsetuptools.setup(python_requires='>=3.10')\n", message="allows Python 3.10"),
        Example(
            "from setuptools import setup\nsetup(python_requires='>=3.9')\n",
            target="2.9",
            message="torch 2.9 requires Python >= 3.10",
        ),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, _SETUP) is None:
            return
        arg = get_arg(node, "python_requires")
        spec = string_value(arg.value) if arg is not None else None
        minor = lowest_minor(spec) if spec else None
        found = window(minor) if minor is not None else None
        if found is not None:
            declared = self.ctx.code_for(arg).strip().rstrip(",")
            self.report(arg, message(declared, minor, self.ctx.target), window=found)

    @classmethod
    def check_text(cls, path, text, target):
        name = os.path.basename(path)
        if name not in _REQUIRES:
            return
        declared = _declaration(name, text)
        if declared is None:
            return
        line, column, length, snippet, minor = declared
        found = window(minor)
        if found is not None:
            yield line, column, length, message(snippet, minor, target), found


def _declaration(name: str, text: str) -> tuple[int, int, int, str, int] | None:
    """(line, column, length, text, lowest minor) of the file's Python floor: the requirement, else the lowest classifier."""
    section, classifiers = "", []
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            section = stripped.strip("[] ")
            continue
        m = _REQUIRES[name].match(line)
        if m is None and name == "pyproject.toml" and section == "tool.poetry.dependencies":
            m = _POETRY.match(line)
        if m is not None:
            minor = lowest_minor(m.group(1))
            if minor is not None:
                return lineno, len(line) - len(line.lstrip()) + 1, len(stripped), stripped, minor
        for c in _CLASSIFIER.finditer(line):
            classifiers.append((int(c.group(1)), lineno, c.start() + 1, len(c.group(0)), c.group(0)))
    if not classifiers:
        return None
    minor, lineno, column, length, snippet = min(classifiers)
    return lineno, column, length, snippet, minor
