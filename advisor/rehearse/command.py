"""`advisor rehearse` from the command line: check the request, scan the project, run the rehearsal."""

from __future__ import annotations

import os
from dataclasses import replace

import typer

from advisor.cli_support import fail, write_scan_report
from advisor.rehearse.runner import RehearseError
from advisor.rehearse.session import Request, rehearse
from advisor.run.project import Project, ProjectError, cache_root

__all__ = ["Request", "run_command"]


def _say(line: str) -> None:
    typer.echo(line, err=True)


def run_command(request: Request, target_version: str | None, config: str | None, cache_dir: str | None) -> int:
    """The exit code: 0 no torch warning at a project call site, 1 some; typer.Exit(2) when the tests cannot run."""
    if request.output_format not in ("text", "json"):
        raise fail(f"unknown --output-format {request.output_format!r} (expected text or json)")
    if not os.path.isdir(request.root):
        raise fail(f"{request.root} is not a directory: rehearse runs a project's tests from its directory")
    if request.timeout is not None and request.timeout <= 0:
        raise fail("--timeout must be a positive number of seconds")
    try:
        # The static side: advisor's own scan of the project, as `advisor scan PATH` would see it.
        project = Project.load(
            [request.root],
            config=config,
            target_version=target_version,
            cache_dir=cache_dir,
            report=bool(request.report),
        )
        result = project.scan()
    except ProjectError as e:
        raise fail(str(e))
    for note in project.warnings:
        _say(f"advisor: warning: {note}")
    if request.report and not os.path.isfile(os.path.join(request.report, "findings.json")):
        write_scan_report(request.report, project, result)
    root = os.path.abspath(request.root)
    try:
        return rehearse(
            replace(request, root=root),
            result.findings,
            project.target,
            project.companion_targets,
            cache_root(cache_dir, project.root),
            say=_say,
            emit=lambda text: typer.echo(text, nl=False),
        )
    except RehearseError as e:
        raise fail(str(e))
