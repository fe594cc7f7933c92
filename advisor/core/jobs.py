"""The one unit of work that travels to a worker process: a file and what to run on it.

Scan and fix both send a `FileJob`; it is plain, picklable data, so a job runs
the same in this process, in a local pool or after a crash in a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class FileJob:
    path: str
    data: bytes
    codes: tuple[str, ...]  # the rules the prefilter and per-file-ignores left for this file
    target: str  # the torch version upgraded to
    min_version: str | None = None  # the lowest torch the project still supports
    unsafe: bool = False  # fix only: apply unsafe fixes too
    no_fix: tuple[str, ...] = ()  # fix only: codes reported but never fixed (`unfixable`, or not `fixable`)
