"""The `advisor` command line. Parses options, calls the engine, hands results to an output.

Exit codes: 0 nothing found; 1 findings or files that could not be analysed;
2 usage or internal error.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import List, Optional

import typer

from advisor import __version__
from advisor.run.baseline import write_baseline as write
from advisor.run.cache import clean as clean_cache
from advisor.core.config import find_project_root
from advisor.core.findings import ScanResult, Severity
from advisor.interrupt import announce, run_cli
from advisor.run.postprocess import drop_report_only
from advisor.run.project import Project, ProjectError, ProjectOptions, cache_root
from advisor.report.output.markdown_rules import rules_table
from advisor.analysis.registry import RuleSelectionError, all_rules, rule_by_code

# Imported inside the commands that need them, to keep start-up fast: advisor.report.render,
# advisor.report.validation and advisor.audit.runner (Jinja), advisor.audit.executors (Dask), rich (progress bars),
# the output formats (JUnit's XML escaping pulls in urllib and ssl) and the fixer.

app = typer.Typer(
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
    help="Find and fix what the PyTorch 2.12 upgrade (and every deprecation on the way) touches.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str) -> "typer.Exit":
    typer.echo(f"advisor: error: {message}", err=True)
    return typer.Exit(2)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"advisor {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
) -> None:
    pass


def _load(options: "ProjectOptions") -> "Project":
    """The project, or exit 2 with the reason. Says, in one line, when no lower bound was found."""
    try:
        project = Project.load(options)
    except ProjectError as e:
        raise _fail(str(e))
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


_PATHS = typer.Argument(None, help="Files or directories (default: the current directory).")
_SELECT = typer.Option(None, "--select", help="Rule codes or prefixes to run (e.g. ADV1,ADV201).")
_IGNORE = typer.Option(None, "--ignore", help="Rule codes or prefixes to skip.")
_TARGET = typer.Option(None, "--target-version", help="Torch release you upgrade to, 2.0 to 2.15 (default: from the project's pin, else 2.15).")
_MIN_TORCH = typer.Option(None, "--min-torch", help="The lowest torch the project supports (default: from its pins, else 2.0).")
_FAIL_ON = typer.Option(None, "--fail-on", help="Kinds that fail the run, comma-separated: breaking, deprecated, advice, compat (default breaking,deprecated); or a severity.")
_CACHE_DIR = typer.Option(None, "--cache-dir", help="Cache directory (default .advisor_cache at the project root).")
_NO_CACHE = typer.Option(False, "--no-cache", help="Do not read or write the cache.")
_JOBS = typer.Option(None, "--jobs", "-j", help="Worker processes (default: one per CPU).")
_EXCLUDE = typer.Option(None, "--exclude", help="Glob patterns of paths to skip (added to config).")
_EXTEND_INCLUDE = typer.Option(None, "--extend-include", help="Glob patterns of extra files to scan as Python (e.g. '*.pyw').")
_DEVICE = typer.Option(None, "--device", help="rocm, cuda, xpu or cpu: the device the code targets (default: detected from ROCm markers).")
_CONFIG = typer.Option(None, "--config", help="pyproject.toml to read [tool.advisor] from (default: found from the paths upwards).")
FORMATS = ("text", "json", "sarif", "github", "junit")
PROGRESS_MIN_FILES = 200  # a progress bar only for runs long enough to need one


@app.command()
def scan(
    paths: Optional[List[str]] = _PATHS,
    select: Optional[List[str]] = _SELECT,
    ignore: Optional[List[str]] = _IGNORE,
    format: str = typer.Option("text", "--format", help="text, json, sarif, github or junit."),
    output: Optional[str] = typer.Option(None, "--output", "-o", help="Write the output to this file."),
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when there are findings."),
    statistics: bool = typer.Option(False, "--statistics", help="Print counts per rule."),
    target_version: Optional[str] = _TARGET,
    cache_dir: Optional[str] = _CACHE_DIR,
    no_cache: bool = _NO_CACHE,
    jobs: Optional[int] = _JOBS,
    exclude: Optional[List[str]] = _EXCLUDE,
    extend_include: Optional[List[str]] = _EXTEND_INCLUDE,
    report: Optional[str] = typer.Option(None, "--report", help="Also write report.md, report.html and validation scripts to this directory."),
    config: Optional[str] = _CONFIG,
    baseline: Optional[str] = typer.Option(None, "--baseline", help="Report only findings not in this baseline (default: advisor-baseline.json at the project root, if present)."),
    write_baseline: Optional[str] = typer.Option(None, "--write-baseline", help="Record the current findings in this baseline file and exit 0."),
    device: Optional[str] = _DEVICE,
    min_torch: Optional[str] = _MIN_TORCH,
    fail_on: Optional[str] = _FAIL_ON,
) -> None:
    """Report every place the PyTorch upgrade touches."""
    if format not in FORMATS:
        raise _fail(f"unknown --format {format!r} (expected {', '.join(FORMATS)})")
    setup = _load(ProjectOptions(paths or ["."], select or [], ignore or [], target_version, cache_dir, no_cache, jobs,
                                 exclude or [], extend_include or [], config, baseline, device, report=bool(report),
                                 min_torch=min_torch, fail_on=fail_on))
    result = _scan(setup)
    if report:
        from advisor.report.render import write_report

        meta = {"target": setup.target, "target_source": setup.target_source, "files": result.files_scanned, "report_dir": report,
                "min_torch": setup.min_version, "min_torch_source": setup.min_torch_source,
                "device": setup.device_context.to_json()}
        write_report(report, result.findings, [e.to_json() for e in result.errors], meta)
        typer.echo(f"advisor: report written to {os.path.join(report, 'report.html')}", err=True)
        # Report-only notes (dynamic access) belong to the report, not to the exit status or the listing.
        drop_report_only(result, setup.listed)
    stream = open(output, "w", encoding="utf-8") if output else sys.stdout
    try:
        if format == "json":
            from advisor.report.output import json_format

            json_format.render(result, stream, target=setup.target, target_source=setup.target_source, device=setup.device_context)
        elif format == "sarif":
            from advisor.report.output import sarif

            sarif.render(result, stream, setup.rules)
        elif format == "github":
            from advisor.report.output import github

            github.render(result, stream)
        elif format == "junit":
            from advisor.report.output import junit

            junit.render(result, stream)
        else:
            from advisor.report.output import text

            colour = stream is sys.stdout and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
            note = f"Target torch {setup.target} ({setup.target_source}); lowest supported torch {setup.min_version} ({setup.min_torch_source})."
            note += "\n" + setup.device_context.summary()
            text.render(result, stream, colour=colour, target_note=note, statistics=statistics)
    finally:
        if output:
            stream.close()
    if write_baseline:
        count = write(write_baseline, result.findings, setup.config.project_root)
        typer.echo(f"advisor: wrote {count} findings to the baseline {write_baseline}", err=True)
        raise typer.Exit(0)
    raise typer.Exit(0 if exit_zero or not setup.fails(result) else 1)


@app.command()
def fix(
    paths: Optional[List[str]] = _PATHS,
    unsafe_fixes: Optional[bool] = typer.Option(None, "--unsafe-fixes/--no-unsafe-fixes", help="Also apply fixes that may change behaviour."),
    diff: bool = typer.Option(False, "--diff", help="Print a unified diff of what would change; write nothing."),
    select: Optional[List[str]] = _SELECT,
    ignore: Optional[List[str]] = _IGNORE,
    target_version: Optional[str] = _TARGET,
    exclude: Optional[List[str]] = _EXCLUDE,
    extend_include: Optional[List[str]] = _EXTEND_INCLUDE,
    exit_zero: bool = typer.Option(False, "--exit-zero", help="Exit 0 even when findings remain."),
    config: Optional[str] = _CONFIG,
    jobs: Optional[int] = _JOBS,
    min_torch: Optional[str] = _MIN_TORCH,
) -> None:
    """Apply the fixes the rules offer (safe ones; unsafe ones with --unsafe-fixes)."""
    from advisor.fix.fixrun import fix_project
    project = _load(ProjectOptions(paths or ["."], select or [], ignore or [], target_version, None, True, jobs,
                                   exclude or [], extend_include or [], config, min_torch=min_torch))
    unsafe = project.config.unsafe_fixes if unsafe_fixes is None else unsafe_fixes
    run = fix_project(project, unsafe, diff, show=sys.stdout.write)
    if run.interrupted:
        # One line, and advisor.interrupt says nothing more (SIGTERM is routed here too).
        announce(f"advisor: interrupted; {len(run.changed)} file(s) were fixed completely, every other file is untouched.")
        raise typer.Exit(130)
    for f in run.remaining:
        typer.echo(f"{f.location}: {f.rule} {f.message}")
    for path, message in run.errors:
        typer.echo(f"{path}: error: {message}", err=True)
    for line in run.summary():
        typer.echo(line, err=diff)
    raise typer.Exit(run.exit_code(exit_zero))


@app.command()
def rules(
    format: str = typer.Option("table", "--format", help="table, json or markdown (the README's table)."),
    target_version: Optional[str] = typer.Option(None, "--target-version", help="List only what applies to this torch release, with its kind there."),
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
        kinds = {r.code: policy.rule_kind(r.windows(), r.kind, r.severity, target) for r in catalogue}
        catalogue = [r for r in catalogue if kinds[r.code] is not None and r.default_enabled]
    rows = [r.metadata() for r in catalogue]
    columns = ("code", "name", "severity", "since", "fix", "validation")
    if target_version is not None:
        for row in rows:
            row["kind"] = kinds[row["code"]].value
            row["severity"] = policy.severity_for(kinds[row["code"]], Severity(row["severity"])).value
        columns = ("code", "name", "kind", "severity", "since", "fix", "validation")
    if format == "json":
        typer.echo(json.dumps(rows, indent=2))
        return
    if format == "markdown":
        typer.echo(rules_table(catalogue), nl=False)
        return
    if format != "table":
        raise _fail(f"unknown --format {format!r} (expected table, json or markdown)")
    header = columns
    table = [header] + [tuple(str(r[k] if r[k] is not None else "-") for k in columns) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    for row in table:
        typer.echo("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())


@app.command()
def explain(code: str = typer.Argument(..., help="A rule code, e.g. ADV101.")) -> None:
    """Print a rule's documentation."""
    try:
        rule = rule_by_code(code)
    except RuleSelectionError as e:
        raise _fail(str(e))
    m = rule.metadata()
    typer.echo(f"{rule.code} ({rule.name})")
    typer.echo(
        f"severity: {m['severity']}   since: torch {m['since']}   fix: {m['fix']}   validation: {m['validation'] or '-'}"
    )
    if rule.deprecated_in or rule.removed_in:
        typer.echo(f"deprecated in: {rule.deprecated_in or '-'}   removed in: {rule.removed_in or '-'}")
    typer.echo("")
    typer.echo(rule.doc())


@app.command()
def validate(
    directory: str = typer.Argument(..., help="A report directory written by `advisor scan --report DIR`."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter of the (upgraded) environment to validate in."),
    device: Optional[str] = typer.Option(None, "--device", help="cuda, xpu or cpu (default: what the scripts detect)."),
) -> None:
    """Run the report's validation scripts and put the results back into the report."""
    from advisor.report.render import render
    from advisor.report.validation import run_scripts

    if not os.path.isfile(os.path.join(directory, "findings.json")):
        raise _fail(f"{directory} is not a report directory (no findings.json); run `advisor scan --report {directory}` first")
    if device not in (None, "cuda", "xpu", "cpu"):
        raise _fail(f"unknown --device {device!r} (expected cuda, xpu or cpu)")
    summary = run_scripts(directory, python, device)
    for c in summary["checks"]:
        typer.echo(f"{c['status']:5} {c['name']}: {c['detail']}")
    render(directory)
    typer.echo(f"advisor: results in {os.path.join(directory, 'validation-results.json')}; report updated", err=True)
    bad = [c for c in summary["checks"] if c["status"] in ("FAIL", "ERROR")]
    raise typer.Exit(1 if bad else 0)


@app.command()
def clean(cache_dir: Optional[str] = _CACHE_DIR) -> None:
    """Remove the cache."""
    root = cache_root(cache_dir, find_project_root(["."]))
    typer.echo(f"removed {root}" if clean_cache(root) else f"no cache at {root}")


@app.command()
def audit(
    manifest: str = typer.Argument(..., help="TOML ([[repo]] path/name/owner/tags) or text (one path per line) list of checkouts."),
    out: str = typer.Option("advisor-audit", "--out", help="Directory for audit.json, audit.md, audit.html and per-repository reports."),
    executor: str = typer.Option("local", "--executor", help="local (a process pool here) or dask."),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --executor dask)."),
    jobs: Optional[int] = _JOBS,
    target_version: Optional[str] = typer.Option(None, "--target-version", help="Override every repository's own target."),
    no_cache: bool = _NO_CACHE,
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
            result = run_audit(repos, pool, options, lambda done, total, name: bar.update(task, completed=done, description=name))
    else:
        result = run_audit(repos, pool, options)
    write_dashboard(out, result)
    t, run = result["totals"], result["run"]
    typer.echo(
        f"Audited {t['repositories']} repositories ({run['files']} files) in {run['seconds']:.1f} s: {t['blocked']} blocked, "
        f"{t['failed']} failed, {t['findings']} findings, {100 * t['auto_fixable_share']:.0f}% auto-fixable. "
        f"Dashboard: {os.path.join(out, 'audit.html')}"
    )
    for r in result["repositories"]:
        if r["status"] == "failed":
            typer.echo(f"{r['name']}: error: {r['error']}", err=True)
    raise typer.Exit(1 if t["failed"] or any(r["errors"] for r in result["repositories"]) else 0)


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
