"""The project's own line length, for fixes that add text to a line (ADV716's `weights_only=`).

Read from the nearest configuration above the file, as the tools themselves do:
`[tool.ruff] line-length` (pyproject.toml, ruff.toml, .ruff.toml), `[tool.black]
line-length`, and `max-line-length` of `[flake8]` / `[pycodestyle]` in setup.cfg,
tox.ini or .flake8. The first directory (going up) holding any of these files decides;
Ruff's setting wins over Black's, both over flake8's. None: the project sets none.
"""

from __future__ import annotations

import configparser
import functools
import os

_FILES = ("pyproject.toml", "ruff.toml", ".ruff.toml", "setup.cfg", "tox.ini", ".flake8")


def _toml(path: str) -> dict:
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, ValueError):
        return {}


def _ini(path: str) -> int | None:
    cfg = configparser.ConfigParser()
    try:
        cfg.read(path, encoding="utf-8")
        for section in ("flake8", "pycodestyle"):
            value = cfg.get(section, "max-line-length", fallback=None) or cfg.get(
                section, "max_line_length", fallback=None
            )
            if value and value.strip().isdigit():
                return int(value.strip())
    except (configparser.Error, UnicodeDecodeError):
        return None
    return None


def _of_directory(d: str) -> tuple[bool, int | None]:
    """(any config file here, the line length it sets)."""
    present = [name for name in _FILES if os.path.isfile(os.path.join(d, name))]
    found: list[int | None] = []
    for name in present:
        path = os.path.join(d, name)
        if name.endswith(".toml"):
            data = _toml(path)
            tool = data.get("tool", {}) if name == "pyproject.toml" else {"ruff": data}
            found += [tool.get("ruff", {}).get("line-length"), tool.get("black", {}).get("line-length")]
        else:
            found.append(_ini(path))
    values = [v for v in found if isinstance(v, int) and v > 0]
    return bool(present), (values[0] if values else None)


@functools.lru_cache(maxsize=64)
def _of_dir_chain(directory: str) -> int | None:
    d = directory
    while True:
        present, value = _of_directory(d)
        if value is not None:
            return value
        if present and os.path.isfile(os.path.join(d, "pyproject.toml")):
            return None  # the project root sets none
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def line_length(path: str) -> int | None:
    """The line length the project of `path` configures, or None."""
    if not path or path == "-":
        return None
    return _of_dir_chain(os.path.dirname(os.path.abspath(path)))


def forget_cached() -> None:
    """Forget line lengths read by directory: a config file changed under a long-lived process."""
    _of_dir_chain.cache_clear()
