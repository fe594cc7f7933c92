"""What the `advisor` commands share, kept out of advisor.cli so each command reads as its flags.

Options declared once (Ruff's names, with advisor's older spellings kept as aliases), the
output formats, `scan -` (stdin), `explain`'s lookup and the warnings a run owes its user.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Callable, List, Optional, TextIO

import typer

from advisor.core.findings import ScanResult
from advisor.core.versions import NEWEST, RANGE
from advisor.interrupt import announce
from advisor.report.output.printable import printable


def fail(message: str) -> "typer.Exit":
    typer.echo(f"advisor: error: {message}", err=True)
    return typer.Exit(2)


PATHS = typer.Argument(
    None, help="Files or directories (default: the current directory); `-` reads one file from stdin."
)
SELECT = typer.Option(
    None,
    "--select",
    help="Rule codes or prefixes to run instead of the default set (e.g. ADV1,ADV201); ALL: every rule, opt-in ones too.",
)
EXTEND_SELECT = typer.Option(
    None, "--extend-select", help="Rule codes or prefixes to run on top of the selection (e.g. opt-in rules)."
)
# --extend-ignore (Ruff's older spelling) is the same: --ignore adds to the config's `ignore`.
IGNORE = typer.Option(
    None, "--ignore", "--extend-ignore", help="Rule codes or prefixes to skip (added to the config's)."
)
TARGET = typer.Option(
    None,
    "--target-version",
    help=f"Torch release you upgrade to, {RANGE} (default: from the project's pin, else {NEWEST}).",
)
MIN_TORCH = typer.Option(
    None, "--min-torch", help="The lowest torch the project supports (default: from its pins, else 2.0)."
)
FAIL_ON = typer.Option(
    None,
    "--fail-on",
    help="Kinds that fail the run, comma-separated: breaking, deprecated, advice, compat (default breaking,deprecated); or a severity.",
)
TARGETS = typer.Option(
    None, "--target", help="Per-library target, e.g. torchvision=0.29 (default: what the torch target brings)."
)
CACHE_DIR = typer.Option(None, "--cache-dir", help="Cache directory (default .advisor_cache at the project root).")
NO_CACHE = typer.Option(False, "--no-cache", help="Do not read or write the cache.")
JOBS = typer.Option(None, "--jobs", "-j", help="Worker processes (default: one per CPU).")
EXCLUDE = typer.Option(None, "--exclude", help="Glob patterns of paths to skip (added to config).")
FORCE_EXCLUDE = typer.Option(
    False,
    "--force-exclude",
    help="Apply `exclude` to files named on the command line too, as Ruff does (the pre-commit hooks pass it).",
)
EXTEND_INCLUDE = typer.Option(
    None, "--extend-include", help="Glob patterns of extra files to scan as Python (e.g. '*.pyw')."
)
DEVICE = typer.Option(
    None, "--device", help="rocm, cuda, xpu or cpu: the device the code targets (default: detected from ROCm markers)."
)
CONFIG = typer.Option(
    None, "--config", help=r"pyproject.toml to read \[tool.advisor] from (default: found from the paths upwards)."
)
QUIET = typer.Option(False, "--quiet", "-q", help="Print the findings and errors, nothing else.")
STDIN_FILENAME = typer.Option(
    None,
    "--stdin-filename",
    help="With `-`: the path the text read from stdin stands for (config, per-file-ignores, messages).",
)
# Ruff's name first; --format is kept for the scripts already written with it.
OUTPUT_FORMAT = typer.Option(
    "text",
    "--output-format",
    "--format",
    help="text (= concise: one line per finding), full (with the source line), json, sarif, github or junit.",
)
FORMATS = ("text", "concise", "full", "json", "sarif", "github", "junit")
PROGRESS_MIN_FILES = 200  # a progress bar only for runs long enough to need one


def codes(values: Optional[List[str]]) -> List[str]:
    return list(values or [])


def read_stdin(paths: List[str], stdin_filename: Optional[str]) -> Optional[bytes]:
    """The bytes of `scan -`, or None when the paths are files and directories."""
    if "-" not in paths:
        if stdin_filename:
            raise fail("--stdin-filename goes with `-` as the path (read the file from stdin)")
        return None
    if paths != ["-"]:
        raise fail("`-` (read stdin) cannot be combined with other paths")
    return sys.stdin.buffer.read()


def render(
    fmt: str,
    result: ScanResult,
    stream: TextIO,
    setup,
    *,
    statistics: bool,
    quiet: bool,
    source: Optional[Callable[[str], Optional[List[str]]]] = None,
) -> None:
    """Write `result` in the chosen output format (with `statistics`, only the table, -q or not)."""
    if statistics:
        from advisor.report.output import statistics as table

        if fmt not in ("json", "text", "concise", "full"):
            raise fail(f"--statistics prints a table (text) or JSON, not {fmt}")
        table.render(result, stream, as_json=fmt == "json")
        for e in result.errors:  # not part of the table, but never hidden
            typer.echo(f"{e.location}: error: {e.message}", err=True)
    elif fmt == "json":
        from advisor.report.output import json_format

        json_format.render(
            result,
            stream,
            target=setup.target,
            target_source=setup.target_source,
            device=setup.device_context,
            min_torch=setup.min_version,
            min_torch_source=setup.min_torch_source,
        )
    elif fmt == "sarif":
        from advisor.report.output import sarif

        sarif.render(result, stream, setup.rules)
    elif fmt == "github":
        from advisor.report.output import github

        github.render(result, stream)
    elif fmt == "junit":
        from advisor.report.output import junit

        junit.render(result, stream)
    else:
        from advisor.report.output import text

        colour = stream is sys.stdout and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        note = (
            f"Target torch {setup.target} ({setup.target_source}); "
            f"lowest supported torch {setup.min_version} ({setup.min_torch_source})."
        )
        if setup.companion_overrides:
            note += (
                "\nCompanion targets: "
                + ", ".join(
                    f"{lib} {v} ({'--target' if lib in setup.companion_overrides else 'from torch ' + setup.target})"
                    for lib, v in setup.companion_targets.items()
                )
                + "."
            )
        note += "\n" + setup.device_context.summary()
        extra = {"source": source} if source is not None else {}
        text.render(result, stream, colour=colour, target_note=note, full=fmt == "full", quiet=quiet, **extra)


def warn_if_nothing_to_scan(setup, paths: List[str]) -> None:
    """A directory without one Python file is worth a word: "0 findings" there proves nothing.
    So is a report marker that advisor did not write (the folder is scanned, not skipped)."""
    for note in setup.found.notes:
        typer.echo(f"advisor: warning: {note}", err=True)
    if not setup.files and not setup.text_files and not setup.discovery_errors:
        typer.echo(
            f"advisor: warning: no Python files found in {', '.join(paths)} "
            "(check the path, `exclude`, and .gitignore)",
            err=True,
        )


def explain_text(rule) -> str:
    """`advisor explain`: a rule's header and its documentation."""
    m = rule.metadata()
    lib = m["library"] or "torch"
    lines = [
        f"{rule.code} ({rule.name})",
        f"severity: {m['severity']}   since: {lib} {m['since']}   fix: {m['fix']}   validation: {m['validation'] or '-'}",
    ]
    if rule.deprecated_in or rule.removed_in or rule.undeprecated_in:
        line = f"deprecated in: {lib} {rule.deprecated_in or '-'}   removed in: {lib} {rule.removed_in or '-'}"
        lines.append(line + (f"   un-deprecated in: {lib} {rule.undeprecated_in}" if rule.undeprecated_in else ""))
    if rule.kind:
        lines.append(f"kind: {rule.kind.value}")
    return "\n".join(lines) + "\n\n" + rule.doc()


def explain_rules(selector: Optional[str], every: bool) -> List[str]:
    """The texts `explain` prints: one rule by code or name, every rule under a prefix, or --all."""
    from advisor.analysis.registry import RuleSelectionError, all_rules, rules_matching

    if every == bool(selector):
        raise fail("give a rule code, prefix or name (e.g. ADV701, ADV7, amp-autocast), or --all")
    try:
        rules = list(all_rules()) if every else rules_matching(selector or "")
    except RuleSelectionError as e:
        raise fail(str(e))
    return [explain_text(r) for r in rules]


def add_suppressions(result: ScanResult) -> int:
    """`scan --add-noqa`: a suppression comment on each finding's line; the exit code."""
    from advisor.fix.noqa import add_noqa

    done = add_noqa(result.findings)
    for path, message in done.errors:
        typer.echo(f"{printable(path)}: error: {printable(message)}", err=True)
    for f in done.skipped:
        typer.echo(
            f"{printable(f.location)}: {f.rule} no safe place for a comment (inside a string, after a backslash, or on an IPython line); left as it is",
            err=True,
        )
    typer.echo(f"Added {done.added} suppression comment{'s' if done.added != 1 else ''}.", err=True)
    return 1 if done.errors else 0


def stdin_excluded(setup, stdin_path: str, exclude: List[str], force_exclude: bool) -> bool:
    """`scan - --stdin-filename P --force-exclude`: P excluded means nothing to report (as in Ruff)."""
    from advisor.run.discovery import excluded
    from advisor.run.project import split_codes

    if not (force_exclude or setup.config.force_exclude):
        return False
    return excluded(
        os.path.normpath(stdin_path), [*setup.config.exclude, *setup.config.extend_exclude, *split_codes(exclude)]
    )


def print_fix_run(run, *, diff: bool, show_fixes: bool, quiet: bool, exit_zero: bool, err: bool = False) -> int:
    """What `advisor fix` prints about its run; the exit code.

    Findings left go to stdout, the rest to stderr with --diff (whose stdout is the diff); `err`: all of it
    to stderr (`fix -`, whose stdout is the fixed source).
    """
    if run.interrupted:
        # One line, and advisor.interrupt says nothing more (SIGTERM is routed here too).
        announce(
            f"advisor: interrupted; {len(run.changed)} file(s) were fixed completely, every other file is untouched."
        )
        return 130
    for f in run.remaining:  # names and messages from the scanned tree: no raw terminal escapes
        typer.echo(f"{printable(f.location)}: {f.rule} {printable(f.message)}", err=err)
    for path, message in run.errors:
        typer.echo(f"{printable(path)}: error: {printable(message)}", err=True)
    if show_fixes:
        for path, counts in run.per_file:
            typer.echo(
                f"{'Would fix' if diff else 'Fixed'} {path}: "
                + ", ".join(f"{c} x{n}" for c, n in sorted(counts.items())),
                err=diff or err,
            )
    if not quiet:
        for line in run.summary():
            typer.echo(line, err=diff or err)
    return run.exit_code(exit_zero)


def fix_stdin(
    project,
    path: str,
    data: bytes,
    unsafe: bool,
    excluded: bool,
    *,
    diff: bool,
    show_fixes: bool,
    quiet: bool,
    exit_zero: bool,
) -> int:
    """`advisor fix - --stdin-filename P` (Ruff's `check --fix -`): the fixed text on stdout (or, with --diff, the
    diff), the findings left and the summary on stderr; the exit code. An excluded P comes back unchanged."""
    from advisor.fix.fixer import FixOutcome
    from advisor.fix.fixrun import FixRun, fix_text

    run, fixed = (FixRun(diff=diff), data) if excluded else fix_text(project, path, data, unsafe)
    run.diff = diff
    if diff:
        sys.stdout.write(FixOutcome(path, data, fixed).diff())
    else:
        sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    return print_fix_run(run, diff=diff, show_fixes=show_fixes, quiet=quiet, exit_zero=exit_zero, err=True)


def probe_device(python: Optional[str], device: str, timeout: int = 300) -> None:
    """`validate --device cuda|xpu`: InterpreterError unless `python`'s torch sees that device. Without one every
    script would only SKIP, and the run would overwrite earlier results while checking nothing."""
    from advisor.report.validation import InterpreterError

    code = (
        "import sys, torch\n"
        "mod = getattr(torch, sys.argv[1], None)\n"
        "ok = mod is not None and hasattr(mod, 'is_available') and mod.is_available()\n"
        "built = torch.version.cuda or getattr(torch.version, 'hip', None) or getattr(torch.version, 'xpu', None)\n"
        "sys.stdout.write(f'{int(bool(ok))} {torch.__version__} {built or \"-\"}')"
    )
    python = python or sys.executable
    try:
        out = subprocess.run(
            [python, "-c", code, device], capture_output=True, text=True, timeout=timeout
        ).stdout.split()
    except (OSError, subprocess.TimeoutExpired) as e:
        raise InterpreterError(f"{python}: cannot ask torch for a {device} device ({e})") from None
    if out[:1] == ["1"]:
        return
    version, built = (out[1:3] + ["?", "-"])[:2] if len(out) >= 3 else ("?", "-")
    build = (
        f"a build without {device.upper()}"
        if built == "-"
        else f"built for {built}, but no {device.upper()} device is visible"
    )
    raise InterpreterError(
        f"--device {device}: {python} has torch {version}, {build}; nothing was run and earlier "
        f"results are kept (run on the machine with the {device.upper()} device, or drop --device)"
    )


def validation_exit(checks: List[dict]) -> int:
    """`advisor validate`'s exit status: 0 only if nothing failed and something ran (a check PASSed)."""
    if any(c["status"] in ("FAIL", "ERROR") for c in checks):
        return 1
    if not any(c["status"] == "PASS" for c in checks):
        typer.echo("advisor: exit 1: no check ran here (every one was SKIPped), so nothing was validated", err=True)
        return 1
    return 0


def write_scan_report(report: str, setup, result: ScanResult) -> None:
    """`scan --report DIR`: report.md, report.html and the validation scripts; report-only notes then leave `result`."""
    from advisor.report.render import write_report
    from advisor.run.postprocess import drop_report_only

    meta = {
        "target": setup.target,
        "target_source": setup.target_source,
        "files": result.files_scanned,
        "report_dir": report,
        "min_torch": setup.min_version,
        "min_torch_source": setup.min_torch_source,
        "device": setup.device_context.to_json(),
    }
    write_report(report, result.findings, [e.to_json() for e in result.errors], meta)
    typer.echo(f"advisor: report written to {os.path.join(report, 'report.html')}", err=True)
    # Report-only notes (dynamic access) belong to the report, not to the exit status or the listing.
    drop_report_only(result, setup.listed)
