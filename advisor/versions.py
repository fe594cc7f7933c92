"""Which torch version the user upgrades to, and which they must still support."""

from __future__ import annotations

from advisor.rule import parse_version

KNOWN_VERSIONS = ("2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.13")
NEWEST = KNOWN_VERSIONS[-1]


def normalise(text: str) -> str:
    major, minor = parse_version(text)
    if (major, minor) < (2, 0):
        raise ValueError(f"target version {text} is older than 2.0, which the catalogue starts from")
    return f"{major}.{minor}"


def resolve_target(explicit: str | None, project_root: str) -> tuple[str, str | None, str]:
    """(target, oldest supported version or None, where the target came from)."""
    if explicit:
        return normalise(explicit), None, "--target-version or config"
    return NEWEST, None, "default: newest version the catalogue knows"
