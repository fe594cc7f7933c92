"""The releases the catalogue knows: one row per torch minor release, and everything derived from them.

Each row is a torch minor release with the torchvision and torchaudio that pip resolves with
it and the lowest Python its wheels install on. Known targets, the oldest/newest release,
the companion map, defaults, help text and taglines all come from `RELEASES`, so adding a
release is one row here (plus its rules). Pure data: this module imports nothing from advisor.

Where each column comes from:
- `python`: the `Requires-Python` of the torch wheel's METADATA (macOS arm64 wheels of
  2.0.0 ... 2.15.0): >=3.8.0 for 2.0-2.5, >=3.9.0 for 2.6-2.8, >=3.10 for 2.9-2.14, >=3.11 for 2.15.
- `torchvision` / `torchaudio`: for 2.4-2.15 the companion wheels' `Requires-Dist: torch==...`;
  2.0-2.3 follow the same pairing (torchvision 0.15-0.18, torchaudio = torch) from the release
  notes, not re-checked against wheels. torchaudio stops at 2.11 (2.11.1 declares torch>=2.11 and
  is the newest on the registry); torchvision 0.29.x declares torch>=2.14 and there is no 0.30.
"""

from __future__ import annotations

from advisor.core.plain import Frozen, init


class Release(Frozen):
    __slots__ = ("torch", "torchvision", "torchaudio", "python")
    torch: str  # minor release, "2.15"
    torchvision: str  # the torchvision minor pip resolves with it
    torchaudio: str  # the torchaudio minor pip resolves with it
    python: str  # the wheel's Requires-Python floor

    def __init__(self, torch: str, torchvision: str, torchaudio: str, python: str) -> None:
        init(self, torch, torchvision, torchaudio, python)

    @property
    def key(self) -> tuple[int, int]:
        major, minor = self.torch.split(".")
        return int(major), int(minor)


RELEASES: tuple[Release, ...] = (
    Release("2.0", "0.15", "2.0", "3.8"),
    Release("2.1", "0.16", "2.1", "3.8"),
    Release("2.2", "0.17", "2.2", "3.8"),
    Release("2.3", "0.18", "2.3", "3.8"),
    Release("2.4", "0.19", "2.4", "3.8"),
    Release("2.5", "0.20", "2.5", "3.8"),
    Release("2.6", "0.21", "2.6", "3.9"),
    Release("2.7", "0.22", "2.7", "3.9"),
    Release("2.8", "0.23", "2.8", "3.9"),
    Release("2.9", "0.24", "2.9", "3.10"),
    Release("2.10", "0.25", "2.10", "3.10"),
    Release("2.11", "0.26", "2.11", "3.10"),
    Release("2.12", "0.27", "2.11", "3.10"),
    Release("2.13", "0.28", "2.11", "3.10"),
    Release("2.14", "0.29", "2.11", "3.10"),
    Release("2.15", "0.29", "2.11", "3.11"),
)

VERSIONS: tuple[str, ...] = tuple(r.torch for r in RELEASES)
OLDEST = VERSIONS[0]  # the oldest release the catalogue covers: the lower bound when none is found
NEWEST = VERSIONS[-1]
RANGE = f"{OLDEST} to {NEWEST}"  # as help text and taglines say it

# The one-line description (package docstring, CLI help). The static copies (pyproject.toml,
# .pre-commit-hooks.yaml) name no release, so a new row never makes them stale.
TAGLINE = f"Find and fix what a PyTorch upgrade ({RANGE}), and every deprecation on the way, touches."
STATIC_TAGLINE = "Find and fix what a PyTorch upgrade, and every deprecation on the way, touches."

_BY_VERSION = {r.torch: r for r in RELEASES}


def release(version: str) -> Release | None:
    """The row of a minor release ("2.14"), None when the catalogue does not know it."""
    return _BY_VERSION.get(version)
