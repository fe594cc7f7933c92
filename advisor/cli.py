"""The `advisor` command line. Parses options, calls the engine, hands results to an output.

Exit codes: 0 nothing found; 1 findings or files that could not be analysed;
2 usage or internal error.
"""

# No `from __future__ import annotations`: Typer reads the signatures on each run, a string annotation costs an eval.
import copy
import os
import sys
import types
from typing import Callable, List, Optional

import typer

from advisor import __version__
from advisor.core.config import find_project_root
from advisor.core.releases import TAGLINE
from advisor.interrupt import run_cli
from advisor.run.project import cache_root
from advisor import cli_options as opt
from advisor.cli_fast import guarded
from advisor.cli_scan import load as _load, scan as scan_command
from advisor.cli_support import (
    print_audit_summary,
    rules_listing,
    fix_stdin,
    print_fix_run,
    explain_rules,
    fail,
    read_stdin,
    say_what_was_hidden,
    stdin_excluded,
    warn_if_nothing_to_scan,
)
from advisor.cli_show import default_paths, probe_device, validation_exit

# Imported inside the commands that need them, for start-up: run.cache, report.render, report.validation and audit.runner
# (Jinja), audit.executors (Dask), rich (progress bars), the output formats (JUnit: urllib, ssl) and the fixer.

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help=TAGLINE,
    context_settings={"help_option_names": ["-h", "--help"]},
)


_fail = fail


def typer_param(param: opt.Param):
    """Typer's parameter for a declaration of advisor.cli_options."""
    if param.is_argument:
        return typer.Argument(param.default, help=param.help)
    return typer.Option(
        param.default, *param.decls, help=param.help, rich_help_panel=param.rich_help_panel, hidden=param.hidden
    )


def typer_command(function: Callable) -> Callable:
    """A copy of `function` whose declared defaults are Typer's parameters (the original keeps the declarations,
    which advisor.cli_fast reads)."""
    defaults = tuple(typer_param(d) if isinstance(d, opt.Param) else d for d in function.__defaults__ or ())
    made = types.FunctionType(
        function.__code__, function.__globals__, function.__name__, defaults, function.__closure__
    )
    made.__doc__, made.__annotations__ = function.__doc__, function.__annotations__
    made.__module__, made.__qualname__ = function.__module__, function.__qualname__
    made.__kwdefaults__ = function.__kwdefaults__
    return made


def _command(function: Callable) -> Callable:
    app.command()(typer_command(function))
    return function


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"advisor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    pass


scan = _command(scan_command)


@_command
def fix(
    paths: Optional[List[str]] = opt.PATHS,
    unsafe_fixes: Optional[bool] = opt.FIX_UNSAFE_FIXES,
    diff: bool = opt.FIX_DIFF,
    show_fixes: bool = opt.FIX_SHOW_FIXES,
    select: Optional[List[str]] = opt.SELECT,
    extend_select: Optional[List[str]] = opt.EXTEND_SELECT,
    ignore: Optional[List[str]] = opt.IGNORE,
    fixable: Optional[List[str]] = opt.FIX_FIXABLE,
    unfixable: Optional[List[str]] = opt.FIX_UNFIXABLE,
    target_version: Optional[str] = opt.TARGET,
    targets: Optional[List[str]] = opt.TARGETS,
    exclude: Optional[List[str]] = opt.EXCLUDE,
    force_exclude: bool = opt.FORCE_EXCLUDE,
    extend_include: Optional[List[str]] = opt.EXTEND_INCLUDE,
    exit_zero: bool = opt.FIX_EXIT_ZERO,
    quiet: bool = opt.QUIET,
    config: Optional[str] = opt.CONFIG,
    jobs: Optional[int] = opt.JOBS,
    min_torch: Optional[str] = opt.MIN_TORCH,
    fail_on: Optional[str] = opt.FAIL_ON,
    stdin_filename: Optional[str] = opt.STDIN_FILENAME,
    statistics: bool = opt.FIX_STATISTICS,
    cache_dir: Optional[str] = opt.CACHE_DIR,
    no_cache: bool = opt.NO_CACHE,
) -> None:
    """Apply the fixes the rules offer (safe ones; unsafe ones with --unsafe-fixes). `-`: fix stdin onto stdout."""
    from advisor.fix.fixrun import fix_project

    stdin = read_stdin(paths := default_paths(paths, stdin_filename), stdin_filename)
    named = [stdin_filename or "stdin.py"] if stdin is not None else paths
    project = _load(
        named,
        config,
        stdin,
        quiet,
        select=select,
        extend_select=extend_select,
        ignore=ignore,
        fixable=fixable,
        unfixable=unfixable,
        unsafe_fixes=unsafe_fixes,
        target_version=target_version,
        targets=targets,
        min_torch=min_torch,
        cache_dir=cache_dir,
        no_cache=no_cache or stdin is not None,
        jobs=jobs,
        exclude=exclude,
        extend_include=extend_include,
        force_exclude=force_exclude,
        fail_on=fail_on,
    )
    shown = {"diff": diff, "show_fixes": show_fixes, "quiet": quiet, "exit_zero": exit_zero, "statistics": statistics}
    if stdin is not None:
        excluded = stdin_excluded(project, named[0])
        raise typer.Exit(fix_stdin(project, named[0], stdin, excluded, **shown))
    if not quiet:
        warn_if_nothing_to_scan(project, paths)
    say_what_was_hidden(project, quiet)
    raise typer.Exit(print_fix_run(fix_project(project, diff, show=sys.stdout.buffer.write), **shown))


@_command
def rules(
    format: str = opt.RULES_FORMAT,
    target_version: Optional[str] = opt.RULES_TARGET_VERSION,
) -> None:
    """List every rule: code, name, severity, since, fix and validation check (and kind, for a target)."""
    typer.echo(rules_listing(format, target_version), nl=format != "markdown")


@_command
def explain(
    code: Optional[str] = opt.EXPLAIN_CODE,
    every: bool = opt.EXPLAIN_EVERY,
) -> None:
    """Print the documentation of a rule, of every rule under a prefix, or of all of them."""
    typer.echo("\n\n".join(explain_rules(code, every)))


@_command
def validate(
    directory: str = opt.VALIDATE_DIRECTORY,
    python: Optional[str] = opt.VALIDATE_PYTHON,
    device: Optional[str] = opt.VALIDATE_DEVICE,
) -> None:
    """Run the report's validation scripts and put the results back into the report."""
    from advisor.report.render import render, report_problem
    from advisor.report.validation import InterpreterError, probe_torch, run_scripts

    if (problem := report_problem(directory, device)) is not None:
        raise _fail(problem)
    try:  # before anything runs: earlier results stay as they are
        probe_torch(python)
        if device in ("cuda", "xpu"):
            probe_device(python, device)
    except InterpreterError as e:
        raise _fail(str(e))
    summary = run_scripts(directory, python, device)
    for name in summary["not_run"]:
        typer.echo(f"advisor: validation/{name} was not written by advisor; not run", err=True)
    for c in summary["checks"]:
        typer.echo(f"{c['status']:5} {c['name']}: {c['detail']}")
    render(directory)
    typer.echo(f"advisor: results in {os.path.join(directory, 'validation-results.json')}; report updated", err=True)
    raise typer.Exit(validation_exit(summary["checks"]))


@_command
def rehearse(
    path: str = opt.REHEARSE_PATH,
    python: Optional[str] = opt.REHEARSE_PYTHON,
    command: Optional[str] = opt.REHEARSE_COMMAND,
    timeout: float = opt.REHEARSE_TIMEOUT,
    output_format: str = opt.REHEARSE_FORMAT,
    output: Optional[str] = opt.OUTPUT,
    report: Optional[str] = opt.REHEARSE_REPORT,
    baseline_python: Optional[str] = opt.REHEARSE_BASELINE,
    target_version: Optional[str] = opt.TARGET,
    config: Optional[str] = opt.CONFIG,
    cache_dir: Optional[str] = opt.CACHE_DIR,
) -> None:
    """Run the project's tests on the target torch; tie every torch warning to a finding, or report it missed.

    This RUNS THE PROJECT'S CODE (its tests, in a child process), unlike scan, fix, server and audit: use it
    only on code you trust. Exit 0: no torch warning at a project call site; 1: some; 2: the tests could not run."""
    from advisor.rehearse.command import Request, run_command

    request = Request(path, python, command, timeout, output_format, output, report, baseline_python)
    raise typer.Exit(run_command(request, target_version, config, cache_dir))


@_command
def clean(cache_dir: Optional[str] = opt.CACHE_DIR) -> None:
    """Remove the cache."""
    root = cache_root(cache_dir, find_project_root(["."]))
    from advisor.run.cache import clean as clean_cache

    typer.echo(f"removed {root}" if clean_cache(root) else f"no cache at {root}")


@_command
def audit(
    manifest: str = opt.AUDIT_MANIFEST,
    out: str = opt.AUDIT_OUT,
    executor: str = opt.AUDIT_EXECUTOR,
    scheduler: Optional[str] = opt.AUDIT_SCHEDULER,
    jobs: Optional[int] = opt.JOBS,
    target_version: Optional[str] = opt.AUDIT_TARGET_VERSION,
    no_cache: bool = opt.NO_CACHE,
) -> None:
    """Scan many repositories (each with its own config and target) into one upgrade dashboard."""
    from advisor.audit.runner import AuditError, read_manifest, run_audit, start_outputs, write_dashboard
    from advisor.audit.executors import DaskExecutor, LocalExecutor

    try:
        repos = read_manifest(manifest)
        pool: LocalExecutor | DaskExecutor
        if executor == "local":
            pool = LocalExecutor(jobs)
        elif executor == "dask":
            pool = DaskExecutor(scheduler)
            typer.echo(f"advisor: Dask dashboard: {pool.dashboard}", err=True)
        else:
            raise AuditError(f"unknown --executor {executor!r} (expected local or dask)")
    except AuditError as e:
        raise _fail(str(e))
    options = {"out": os.path.abspath(out), "target_version": target_version, "no_cache": no_cache}
    try:
        start_outputs(out)
    except OSError as e:  # LinkError: an output folder that is a link
        raise _fail(f"cannot write to {out}: {e}")
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import Progress

        with Progress(console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task("repositories", total=len(repos))
            result = run_audit(
                repos, pool, options, lambda done, total, name: bar.update(task, completed=done, description=name)
            )
    else:
        result = run_audit(repos, pool, options)
    write_dashboard(out, result)
    raise typer.Exit(print_audit_summary(result, out))


@_command
def server() -> None:
    """Run the language server (LSP over stdio) for editors; needs the `server` extra."""
    try:
        from advisor.server.lsp import serve
    except ModuleNotFoundError as e:
        if e.name not in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise
        raise _fail(
            "`advisor server` needs pygls, the `server` extra: in a checkout of torch-upgrade-advisor, "
            'pip install ".[server]" (the package is not on PyPI)'
        )
    raise typer.Exit(serve())  # 1 after an `exit` without `shutdown` (LSP)


def only_command(app: typer.Typer, args: List[str]) -> typer.Typer:
    """`app` with only the command `args` starts with, when it names one: Typer builds each command's parameters
    from its signature on every run. Help, `--version` and a mistyped command get the whole app."""
    named = [c for c in app.registered_commands if args and c.callback and _command_name(c) == args[0]]
    if len(named) != 1:
        return app
    only = copy.copy(app)
    only.registered_commands = named
    return only


def _command_name(command) -> str:
    return command.name or command.callback.__name__.lower().replace("_", "-")  # as Typer names it


def main() -> None:
    guarded(lambda: run_cli(only_command(app, sys.argv[1:]), prog_name="advisor"))
