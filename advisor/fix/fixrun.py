"""`advisor fix` as a run: choose each file's rules, fix in parallel, write one file at a time.

`fix_project` does the work and returns a `FixRun`, plain data the CLI prints.
Files are written here, in order, each atomically and only if it still holds
what was analysed: an interrupted run (Ctrl-C or SIGTERM) leaves every file
either untouched or completely fixed.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable

from advisor.run.engine import scan
from advisor.run.loading import cached_result, cannot_read, open_cache, read_file
from advisor.core.findings import Applicability, Finding
from advisor.core.settings import Settings
from advisor.core.atomic import LinkError
from advisor.fix.fixer import ConcurrentEditError, FixOutcome, fix_many, write_atomic
from advisor.core.jobs import FileJob
from advisor.run.project import Project


@dataclass
class FixRun:
    diff: bool  # outcomes were shown, not written
    applied: Counter = field(default_factory=Counter)  # rule code -> fixes applied (or that would be)
    held_back: int = 0  # unsafe fixes not applied
    remaining: list[Finding] = field(default_factory=list)  # findings still there afterwards
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, message)
    changed: list[str] = field(default_factory=list)  # files fixed (or that would be)
    per_file: list[tuple[str, Counter]] = field(default_factory=list)  # (path, fixes by rule): `--show-fixes`
    interrupted: bool = False
    # Whether a finding left fails the run (the project's `fail-on`, as `scan` decides it): advice and compat do not.
    fails: Callable[[Finding], bool] = field(default=lambda _finding: True, repr=False)

    def summary(self) -> list[str]:
        """The lines that close the run's output."""
        verb = "Would fix" if self.diff else "Fixed"
        total, files = sum(self.applied.values()), len(self.changed)
        line = f"{verb} {total} finding{'s' if total != 1 else ''} in {files} file{'s' if files != 1 else ''}"
        if self.applied:
            line += " (" + ", ".join(f"{code}: {n}" for code, n in sorted(self.applied.items())) + ")"
        lines = [line + "."]
        if self.held_back:
            lines.append(
                f"{self.held_back} unsafe fix{'es' if self.held_back != 1 else ''} held back; "
                "apply with `advisor fix --unsafe-fixes` after review."
            )
        failing = [f for f in self.remaining if self.fails(f)]
        no_fix = sum(1 for f in failing if f.fix is None)
        if no_fix:
            lines.append(
                f"{no_fix} finding{' has' if no_fix == 1 else 's have'} no automatic fix and need{'s' if no_fix == 1 else ''} "
                "a manual change (listed above)."
            )
        others = len(self.remaining) - len(failing)
        if others:
            lines.append(
                f"{others} finding{' is' if others == 1 else 's are'} left to review (not of a `fail-on` kind)."
            )
        return lines

    def exit_code(self, exit_zero: bool) -> int:
        if self.interrupted:
            return 130
        if exit_zero:
            return 0
        # As `scan`: files not analysed, or findings of a `fail-on` kind left; with --diff, also "would change".
        failed = bool(self.errors) or any(self.fails(f) for f in self.remaining)
        return 1 if failed or (self.diff and self.changed) else 0


def _applies(finding: Finding, settings: Settings) -> bool | None:
    """Whether the fixer would apply `finding`'s fix (None: it has none, or the settings keep it off), as
    `advisor.fix.fixer` decides it: False when it is an unsafe fix held back."""
    if finding.replacement is None or finding.fix is None or not settings.may_fix(finding.rule):
        return None
    return finding.fix != Applicability.UNSAFE.value or settings.unsafe_fixes


def _jobs(project: Project, run: FixRun) -> list[FileJob]:
    options = project.scan_options("fix")
    fixing = {r.code for r in options.rules}
    # A `scan` with the same rules and settings already knows which files hold nothing to fix: those are
    # neither parsed nor (when unchanged since) read again. The scan's key, read only: its rules differ from these.
    scanned = project.scan_options("scan")
    cache = open_cache(scanned)
    jobs = []
    for path in project.files:
        data = b""
        if cache is not None:
            known, data = cached_result(path, cache, scanned)
            if known is not None and not known.errors:
                found = [f for f in known.findings if f.rule in fixing]
                decisions = [_applies(f, project.settings) for f in found]
                if True not in decisions:
                    run.remaining.extend(found)
                    run.held_back += decisions.count(False)
                    continue
        try:
            data = data or read_file(path)
        except OSError as e:
            run.errors.append((path, cannot_read(path, e).message))
            continue
        job = options.job(path, data)
        if job is not None:
            jobs.append(job)
    return jobs


def _write(path: str, outcome: FixOutcome, root: str) -> str | None:
    """Write one fixed file; the reason when it was not written."""
    if not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222:
        return "read-only file; not modified"
    try:
        write_atomic(path, outcome.original, outcome.fixed, root)
    except (ConcurrentEditError, LinkError) as e:  # LinkError: a file with other hard links
        return str(e)
    except OSError as e:
        return f"cannot write: {e.strerror or e}"
    return None


def fix_project(project: Project, diff: bool = False, show: Callable[[bytes], object] | None = None) -> FixRun:
    """Fix the project's files (unsafe fixes too with its `unsafe_fixes`); with `diff`, write nothing and pass
    each file's diff to `show`."""
    run = FixRun(diff=diff, errors=list(project.discovery_errors), fails=project.fails_on)
    # advisor.interrupt turns SIGINT and SIGTERM into KeyboardInterrupt: files are written whole or not at all.
    try:
        # Outcomes are computed in parallel; files are written here, one at a time, in order.
        for outcome in fix_many(_jobs(project, run), project.settings.jobs):
            if outcome.error:
                run.errors.append((outcome.path, outcome.error))
            run.held_back += outcome.held_back
            # What remains is reported at the lines of the file as it is on disk afterwards:
            # the fixed text once written; the original with --diff or when the write was refused.
            on_disk = outcome.on_disk if outcome.on_disk is not None else outcome.remaining
            if not outcome.changed:
                run.remaining.extend(outcome.remaining)
                continue
            if diff:
                run.remaining.extend(on_disk)
                if show is not None:
                    show(outcome.diff_bytes())
            else:
                why = _write(outcome.path, outcome, project.root)
                if why is not None:
                    run.remaining.extend(on_disk)
                    run.errors.append((outcome.path, why))
                    continue
                run.remaining.extend(outcome.remaining)
            run.applied.update(outcome.applied)
            run.changed.append(outcome.path)
            run.per_file.append((outcome.path, outcome.applied))
        run.remaining.extend(_text_findings(project, run.errors))
    except KeyboardInterrupt:
        run.interrupted = True
    run.remaining.sort(key=Finding.sort_key)
    return run


def _text_findings(project: Project, errors: list[tuple[str, str]]) -> list[Finding]:
    """What `scan` finds in pyproject.toml, setup.cfg, Dockerfiles and shell scripts (the Python floor, allocator
    settings): no fix rewrites them, but they are left, so they count and fail the run as in `scan`."""
    if not project.text_files:
        return []
    found = scan([], project.scan_options("fix"), project.text_files)  # device rules: `scan` scopes them
    errors.extend((e.path, e.message) for e in found.errors)
    return found.findings


def fix_text(project: Project, path: str, data: bytes) -> tuple[FixRun, bytes]:
    """`advisor fix -`: the text read from stdin, fixed as `path` would be; the run and the fixed bytes (never written)."""
    run = FixRun(diff=False, fails=project.fails_on)
    job = project.scan_options("fix").job(path, data)
    if job is None:  # no rule can match it: the text comes back as it went in
        return run, data
    outcome = next(iter(fix_many([job], 1)))
    if outcome.error:
        run.errors.append((path, outcome.error))
    run.held_back, run.remaining = outcome.held_back, sorted(outcome.remaining, key=Finding.sort_key)
    if outcome.changed:
        run.applied.update(outcome.applied)
        run.changed.append(path)
        run.per_file.append((path, outcome.applied))
    return run, outcome.fixed
