"""Which torch version the user upgrades to, and which they must still support.

The target comes from `--target-version` / config, else from the project's torch
pins in any packaging layout (`advisor.core.pins`, which says file:line for each
bound): an exact pin or the upper bound of a range is the target, a lower bound is
the oldest version still supported (a fix whose replacement is newer is then not
offered at all, advisor.core.policy). Otherwise the newest version the catalogue knows.
"""

from __future__ import annotations

from advisor.core.pins import (  # noqa: F401 (re-exported)
    Bounds,
    bounds_from_spec,
    find_bounds,
    lowest_supported_line,
)

from advisor.core.releases import NEWEST, OLDEST, RANGE, VERSIONS  # noqa: F401 (RANGE re-exported)

KNOWN_VERSIONS = VERSIONS  # the releases the catalogue knows (advisor.core.releases), oldest first


def parse_version(text: str) -> tuple[int, int]:
    parts = text.strip().split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ValueError(f"not a torch version: {text!r} (expected e.g. 2.12)") from None


def normalise(text: str, what: str = "target version") -> str:
    """ "2.14.1" -> "2.14"; a release the catalogue does not know (a newer one, 3.0, abc) is a usage error naming those it knows."""
    try:
        major, minor = parse_version(text)
        release = f"{major}.{minor}"
    except ValueError:
        release = ""  # not a version: unknown too
    if release not in KNOWN_VERSIONS:
        raise ValueError(
            f"unknown {what} {text!r}: the catalogue knows torch {OLDEST} to {NEWEST} ({', '.join(KNOWN_VERSIONS)})"
        )
    return release


def resolve_target(
    explicit: str | None, project_root: str, notes: list[str] | None = None, found: dict[str, Bounds] | None = None
) -> tuple[str, str | None, str]:
    """(target, oldest supported version or None, where the target came from); `notes`: pins.find_pins;
    `found`: the project's bounds, when already read (`find_bounds`)."""
    if explicit:
        return normalise(explicit), None, "--target-version or config"
    bounds = (find_bounds(project_root, notes) if found is None else found).get("torch")
    if bounds is None:
        return NEWEST, None, "default: newest version the catalogue knows"
    min_version = bounds.lower_text if bounds.lower and bounds.lower >= parse_version(OLDEST) else None
    if bounds.upper and bounds.upper >= parse_version(OLDEST):
        known = [v for v in KNOWN_VERSIONS if parse_version(v) <= bounds.upper]
        target = known[-1] if known else NEWEST
        return target, None if min_version == target else min_version, f"torch pin {_pin_text(bounds, 'upper')}"
    return NEWEST, min_version, f"newest known; torch pin {_pin_text(bounds, 'lower')} has no upper bound"


def _pin_text(bounds: Bounds, which: str) -> str:
    pin = bounds.pin_upper if which == "upper" else bounds.pin_lower
    return f"{pin.text!r} in {pin.source}" if pin else "?"


def lowest_supported(project_root: str) -> tuple[str | None, str | None]:
    """The project's declared lowest torch ('2.1') and the line that says where it came from
    ('Lowest supported torch 2.1 (requirements/pytorch/base.txt:4)'); (None, None) when no pin bounds it."""
    bounds = find_bounds(project_root).get("torch")
    if bounds is None or bounds.lower is None or bounds.lower < parse_version(OLDEST):
        return None, None
    return bounds.lower_text, lowest_supported_line(bounds)


NO_LOWER_BOUND = (
    "advisor: no torch lower bound found; assuming torch {oldest}, the oldest release the catalogue covers "
    "(set `min-torch` in [tool.advisor] or pass --min-torch)"
)


def resolve_bounds(
    target: str | None, min_torch: str | None, project_root: str, notes: list[str] | None = None
) -> tuple[str, str, str, str, bool]:
    """(target, its source, lowest supported torch, its source, whether that bound was found).

    The lowest supported torch: `min_torch` (config / --min-torch), else the project's
    pins, else the oldest release the catalogue covers: a conservative bound, so a fix
    whose replacement is newer is never offered (the caller prints NO_LOWER_BOUND once).
    `notes` gets a line per pin file skipped as unsafe or malformed (pins.find_pins).
    """
    pinned = None if target and min_torch else find_bounds(project_root, notes)  # the pin files, read once
    resolved, _, target_source = resolve_target(target, project_root, notes, pinned)
    bounds = None if min_torch or pinned is None else pinned.get("torch")
    if min_torch:
        lowest, source, found = normalise(min_torch, "min-torch"), "min-torch (config or --min-torch)", True
    elif bounds is None or bounds.lower is None:
        lowest, source, found = OLDEST, "default: no lower bound found, the oldest release the catalogue covers", False
    else:  # a bound older than the catalogue counts as its oldest release
        lowest = bounds.lower_text or OLDEST if bounds.lower >= parse_version(OLDEST) else OLDEST
        source, found = f"torch pin {_pin_text(bounds, 'lower')}", True
    if parse_version(lowest) > parse_version(resolved):
        raise ValueError(f"the lowest supported torch {lowest} ({source}) is newer than the target {resolved}")
    return resolved, target_source, lowest, source, found
