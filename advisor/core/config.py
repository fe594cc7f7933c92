"""`[tool.advisor]` in pyproject.toml, found from the scanned paths upwards (what it declares: advisor.core.settings).

Read with tomllib only: configuration is data, never code.
"""

from __future__ import annotations

import os
from typing import Any

from advisor.core.findings import KINDS, Severity
from advisor.core.reading import PIN_FILE_LIMIT, read_text, toml


class ConfigError(ValueError):
    pass


SEVERITIES = tuple(sorted((s.value for s in Severity), key=lambda v: Severity(v).rank))
# What fail-on accepts: kinds (a finding of one of them fails the run) and, as before kinds
# existed, a severity (a finding at or above it fails the run).
FAIL_ON = KINDS + SEVERITIES
DEFAULT_FAIL_ON = ("breaking", "deprecated")
DEVICES = ("rocm", "cuda", "xpu", "cpu")  # what --device and `device = ...` accept (advisor.run.device)


def find_project_root(paths: list[str]) -> str:
    """The nearest directory above the first path holding pyproject.toml or .git; else the working
    directory when the path is inside it, else the scanned directory.

    Never the working directory: `advisor scan /abs/path` from another project's directory must see the
    same root (ROCm markers scope from it, its config applies) as `cd /abs/path && advisor scan .`.
    """
    start = os.path.abspath(paths[0] if paths else ".")
    first = cur = start if os.path.isdir(start) else os.path.dirname(start)
    while True:
        if os.path.isfile(os.path.join(cur, "pyproject.toml")) or os.path.exists(os.path.join(cur, ".git")):
            return cur
        parent = os.path.dirname(cur)
        if parent == cur:
            here = os.path.abspath(".")
            inside = first == here or first.startswith(here.rstrip(os.sep) + os.sep)
            return here if inside else first  # scanning a file of the directory you are in: that directory
        cur = parent


def read_section(paths: list[str], explicit: str | None = None) -> tuple[str, str | None, dict]:
    """(project root, the pyproject.toml read or None, its `[tool.advisor]` table) for `paths`, or `explicit`."""
    if explicit:
        if not os.path.isfile(explicit):
            raise ConfigError(f"config file not found: {explicit}")
        cfg_path = explicit
        root = os.path.dirname(os.path.abspath(explicit))
    else:
        root = find_project_root(paths)
        cfg_path = os.path.join(root, "pyproject.toml")
        if not os.path.isfile(cfg_path):
            return root, None, {}
    tomllib = toml()
    try:  # the scanned tree's own pyproject.toml: a regular file, bounded (a FIFO would block)
        data = tomllib.loads(read_text(cfg_path, PIN_FILE_LIMIT))
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{cfg_path}: invalid TOML: {e}") from None
    except (RecursionError, MemoryError):
        raise ConfigError(f"{cfg_path}: TOML nested too deeply to read") from None
    except OSError as e:
        raise ConfigError(f"{cfg_path}: cannot read: {e.strerror or e}") from None
    if not isinstance(data.get("tool", {}), dict):
        raise ConfigError(f"{cfg_path}: [tool] must be a table")
    section = data.get("tool", {}).get("advisor", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{cfg_path}: [tool.advisor] must be a table")
    return root, cfg_path, section


def parse_fail_on(value: Any) -> tuple[str, ...]:
    """`"breaking,deprecated"`, `["breaking", "deprecated"]` or a severity such as `"warning"`."""
    items = value.split(",") if isinstance(value, str) else value
    if not isinstance(items, list | tuple) or not all(isinstance(v, str) for v in items):
        raise ValueError(f"expected kinds ({', '.join(KINDS)}) or a severity ({', '.join(SEVERITIES)}), got {value!r}")
    out = tuple(v.strip() for v in items if v.strip())
    bad = [v for v in out if v not in FAIL_ON]
    if bad or not out:
        raise ValueError(f"expected kinds ({', '.join(KINDS)}) or a severity ({', '.join(SEVERITIES)}), got {value!r}")
    return out
