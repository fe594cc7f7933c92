"""Which torch version the user upgrades to, and which they must still support.

The target comes from `--target-version` / config, else from the project's torch
pin (pyproject dependencies, requirements*.txt, uv.lock, poetry.lock): an exact
pin or the upper bound of a range is the target, a lower bound is the oldest
version still supported (fixes needing newer torch are then marked unsafe).
Otherwise the newest version the catalogue knows.
"""

from __future__ import annotations

import glob
import os
import re

from advisor.core.config import tomllib

KNOWN_VERSIONS = (
    "2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13", "2.14", "2.15",
)
OLDEST = KNOWN_VERSIONS[0]  # the oldest release the catalogue covers: the lower bound when none is found
NEWEST = KNOWN_VERSIONS[-1]
_SPEC = re.compile(r"(==|~=|>=|<=|<|>|!=)\s*([0-9][0-9.*]*)")
_TORCH_REQ = re.compile(r"^\s*torch\s*(\[[^\]]*\])?\s*(?P<spec>[<>=!~][^;#]*)?", re.IGNORECASE)


def parse_version(text: str) -> tuple[int, int]:
    parts = text.strip().split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ValueError(f"not a torch version: {text!r} (expected e.g. 2.12)") from None


def normalise(text: str, what: str = "target version") -> str:
    """"2.14.1" -> "2.14"; a release the catalogue does not know (2.16, 3.0, abc) is a usage error naming those it knows."""
    try:
        major, minor = parse_version(text)
    except ValueError:
        major = minor = None
    release = f"{major}.{minor}"
    if release not in KNOWN_VERSIONS:
        raise ValueError(
            f"unknown {what} {text!r}: the catalogue knows torch {KNOWN_VERSIONS[0]} to {NEWEST} "
            f"({', '.join(KNOWN_VERSIONS)})"
        )
    return release


def _minor(text: str) -> tuple[int, int] | None:
    parts = [p for p in text.split(".") if p and p != "*"]
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0)
    except (ValueError, IndexError):
        return None


def bounds_from_spec(spec: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(lower, upper) minor versions a PEP 440 specifier allows (upper is inclusive)."""
    lower = upper = None
    for op, ver in _SPEC.findall(spec):
        v = _minor(ver)
        if v is None:
            continue
        if op == "==":
            lower = upper = v
        elif op == "~=":  # ~=2.11.0 means 2.11.*, ~=2.11 means 2.*
            lower = v
            upper = v if len([p for p in ver.split(".") if p]) >= 3 else (v[0], 99)
        elif op == ">=" or op == ">":
            lower = v
        elif op == "<=":
            upper = v
        elif op == "<":
            # "<2.13" allows 2.12.x; "<2.13.1" allows 2.13.0.
            patch = ver.split(".")[2:3]
            upper = v if patch and patch[0] not in ("0", "") else (v[0], v[1] - 1)
    return lower, upper


def _pins(root: str) -> list[tuple[str, str]]:
    """(spec, source) for every torch requirement found in the project."""
    found: list[tuple[str, str]] = []
    pyproject = os.path.join(root, "pyproject.toml")
    if os.path.isfile(pyproject):
        try:
            with open(pyproject, "rb") as f:
                data = tomllib.load(f)
            deps = list(data.get("project", {}).get("dependencies", []))
            poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
            if isinstance(poetry.get("torch"), str):
                deps.append("torch" + _poetry_spec(poetry["torch"]))
            for dep in deps:
                m = _TORCH_REQ.match(dep)
                if m and dep.strip().lower().startswith("torch") and not re.match(r"torch[a-z_-]", dep.strip(), re.I):
                    found.append((m.group("spec") or "", "pyproject.toml"))
        except (OSError, ValueError):
            pass
    for req in sorted(glob.glob(os.path.join(root, "requirements*.txt"))):
        try:
            for line in open(req, encoding="utf-8", errors="replace"):
                m = _TORCH_REQ.match(line)
                if m and not re.match(r"\s*torch[a-z_-]", line, re.I):
                    found.append((m.group("spec") or "", os.path.basename(req)))
        except OSError:
            pass
    for lock in ("uv.lock", "poetry.lock"):
        path = os.path.join(root, lock)
        if os.path.isfile(path):
            text = open(path, encoding="utf-8", errors="replace").read()
            m = re.search(r'\[\[package\]\]\s*name\s*=\s*"torch"\s*version\s*=\s*"([^"]+)"', text)
            if m:
                found.append((f"=={m.group(1)}", lock))
    return found


def _poetry_spec(spec: str) -> str:
    spec = spec.strip()
    if spec.startswith("^"):
        v = _minor(spec[1:])
        return f">={spec[1:]}" if v is None else f">={spec[1:]},<{v[0] + 1}"
    return spec if spec[:1] in "<>=!~" else f"=={spec}"


def resolve_target(explicit: str | None, project_root: str) -> tuple[str, str | None, str]:
    """(target, oldest supported version or None, where the target came from)."""
    if explicit:
        return normalise(explicit), None, "--target-version or config"
    for spec, source in _pins(project_root):
        lower, upper = bounds_from_spec(spec)
        min_version = f"{lower[0]}.{lower[1]}" if lower and lower >= (2, 0) else None
        if upper and upper >= (2, 0):
            known = [v for v in KNOWN_VERSIONS if parse_version(v) <= upper]
            target = known[-1] if known else NEWEST
            if min_version == target:
                min_version = None
            return target, min_version, f"torch pin {('torch' + spec.strip())!r} in {source}"
        if lower:
            return NEWEST, min_version, f"newest known; torch pin {('torch' + spec.strip())!r} in {source} has no upper bound"
    return NEWEST, None, "default: newest version the catalogue knows"


NO_LOWER_BOUND = (
    "advisor: no torch lower bound found; assuming torch {oldest}, the oldest release the catalogue covers "
    "(set `min-torch` in [tool.advisor] or pass --min-torch)"
)


def _lower_from_pins(project_root: str) -> tuple[str, str] | None:
    """(lowest supported release, where it came from) from the project's pins, or None."""
    for spec, source in _pins(project_root):
        lower, _ = bounds_from_spec(spec)
        if lower:
            release = f"{lower[0]}.{lower[1]}" if lower >= parse_version(OLDEST) else OLDEST
            return release, f"torch pin {('torch' + spec.strip())!r} in {source}"
    return None


def resolve_bounds(target: str | None, min_torch: str | None, project_root: str) -> tuple[str, str, str, str, bool]:
    """(target, its source, lowest supported torch, its source, whether that bound was found).

    The lowest supported torch: `min_torch` (config / --min-torch), else the project's
    pins, else the oldest release the catalogue covers: a conservative bound, so a fix
    whose replacement is newer is never safe (the caller prints NO_LOWER_BOUND once).
    """
    resolved, _, target_source = resolve_target(target, project_root)
    pinned = None if min_torch else _lower_from_pins(project_root)
    if min_torch:
        lowest, source, found = normalise(min_torch, "min-torch"), "min-torch (config or --min-torch)", True
    elif pinned is None:
        lowest, source, found = OLDEST, "default: no lower bound found, the oldest release the catalogue covers", False
    else:
        (lowest, source), found = pinned, True
    if parse_version(lowest) > parse_version(resolved):
        raise ValueError(f"the lowest supported torch {lowest} ({source}) is newer than the target {resolved}")
    return resolved, target_source, lowest, source, found
