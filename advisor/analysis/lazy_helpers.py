"""The project's own lazy-import helpers: `[tool.advisor] lazy-import-helpers = ["load_optional"]`.

Added to the known ones (`advisor.syntax.references.IMPORTING_CALLS`: `import_module`,
`importorskip`, `__import__`, `optional_import`, `lazy_import`): a call of one with a module
name as its first argument binds the assigned name (or a tuple's first name) to that module.
Read from the nearest pyproject.toml above the file, once per directory, so each worker
process sees it without any option passed down. A scan caches each file by its content:
after changing the list, run `advisor clean`.
"""

from __future__ import annotations

import functools
import os

from advisor.syntax.references import IMPORTING_CALLS


# Cached by file: every directory of a project finds the same pyproject.toml, and parsing a big one for each of
# a tree's hundreds of directories cost Megatron-LM's scan ~15% of its CPU.
@functools.lru_cache(maxsize=256)
def _read(path: str) -> tuple[str, ...]:
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        with open(path, "rb") as f:
            value = tomllib.load(f).get("tool", {}).get("advisor", {}).get("lazy-import-helpers", [])
    except (OSError, ValueError):
        return ()
    return tuple(v.rsplit(".", 1)[-1] for v in value if isinstance(v, str)) if isinstance(value, list) else ()


@functools.lru_cache(maxsize=4096)
def _for_directory(directory: str) -> tuple[str, ...]:
    d = directory
    while True:
        path = os.path.join(d, "pyproject.toml")
        if os.path.isfile(path):
            return IMPORTING_CALLS + tuple(n for n in _read(path) if n not in IMPORTING_CALLS)
        parent = os.path.dirname(d)
        if parent == d:
            return IMPORTING_CALLS
        d = parent


def importing_calls(path: str) -> tuple[str, ...]:
    """The import-by-name calls for the file at `path` (the known ones, plus its project's)."""
    if not path or path == "-":
        return IMPORTING_CALLS
    return _for_directory(os.path.dirname(os.path.abspath(path)))


def forget_cached() -> None:
    """Forget the helpers read by directory: a config file changed under a long-lived process (an editor's)."""
    _for_directory.cache_clear()
    _read.cache_clear()
