"""Release windows: when an API was replaced, started warning, broke, or stopped warning.

Data only (CONTRACT.md): rules declare windows on the class, per table entry, or per
report (`self.report(..., window=Window(...))`); what a window means for a target
(kind, severity, message prefix, fix safety) is decided in one place, not by rules.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Window:
    since: str = "2.0"  # the replacement / new API first exists in this release
    deprecated_in: str | None = None  # first release that warns
    removed_in: str | None = None  # first release where using it fails
    undeprecated_in: str | None = None  # first release where the deprecation was withdrawn
