"""What the `advisor` commands share, kept out of advisor.cli so each command reads as its flags.

Options declared once (Ruff's names, with advisor's older spellings kept as aliases), the
output formats, `scan -` (stdin), `explain`'s lookup and the warnings a run owes its user.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, List, Optional, TextIO

import typer

from advisor.core.findings import ScanResult
from advisor.core.versions import NEWEST, RANGE
from advisor.interrupt import announce


def fail(message: str) -> "typer.Exit":
    typer.echo(f"advisor: error: {message}", err=True)
    return typer.Exit(2)


PATHS = typer.Argument(None, help="Files or directories (default: the current directory); `-` reads one file from stdin.")
SELECT = typer.Option(None, "--select", help="Rule codes or prefixes to run instead of the default set (e.g. ADV1,ADV201).")
EXTEND_SELECT = typer.Option(None, "--extend-select", help="Rule codes or prefixes to run on top of the selection (e.g. opt-in rules).")
IGNORE = typer.Option(None, "--ignore", help="Rule codes or prefixes to skip.")
TARGET = typer.Option(None, "--target-version", help=f"Torch release you upgrade to, {RANGE} (default: from the project's pin, else {NEWEST}).")
MIN_TORCH = typer.Option(None, "--min-torch", help="The lowest torch the project supports (default: from its pins, else 2.0).")
FAIL_ON = typer.Option(None, "--fail-on", help="Kinds that fail the run, comma-separated: breaking, deprecated, advice, compat (default breaking,deprecated); or a severity.")
TARGETS = typer.Option(None, "--target", help="Per-library target, e.g. torchvision=0.29 (default: what the torch target brings).")
CACHE_DIR = typer.Option(None, "--cache-dir", help="Cache directory (default .advisor_cache at the project root).")
NO_CACHE = typer.Option(False, "--no-cache", help="Do not read or write the cache.")
JOBS = typer.Option(None, "--jobs", "-j", help="Worker processes (default: one per CPU).")
EXCLUDE = typer.Option(None, "--exclude", help="Glob patterns of paths to skip (added to config).")
FORCE_EXCLUDE = typer.Option(False, "--force-exclude", help="Apply `exclude` to files named on the command line too, as Ruff does (the pre-commit hooks pass it).")
EXTEND_INCLUDE = typer.Option(None, "--extend-include", help="Glob patterns of extra files to scan as Python (e.g. '*.pyw').")
DEVICE = typer.Option(None, "--device", help="rocm, cuda, xpu or cpu: the device the code targets (default: detected from ROCm markers).")
CONFIG = typer.Option(None, "--config", help=r"pyproject.toml to read \[tool.advisor] from (default: found from the paths upwards).")
QUIET = typer.Option(False, "--quiet", "-q", help="Print the findings and errors, nothing else.")
STDIN_FILENAME = typer.Option(None, "--stdin-filename", help="With `-`: the path the text read from stdin stands for (config, per-file-ignores, messages).")
# Ruff's name first; --format is kept for the scripts already written with it.
OUTPUT_FORMAT = typer.Option("text", "--output-format", "--format",
                             help="text (= concise: one line per finding), full (with the source line), json, sarif, github or junit.")
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


def render(fmt: str, result: ScanResult, stream: TextIO, setup, *, statistics: bool, quiet: bool,
           source: Optional[Callable[[str], Optional[List[str]]]] = None) -> None:
    """Write `result` in the chosen output format."""
    if fmt == "json":
        from advisor.report.output import json_format

        json_format.render(result, stream, target=setup.target, target_source=setup.target_source, device=setup.device_context,
                           min_torch=setup.min_version, min_torch_source=setup.min_torch_source)
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
        note = (f"Target torch {setup.target} ({setup.target_source}); "
                f"lowest supported torch {setup.min_version} ({setup.min_torch_source}).")
        if setup.companion_overrides:
            note += "\nCompanion targets: " + ", ".join(
                f"{lib} {v} ({'--target' if lib in setup.companion_overrides else 'from torch ' + setup.target})"
                for lib, v in setup.companion_targets.items()) + "."
        note += "\n" + setup.device_context.summary()
        extra = {"source": source} if source is not None else {}
        text.render(result, stream, colour=colour, target_note=note, statistics=statistics,
                    full=fmt == "full", quiet=quiet, **extra)


def warn_if_nothing_to_scan(setup, paths: List[str]) -> None:
    """A directory without one Python file is worth a word: "0 findings" there proves nothing."""
    if not setup.files and not setup.text_files and not setup.discovery_errors:
        typer.echo(f"advisor: warning: no Python files found in {', '.join(paths)} "
                   "(check the path, `exclude`, and .gitignore)", err=True)


def explain_text(rule) -> str:
    """`advisor explain`: a rule's header and its documentation."""
    m = rule.metadata()
    lib = m["library"] or "torch"
    lines = [f"{rule.code} ({rule.name})",
             f"severity: {m['severity']}   since: {lib} {m['since']}   fix: {m['fix']}   validation: {m['validation'] or '-'}"]
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
        typer.echo(f"{path}: error: {message}", err=True)
    for f in done.skipped:
        typer.echo(f"{f.location}: {f.rule} no safe place for a comment (inside a string or a notebook); left as it is", err=True)
    typer.echo(f"Added {done.added} suppression comment{'s' if done.added != 1 else ''}.", err=True)
    return 1 if done.errors else 0


def stdin_excluded(setup, stdin_path: str, exclude: List[str], force_exclude: bool) -> bool:
    """`scan - --stdin-filename P --force-exclude`: P excluded means nothing to report (as in Ruff)."""
    from advisor.run.discovery import excluded
    from advisor.run.project import split_codes

    if not (force_exclude or setup.config.force_exclude):
        return False
    return excluded(os.path.normpath(stdin_path), [*setup.config.exclude, *setup.config.extend_exclude, *split_codes(exclude)])


def print_fix_run(run, *, diff: bool, show_fixes: bool, quiet: bool, exit_zero: bool) -> int:
    """What `advisor fix` prints about its run (stderr with --diff, whose stdout is the diff); the exit code."""
    if run.interrupted:
        # One line, and advisor.interrupt says nothing more (SIGTERM is routed here too).
        announce(f"advisor: interrupted; {len(run.changed)} file(s) were fixed completely, every other file is untouched.")
        return 130
    for f in run.remaining:
        typer.echo(f"{f.location}: {f.rule} {f.message}")
    for path, message in run.errors:
        typer.echo(f"{path}: error: {message}", err=True)
    if show_fixes:
        for path, counts in run.per_file:
            typer.echo(f"{'Would fix' if diff else 'Fixed'} {path}: " + ", ".join(f"{c} x{n}" for c, n in sorted(counts.items())), err=diff)
    if not quiet:
        for line in run.summary():
            typer.echo(line, err=diff)
    return run.exit_code(exit_zero)
