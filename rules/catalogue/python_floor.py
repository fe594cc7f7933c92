from __future__ import annotations

import os
import re

from advisor.rule import Example, Rule, Severity, Window, get_arg, string_value

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
_TORCH_BOUND = re.compile(r"^\s*torch\s*(?:\[[^]]*\])?\s*(?:>=|~=|==)\s*(\d+)\.(\d+)")


def lowest_minor(spec: str) -> int | None:
    """The lowest Python 3 minor a specifier allows (`>=3.8,<4` -> 8), or None when it sets no lower bound."""
    bounds = [int(minor) for _, minor in _BOUND.findall(spec)]
    return max(bounds) if bounds else None


def floor(target: tuple[int, int]) -> int:
    return max([minor for release, minor in FLOORS if release <= target], default=_OLDEST)


def _raised_above(minor: int) -> tuple[int, int] | None:
    """The first torch release whose wheels need a Python newer than 3.<minor>."""
    return next((release for release, need in FLOORS if need > minor), None)


def window(minor: int, lowest: tuple[int, int] | None) -> Window | None:
    """From the first torch release whose floor is above Python 3.<minor>: breaking when even the project's lowest
    torch needs a newer Python (nothing it accepts installs there), else advice (pip picks an older torch)."""
    release = _raised_above(minor)
    if release is None:
        return None
    version = f"{release[0]}.{release[1]}"
    if lowest is not None and floor(lowest) > minor:
        return Window(since=version, removed_in=version)  # since: nothing to say on older targets
    return Window(since=version)


def message(declared: str, minor: int, target: tuple[int, int], lowest: tuple[int, int] | None) -> str:
    need = floor(target)
    if lowest is not None and floor(lowest) > minor:
        return (
            f"`{declared}` allows Python 3.{minor}, but every torch the project accepts (>= {lowest[0]}.{lowest[1]}) "
            f"requires Python >= 3.{floor(lowest)} (the wheel's Requires-Python), so it does not install there; "
            f"raise the project's Python floor to 3.{floor(lowest)}"
        )
    release = _raised_above(minor) or target
    return (
        f"`{declared}` allows Python 3.{minor}: there pip installs torch <= {release[0]}.{release[1] - 1} "
        f"(torch {target[0]}.{target[1]} requires Python >= 3.{need}, the wheel's Requires-Python), so on "
        f"Python < 3.{need} your users stay on the older torch; raise the Python floor to 3.{need} when you need "
        f"{target[0]}.{target[1]} everywhere"
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
    for 2.0-2.5, ">=3.9.0" for 2.6-2.8, ">=3.10" for 2.9-2.14, ">=3.11" for 2.15. On an
    older Python pip picks the newest torch that still supports it, so what the finding
    means depends on the torch the project accepts:

    - advice (the usual case): some torch the project accepts installs on every Python it
      allows. A project with `torch>=2.7` and `requires-python = ">=3.10"` works on 3.10 with
      torch 2.14; it is a planning fact ("on Python < 3.11 your users stay on torch <= 2.14"),
      nothing breaks, and a default scan does not fail on it.
    - breaking: even the project's lowest supported torch (its lower bound, or
      `install_requires` of the same `setup()` call) needs a newer Python than the project
      allows, e.g. `torch>=2.15` with `requires-python = ">=3.10"`: on Python 3.10 no torch
      the project accepts installs.

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
    severity = Severity.INFO  # advice, unless no torch the project accepts installs there (window)
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
            message="`python_requires='>=3.9'` allows Python 3.9: there pip installs torch <= 2.8 (torch 2.15 requires",
            line=2,
            column=17,
        ),
        Example("import setuptools\nsetuptools.setup(python_requires='>=3.10')\n", message="stay on the older torch"),
        Example(
            "from setuptools import setup\nsetup(python_requires='>=3.9')\n",
            target="2.9",
            message="torch 2.9 requires Python >= 3.10",
        ),
        Example(
            "from setuptools import setup\nsetup(python_requires='>=3.10', install_requires=['torch>=2.15'])\n",
            message="breaks in 2.15: `python_requires='>=3.10'` allows Python 3.10, but every torch the project "
            "accepts (>= 2.15) requires Python >= 3.11",
        ),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, _SETUP) is None:
            return
        arg = get_arg(node, "python_requires")
        spec = string_value(arg.value) if arg is not None else None
        minor = lowest_minor(spec) if spec else None
        if minor is None:
            return
        lowest = self.ctx.lowest or _torch_bound(node)
        found = window(minor, lowest)
        if found is not None:
            declared = self.ctx.code_for(arg).strip().rstrip(",")
            self.report(arg, message(declared, minor, self.ctx.target, lowest), window=found)

    @classmethod
    def check_text(cls, path, text, target, lowest=None):
        name = os.path.basename(path)
        if name not in _REQUIRES:
            return
        declared = _declaration(name, text)
        if declared is None:
            return
        line, column, length, snippet, minor = declared
        found = window(minor, lowest)
        if found is not None:
            yield line, column, length, message(snippet, minor, target, lowest), found


def _torch_bound(node) -> tuple[int, int] | None:
    """The torch lower bound in `install_requires=[...]` of the same `setup()` call (`torch>=2.15` -> (2, 15))."""
    arg = get_arg(node, "install_requires")
    for element in getattr(arg.value if arg is not None else None, "elements", ()):
        m = _TORCH_BOUND.match(string_value(element.value) or "")
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


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
