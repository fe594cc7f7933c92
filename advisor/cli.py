"""The `advisor` command line. Parses options, calls the engine, hands results to an output.

Exit codes: 0 nothing found; 1 findings or files that could not be analysed;
2 usage or internal error.
"""

from __future__ import annotations

import io
import json
import os
import sys
import traceback
from typing import List, Optional

import typer

from advisor import __version__
from advisor.core.atomic import write_output
from advisor.run.baseline import write_baseline as write
from advisor.run.cache import clean as clean_cache
from advisor.core.config import find_project_root
from advisor.core.findings import ScanResult, Severity
from advisor.core.releases import TAGLINE
from advisor.core.textlines import split_lines
from advisor.interrupt import run_cli
from advisor.run.project import Project, ProjectError, ProjectOptions, cache_root
from advisor.report.output.markdown_rules import rules_table
from advisor.report.output.printable import printable
from advisor.analysis.registry import all_rules
from advisor.cli_support import (
    CACHE_DIR,
    CONFIG,
    DEVICE,
    EXCLUDE,
    EXTEND_INCLUDE,
    EXTEND_SELECT,
    FORCE_EXCLUDE,
    FORMATS,
    IGNORE,
    JOBS,
    NO_CACHE,
    OUTPUT_FORMAT,
    PATHS,
    PROGRESS_MIN_FILES,
    QUIET,
    SELECT,
    STDIN_FILENAME,
    TARGET,
    TARGETS,
    MIN_TORCH,
    FAIL_ON,
    add_suppressions,
    fix_stdin,
    print_fix_run,
    probe_device,
    validation_exit,
    write_scan_report,
    codes,
    explain_rules,
    fail,
    read_stdin,
    render,
    stdin_excluded,
    warn_if_nothing_to_scan,
)
from advisor.run.discovery import Discovered

# Imported inside the commands that need them, to keep start-up fast: advisor.report.render,
# advisor.report.validation and advisor.audit.runner (Jinja), advisor.audit.executors (Dask), rich (progress bars),
# the output formats (JUnit's XML escaping pulls in urllib and ssl) and the fixer.

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help=TAGLINE,
    context_settings={"help_option_names": ["-h", "--help"]},
)


_fail = fail


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


def _load(options: "ProjectOptions", found: "Discovered | None" = None) -> "Project":
    """The project, or exit 2 with the reason. Says, in one line, when no lower bound was found."""
    try:
        project = Project.load(options, found)
    except ProjectError as e:
        raise _fail(str(e))
    for note in project.warnings:
        typer.echo(f"advisor: warning: {note}", err=True)
    if project.lower_bound_note:
        typer.echo(project.lower_bound_note, err=True)
    return project


def _scan(project: "Project") -> "ScanResult":
    """The project's scan, with a progress bar on a TTY when it is long enough to need one."""
    try:
        if len(project.files) >= PROGRESS_MIN_FILES and sys.stderr.isatty():
            from rich.console import Console  # lazy: rich costs start-up time most runs never need
            from rich.progress import Progress

            with Progress(console=Console(stderr=True), transient=True) as bar:
                task = bar.add_task("advisor", total=None)
                return project.scan(lambda done, total: bar.update(task, completed=done, total=total))
        return project.scan()
    except ProjectError as e:
        raise _fail(str(e))


@app.command()
def scan(
    paths: Optional[List[str]] = PATHS,
    select: Optional[List[str]] = SELECT,
    extend_select: Optional[List[str]] = EXTEND_SELECT,
    ignore: Optional[List[str]] = IGNORE,
    output_format: str = OUTPUT_FORMAT,
    output: Optional[str] = typer.Option(
        None, "--output", "-o", "--output-file", help="Write the output to this file."
    ),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    quiet: bool = QUIET,
    statistics: bool = typer.Option(
        False, "--statistics", help="Print only the count of findings per rule, the most frequent first."
    ),
    target_version: Optional[str] = TARGET,
    targets: Optional[List[str]] = TARGETS,
    cache_dir: Optional[str] = CACHE_DIR,
    no_cache: bool = NO_CACHE,
    jobs: Optional[int] = JOBS,
    exclude: Optional[List[str]] = EXCLUDE,
    force_exclude: bool = FORCE_EXCLUDE,
    extend_include: Optional[List[str]] = EXTEND_INCLUDE,
    stdin_filename: Optional[str] = STDIN_FILENAME,
    report: Optional[str] = typer.Option(
        None, "--report", help="Also write report.md, report.html and validation scripts to this directory."
    ),
    config: Optional[str] = CONFIG,
    baseline: Optional[str] = typer.Option(
        None,
        "--baseline",
        help="Report only findings not in this baseline (default: advisor-baseline.json at the project root, if present).",
    ),
    no_baseline: bool = typer.Option(False, "--no-baseline", help="Report every finding, ignoring any baseline."),
    write_baseline: Optional[str] = typer.Option(
        None, "--write-baseline", help="Record the current findings in this baseline file and exit 0."
    ),
    add_noqa: bool = typer.Option(
        False, "--add-noqa", help="Add `# advisor: ignore[CODE]` to every line with a finding, and exit 0."
    ),
    device: Optional[str] = DEVICE,
    min_torch: Optional[str] = MIN_TORCH,
    fail_on: Optional[str] = FAIL_ON,
    fix_flag: bool = typer.Option(False, "--fix", hidden=True),  # Ruff's `check --fix`: point to `advisor fix`
) -> None:
    """Report every place the PyTorch upgrade touches."""
    if fix_flag:
        raise _fail(
            "`scan` only reports; fixes are `advisor fix` (add --diff to preview them, --unsafe-fixes for the rest)"
        )
    if output_format not in FORMATS:
        raise _fail(f"unknown --output-format {output_format!r} (expected {', '.join(FORMATS)})")
    paths = paths or ["."]
    if add_noqa and "-" in paths:
        raise _fail("--add-noqa edits files; it cannot be used with `-` (stdin)")
    stdin = read_stdin(paths, stdin_filename)
    stdin_path = stdin_filename or "stdin.py"
    setup = _load(
        ProjectOptions(
            [stdin_path] if stdin is not None else paths,
            codes(select),
            codes(ignore),
            target_version,
            cache_dir,
            no_cache,
            jobs,
            codes(exclude),
            codes(extend_include),
            config,
            "" if no_baseline else baseline,
            device,
            report=bool(report),
            extend_select=codes(extend_select),
            force_exclude=force_exclude,
            targets=targets or [],
            min_torch=min_torch,
            fail_on=fail_on,
        ),
        found=Discovered() if stdin is not None else None,
    )
    if stdin is not None:
        if stdin_excluded(setup, stdin_path, codes(exclude), force_exclude):
            raise typer.Exit(0)
        result = setup.scan_stdin(stdin_path, stdin)
    else:
        if not quiet:
            warn_if_nothing_to_scan(setup, paths)
        result = _scan(setup)
    if add_noqa:
        raise typer.Exit(add_suppressions(result))
    if report:
        try:
            write_scan_report(report, setup, result)
        except OSError as e:  # advisor.core.atomic.LinkError: a folder that is a link
            raise _fail(f"cannot write the report: {e}")
    stream = io.StringIO() if output else sys.stdout  # -o FILE: written whole, atomically, never through a link
    source = (lambda _path: split_lines(stdin.decode("utf-8", "replace"))) if stdin is not None else None
    render(output_format, result, stream, setup, statistics=statistics, quiet=quiet, source=source)
    if output:
        try:
            write_output(output, stream.getvalue())
        except OSError as e:
            raise _fail(f"cannot write {output}: {e.strerror or e}")
    if write_baseline:
        count = write(write_baseline, result.findings, setup.config.project_root)
        typer.echo(f"advisor: wrote {count} findings to the baseline {write_baseline}", err=True)
        raise typer.Exit(0)
    raise typer.Exit(0 if exit_zero or not setup.fails(result) else 1)


@app.command()
def fix(
    paths: Optional[List[str]] = PATHS,
    unsafe_fixes: Optional[bool] = typer.Option(
        None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply fixes that may change behaviour."
    ),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff of what would change; write nothing."),
    show_fixes: bool = typer.Option(
        False, "--show-fixes", help="List each fix applied (or that --diff would apply), by file and rule."
    ),
    select: Optional[List[str]] = SELECT,
    extend_select: Optional[List[str]] = EXTEND_SELECT,
    ignore: Optional[List[str]] = IGNORE,
    fixable: Optional[List[str]] = typer.Option(
        None, "--fixable", help="Only these codes or prefixes are fixed (others are reported)."
    ),
    unfixable: Optional[List[str]] = typer.Option(
        None, "--unfixable", help="Codes or prefixes reported but never fixed."
    ),
    target_version: Optional[str] = TARGET,
    targets: Optional[List[str]] = TARGETS,
    exclude: Optional[List[str]] = EXCLUDE,
    force_exclude: bool = FORCE_EXCLUDE,
    extend_include: Optional[List[str]] = EXTEND_INCLUDE,
    exit_zero: bool = typer.Option(
        False, "--exit-zero", help="Exit 0 even when findings remain (or, with --diff, would change)."
    ),
    quiet: bool = QUIET,
    config: Optional[str] = CONFIG,
    jobs: Optional[int] = JOBS,
    min_torch: Optional[str] = MIN_TORCH,
    fail_on: Optional[str] = FAIL_ON,
    stdin_filename: Optional[str] = STDIN_FILENAME,
) -> None:
    """Apply the fixes the rules offer (safe ones; unsafe ones with --unsafe-fixes). `-`: fix stdin onto stdout."""
    from advisor.fix.fixrun import fix_project

    stdin = read_stdin(paths := paths or ["."], stdin_filename)
    named = [stdin_filename or "stdin.py"] if stdin is not None else paths
    project = _load(
        ProjectOptions(
            named,
            codes(select),
            codes(ignore),
            target_version,
            None,
            True,
            jobs,
            codes(exclude),
            codes(extend_include),
            config,
            extend_select=codes(extend_select),
            fixable=codes(fixable),
            unfixable=codes(unfixable),
            force_exclude=force_exclude,
            targets=targets or [],
            min_torch=min_torch,
            fail_on=fail_on,
        ),
        found=Discovered() if stdin is not None else None,
    )
    unsafe = project.config.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    if stdin is not None:
        raise typer.Exit(
            fix_stdin(
                project,
                named[0],
                stdin,
                unsafe,
                stdin_excluded(project, named[0], codes(exclude), force_exclude),
                diff=diff,
                show_fixes=show_fixes,
                quiet=quiet,
                exit_zero=exit_zero,
            )
        )
    if not quiet:
        warn_if_nothing_to_scan(project, paths)
    run = fix_project(project, unsafe, diff, show=sys.stdout.write)
    raise typer.Exit(print_fix_run(run, diff=diff, show_fixes=show_fixes, quiet=quiet, exit_zero=exit_zero))


@app.command()
def rules(
    format: str = typer.Option(
        "table", "--output-format", "--format", help="table, json or markdown (the README's table)."
    ),
    target_version: Optional[str] = typer.Option(
        None, "--target-version", help="List only what applies to this torch release, with its kind there."
    ),
) -> None:
    """List every rule: code, name, severity, since, fix and validation check (and kind, for a target)."""
    catalogue = all_rules()
    if target_version is not None:
        from advisor.core import policy
        from advisor.core.versions import normalise, parse_version

        try:
            target = parse_version(normalise(target_version))
        except ValueError as e:
            raise _fail(str(e))
        kinds = {
            r.code: policy.rule_kind(
                [policy.torch_window(w, r.library) for w in r.windows()], r.kind, r.severity, target
            )
            for r in catalogue
        }
        catalogue = [r for r in catalogue if kinds[r.code] is not None and r.default_enabled]
    rows = [r.metadata() for r in catalogue]
    columns = ("code", "name", "severity", "since", "fix", "validation", "opt-in")
    if target_version is not None:
        for row in rows:
            row["kind"] = kinds[row["code"]].value
            row["severity"] = policy.severity_for(kinds[row["code"]], Severity(row["severity"])).value
        columns = ("code", "name", "kind", "severity", "since", "fix", "validation", "opt-in")
    if format == "json":
        typer.echo(json.dumps(rows, indent=2))
        return
    if format == "markdown":
        typer.echo(rules_table(catalogue), nl=False)
        return
    if format != "table":
        raise _fail(f"unknown --format {format!r} (expected table, json or markdown)")
    header = columns
    cells = [
        {**r, "opt-in": "yes" if r["opt_in"] else "-"} for r in rows
    ]  # off unless --select / --extend-select names it
    table = [header] + [tuple(str(r[k] if r[k] is not None else "-") for k in columns) for r in cells]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


@app.command()
def explain(
    code: Optional[str] = typer.Argument(None, help="A rule code (ADV701), a prefix (ADV7) or a name (amp-autocast)."),
    every: bool = typer.Option(False, "--all", help="Every rule's documentation."),
) -> None:
    """Print the documentation of a rule, of every rule under a prefix, or of all of them."""
    typer.echo("\n\n".join(explain_rules(code, every)))


@app.command()
def validate(
    directory: str = typer.Argument(..., help="A report directory written by `advisor scan --report DIR`."),
    python: Optional[str] = typer.Option(
        None, "--python", help="Interpreter of the (upgraded) environment to validate in."
    ),
    device: Optional[str] = typer.Option(None, "--device", help="cuda, xpu or cpu (default: what the scripts detect)."),
) -> None:
    """Run the report's validation scripts and put the results back into the report."""
    from advisor.report.render import render
    from advisor.report.validation import InterpreterError, probe_torch, run_scripts
    from advisor.run.discovery import REPORT_MARKER, read_manifest

    if not os.path.isfile(os.path.join(directory, "findings.json")):
        raise _fail(
            f"{directory} is not a report directory (no findings.json); run `advisor scan --report {directory}` first"
        )
    if device not in (None, "cuda", "xpu", "cpu"):
        raise _fail(f"unknown --device {device!r} (expected cuda, xpu or cpu)")
    if read_manifest(directory) is None:  # it lists the scripts advisor wrote: the only ones validate runs
        raise _fail(
            f"{directory} has no manifest ({REPORT_MARKER}) of the scripts advisor wrote; run `advisor scan --report {directory}` again"
        )
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


@app.command()
def clean(cache_dir: Optional[str] = CACHE_DIR) -> None:
    """Remove the cache."""
    root = cache_root(cache_dir, find_project_root(["."]))
    typer.echo(f"removed {root}" if clean_cache(root) else f"no cache at {root}")


@app.command()
def audit(
    manifest: str = typer.Argument(
        ..., help=r"TOML (\[\[repo]] path/name/owner/tags) or text (one path per line) list of checkouts."
    ),
    out: str = typer.Option(
        "advisor-audit", "--out", help="Directory for audit.json, audit.md, audit.html and per-repository reports."
    ),
    executor: str = typer.Option("local", "--executor", help="local (a process pool here) or dask."),
    scheduler: Optional[str] = typer.Option(
        None, "--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --executor dask)."
    ),
    jobs: Optional[int] = JOBS,
    target_version: Optional[str] = typer.Option(
        None, "--target-version", help="Override every repository's own target."
    ),
    no_cache: bool = NO_CACHE,
) -> None:
    """Scan many repositories (each with its own config and target) into one upgrade dashboard."""
    from advisor.audit.runner import AuditError, read_manifest, run_audit, write_dashboard
    from advisor.audit.executors import DaskExecutor, LocalExecutor

    try:
        repos = read_manifest(manifest)
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
    t, run = result["totals"], result["run"]
    typer.echo(
        f"Audited {t['repositories']} repositories ({run['files']} files) in {run['seconds']:.1f} s: {t['blocked']} blocked, "
        f"{t['failed']} failed, {t['findings']} findings, {100 * t['safe_share']:.0f}% with a safe fix "
        f"({100 * t['auto_fixable_share']:.0f}% with unsafe ones too). "
        f"Dashboard: {os.path.join(out, 'audit.html')}"
    )
    # Exit 1 says why: each failed repository, and each file that could not be analysed.
    for r in result["repositories"]:
        if r["status"] == "failed":
            typer.echo(printable(f"{r['name']}: error: {r['error']}"), err=True)
        for e in r["errors"]:  # paths and messages from the audited trees: no raw terminal escapes
            typer.echo(printable(f"{r['name']}: {e['path']}: error: {e['message']}"), err=True)
    bad = t["failed"] + sum(bool(r["errors"]) for r in result["repositories"])
    if bad:
        typer.echo(
            f"advisor: exit 1: {t['failed']} repositories failed, {bad - t['failed']} have files that could not be analysed",
            err=True,
        )
    raise typer.Exit(1 if bad else 0)


@app.command()
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


def main() -> None:
    try:
        run_cli(app, prog_name="advisor")  # Ctrl-C/SIGTERM: one line, exit 130, workers stopped
    except KeyboardInterrupt:
        typer.echo("advisor: interrupted", err=True)
        sys.exit(130)
    except SystemExit:
        raise
    except Exception as e:  # a bug of ours: say so, and exit 2, never 1 (which means "findings")
        traceback.print_exc()
        typer.echo(f"advisor: internal error: {type(e).__name__}: {e}", err=True)
        sys.exit(2)
