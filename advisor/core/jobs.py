"""The one unit of work that travels to a worker process: a file and what to run on it.

Scan and fix both send a `FileJob`; it is plain, picklable data, so a job runs
the same in this process, in a local pool or after a crash in a fresh one.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.core.settings import Settings


@dataclass(frozen=True)
class FileJob:
    path: str
    data: bytes
    codes: tuple[str, ...]  # the rules the prefilter and per-file-ignores left for this file
    settings: Settings  # the run's: the torch versions; for a fix, unsafe-fixes and (un)fixable
    edits: bool = False  # a scan whose JSON report holds the fix edits: the worker makes them from its own analysis
    pooled: bool = False  # a big file sent to a pool's worker: analysed there only in slices (advisor.run.engine)
