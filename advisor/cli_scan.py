"""`advisor scan`, the command most runs are: declared without Typer, so the common command line is read and run
without importing it (advisor.cli_fast); advisor.cli registers the same function with Typer for everything else
(help, errors, the other commands).

No `from __future__ import annotations`: Typer reads the signature on each run, a string annotation costs an eval.
"""

import sys
from typing import List, Optional

from advisor import cli_options as opt
from advisor.cli_show import check_scan_flags, default_paths, echo, fail, show
from advisor.cli_support import (
    PROGRESS_MIN_FILES,
    add_suppressions,
    emit_scan,
    read_stdin,
    save_baseline,
    say_what_was_hidden,
    stdin_excluded,
    warn_if_nothing_to_scan,
)
from advisor.core.findings import ScanResult
from advisor.run.discovery import Discovered
from advisor.run.project import Project, ProjectError


def load(paths: List[str], config: Optional[str], stdin: Optional[bytes], quiet: bool = False, **flags) -> "Project":
    """The project, with the flags (by the `Settings` field each sets), or exit 2 with the reason.
    Says, in one line, when no lower bound was found (not under -q). With `stdin`, nothing is discovered."""
    try:
        project = Project.load(paths, config=config, found=Discovered() if stdin is not None else None, **flags)
    except ProjectError as e:
        raise fail(str(e))
    for note in project.warnings:
        echo(f"advisor: warning: {note}", err=True)
    if project.lower_bound_note and not quiet:
        echo(project.lower_bound_note, err=True)
    return project


def _scan(project: "Project", edits: bool = False) -> "ScanResult":
    """The project's scan, with a progress bar on a TTY when it is long enough to need one (`edits`: the JSON
    report's fix edits made by the workers, advisor.run.project.Project.scan_raw)."""
    try:
        if len(project.files) >= PROGRESS_MIN_FILES and sys.stderr.isatty():
            from rich.console import Console  # lazy: rich costs start-up time most runs never need
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("advisor", total=None)
                return project.scan(lambda done, total: bar.update(task, completed=done, total=total), edits)
        return project.scan(edits=edits)
    except ProjectError as e:
        raise fail(str(e))


def scan(
    paths: Optional[List[str]] = opt.PATHS,
    select: Optional[List[str]] = opt.SELECT,
    extend_select: Optional[List[str]] = opt.EXTEND_SELECT,
    ignore: Optional[List[str]] = opt.IGNORE,
    output_format: str = opt.OUTPUT_FORMAT,
    output: Optional[str] = opt.OUTPUT,
    exit_zero: bool = opt.EXIT_ZERO,
    quiet: bool = opt.QUIET,
    statistics: bool = opt.STATISTICS,
    target_version: Optional[str] = opt.TARGET,
    targets: Optional[List[str]] = opt.TARGETS,
    cache_dir: Optional[str] = opt.CACHE_DIR,
    no_cache: bool = opt.NO_CACHE,
    jobs: Optional[int] = opt.JOBS,
    exclude: Optional[List[str]] = opt.EXCLUDE,
    force_exclude: bool = opt.FORCE_EXCLUDE,
    extend_include: Optional[List[str]] = opt.EXTEND_INCLUDE,
    stdin_filename: Optional[str] = opt.STDIN_FILENAME,
    report: Optional[str] = opt.REPORT,
    config: Optional[str] = opt.CONFIG,
    baseline: Optional[str] = opt.BASELINE,
    no_baseline: bool = opt.NO_BASELINE,
    write_baseline: Optional[str] = opt.WRITE_BASELINE,
    add_noqa: bool = opt.ADD_NOQA,
    device: Optional[str] = opt.DEVICE,
    min_torch: Optional[str] = opt.MIN_TORCH,
    fail_on: Optional[str] = opt.FAIL_ON,
    fix_flag: bool = opt.FIX_FLAG,  # Ruff's `check --fix`: point to `advisor fix`
    show_settings: bool = opt.SHOW_SETTINGS,
    show_files: bool = opt.SHOW_FILES,
) -> None:
    """Report every place the PyTorch upgrade touches."""
    check_scan_flags(fix_flag, output_format)
    if "-" in (paths := default_paths(paths, stdin_filename)) and add_noqa:
        raise fail("--add-noqa edits files; it cannot be used with `-` (stdin)")
    stdin = read_stdin(paths, stdin_filename)
    stdin_path = stdin_filename or "stdin.py"
    setup = load(
        [stdin_path] if stdin is not None else paths,
        config,
        stdin,
        quiet,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        target_version=target_version,
        targets=targets,
        min_torch=min_torch,
        cache_dir=cache_dir,
        no_cache=no_cache,
        jobs=jobs,
        exclude=exclude,
        extend_include=extend_include,
        force_exclude=force_exclude,
        baseline="" if no_baseline else baseline,
        device=device,
        report=bool(report),
        fail_on=fail_on,
    )
    if show_settings or show_files:
        raise SystemExit(show(setup, settings=show_settings))
    if stdin is not None:
        if stdin_excluded(setup, stdin_path):
            raise SystemExit(0)
        result = setup.scan_stdin(stdin_path, stdin)
    else:
        if not quiet:
            warn_if_nothing_to_scan(setup, paths)
        result = _scan(setup, edits=output_format == "json" and not statistics)
        say_what_was_hidden(setup, quiet)
    if add_noqa:
        raise SystemExit(add_suppressions(result, setup.root))
    emit_scan(setup, result, output_format, output, report, stdin, statistics=statistics, quiet=quiet)
    if write_baseline:
        save_baseline(write_baseline, result, setup.root)
        raise SystemExit(0)
    raise SystemExit(0 if exit_zero or not setup.fails(result) else 1)
