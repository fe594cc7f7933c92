"""`[tool.advisor]` in pyproject.toml, found from the scanned paths upwards.

Read with tomllib only: configuration is data, never code.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import Any

from advisor.core.findings import KINDS, Severity
from advisor.core.reading import PIN_FILE_LIMIT, read_text

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]


class ConfigError(ValueError):
    pass


SEVERITIES = tuple(sorted((s.value for s in Severity), key=lambda v: Severity(v).rank))
# What fail-on accepts: kinds (a finding of one of them fails the run) and, as before kinds
# existed, a severity (a finding at or above it fails the run).
FAIL_ON = KINDS + SEVERITIES
DEFAULT_FAIL_ON = ("breaking", "deprecated")
DEVICES = ("rocm", "cuda", "xpu", "cpu")  # what --device and `device = ...` accept (advisor.run.device)


@dataclass
class Config:
    project_root: str
    path: str | None = None
    select: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    fixable: list[str] = field(default_factory=list)  # empty: every rule's fix may apply
    unfixable: list[str] = field(default_factory=list)  # findings reported, never fixed
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    extend_include: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    target_version: str | None = None
    unsafe_fixes: bool = False
    force_exclude: bool = False  # exclude files named on the command line too (Ruff's force-exclude)
    fail_on: tuple[str, ...] = DEFAULT_FAIL_ON
    min_torch: str | None = None  # the lowest torch the project supports (else from its pins)
    device: str | None = None  # rocm | cuda | xpu | cpu: overrides ROCm detection (advisor.run.device)


def _str_list(key: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}: expected a list of strings, got {value!r}")
    return value


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


def load_config(paths: list[str], explicit: str | None = None) -> Config:
    if explicit:
        if not os.path.isfile(explicit):
            raise ConfigError(f"config file not found: {explicit}")
        cfg_path = explicit
        root = os.path.dirname(os.path.abspath(explicit))
    else:
        root = find_project_root(paths)
        cfg_path = os.path.join(root, "pyproject.toml")
        if not os.path.isfile(cfg_path):
            return Config(project_root=root)
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
    cfg = Config(project_root=root, path=cfg_path)
    for key, value in section.items():
        where = f"{cfg_path}: [tool.advisor] {key}"
        if key in (
            "select",
            "extend-select",
            "ignore",
            "fixable",
            "unfixable",
            "exclude",
            "extend-exclude",
            "extend-include",
        ):
            setattr(cfg, key.replace("-", "_"), _str_list(where, value))
        elif key == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: expected a table of glob = [codes]")
            cfg.per_file_ignores = {k: _str_list(f"{where}.{k}", v) for k, v in value.items()}
        elif key == "target-version":
            if not isinstance(value, str):
                raise ConfigError(f'{where}: expected a version string such as "2.12", got {value!r}')
            cfg.target_version = value
        elif key in ("unsafe-fixes", "force-exclude"):
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {value!r}")
            setattr(cfg, key.replace("-", "_"), value)
        elif key == "fail-on":
            try:
                cfg.fail_on = parse_fail_on(value)
            except ValueError as e:
                raise ConfigError(f"{where}: {e}") from None
        elif key == "min-torch":
            if not isinstance(value, str):
                raise ConfigError(f'{where}: expected a version string such as "2.4", got {value!r}')
            cfg.min_torch = value
        elif key == "lazy-import-helpers":  # read per file by advisor.analysis.lazy_helpers; checked here
            _str_list(where, value)
        elif key == "device":
            if value not in DEVICES:
                raise ConfigError(f"{where}: expected one of {', '.join(DEVICES)}, got {value!r}")
            cfg.device = value
        else:
            raise ConfigError(f"{where}: unknown key")
    return cfg


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


def per_file_ignored_codes(path: str, table: dict[str, list[str]], root: str) -> list[str]:
    """Codes/prefixes `per-file-ignores` switches off for `path` (globs relative to the project root)."""
    if not table:
        return []
    rel = os.path.relpath(os.path.abspath(path), root).replace(os.sep, "/")
    return [c.upper() for pattern, cs in table.items() if fnmatch.fnmatch(rel, pattern) for c in cs]
