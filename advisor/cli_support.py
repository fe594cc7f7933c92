"""What the `advisor` commands share, kept out of advisor.cli so each command reads as its flags.

The output formats, `scan -` (stdin), `explain`'s lookup, the tables and summaries the commands print,
and the warnings a run owes its user. The options themselves are declared in advisor.cli_options.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Callable, List, Optional, TextIO

from advisor.cli_show import echo, fail
from advisor.core.atomic import write_output
from advisor.core.findings import ScanResult, Severity
from advisor.core.textlines import split_lines
from advisor.interrupt import announce
from advisor.report.output.concise import short
from advisor.report.output.printable import printable


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
            echo(f"{e.location}: error: {e.message}", err=True)
    elif fmt == "json":
        from advisor.fix.edits import with_edits
        from advisor.report.output import json_format

        out = json_format.as_dict(
            result,
            target=setup.target,
            target_source=setup.target_source,
            device=setup.device_context,
            min_torch=setup.lowest,
            min_torch_source=setup.lowest_source,
        )
        # stdin's text is not on disk: its fixes keep their range's one edit
        made = {r.path: r.edits for r in result.results if r.edits is not None}
        with_edits(out["findings"], result.findings, setup if source is None else None, made)
        from advisor.report.output.indented_json import dumps  # json.dump(out, stream, indent=2), faster

        stream.write(dumps(out, indent=2))
        stream.write("\n")
    elif fmt == "sarif":
        from advisor.report.output import sarif

        sarif.render(result, stream, setup.rules, setup.settings.docs_url)
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
            f"lowest supported torch {setup.lowest} ({setup.lowest_source})."
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
        echo(f"advisor: warning: {note}", err=True)
    if not setup.files and not setup.text_files and not setup.discovery_errors:
        echo(
            f"advisor: warning: no Python files found in {', '.join(paths)} "
            "(check the path, `exclude`, and .gitignore)",
            err=True,
        )


def say_what_was_hidden(setup, quiet: bool) -> None:
    """The one stderr line on what the config, discovery and a baseline left out (advisor.run.hidden); not under -q."""
    if not quiet and (note := setup.hidden_note):
        echo(printable(note), err=True)


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


def add_suppressions(result: ScanResult, root: str) -> int:
    """`scan --add-noqa`: a suppression comment on each finding's line (files inside `root` only); the exit code."""
    from advisor.fix.noqa import add_noqa

    done = add_noqa(result.findings, root)
    for path, message in done.errors:
        echo(f"{printable(path)}: error: {printable(message)}", err=True)
    for f in done.skipped:
        echo(
            f"{printable(f.location)}: {f.rule} no safe place for a comment (inside a string, after a backslash, or on an IPython line); left as it is",
            err=True,
        )
    echo(f"Added {done.added} suppression comment{'s' if done.added != 1 else ''}.", err=True)
    return 1 if done.errors else 0


def stdin_excluded(setup, stdin_path: str) -> bool:
    """`scan - --stdin-filename P --force-exclude`: P excluded means nothing to report (as in Ruff)."""
    from advisor.run.discovery import excluded

    settings = setup.settings  # `exclude` and `force-exclude`: the config's and the flags'
    if not settings.force_exclude:
        return False
    return excluded(os.path.normpath(stdin_path), [*settings.exclude, *settings.extend_exclude])


def print_fix_run(
    run, *, diff: bool, show_fixes: bool, quiet: bool, exit_zero: bool, statistics: bool = False, err: bool = False
) -> int:
    """What `advisor fix` prints about its run; the exit code. Findings left go to stdout, and with --diff to stderr
    like the rest (stdout is the diff alone); `err`: all of it to stderr (`fix -`, whose stdout is the fixed source)."""
    if run.interrupted:
        # One line, and advisor.interrupt says nothing more (SIGTERM is routed here too).
        announce(
            f"advisor: interrupted; {len(run.changed)} file(s) were fixed completely, every other file is untouched."
        )
        return 130
    if statistics:  # Ruff's `check --fix --statistics`: what is left, counted per rule
        from types import SimpleNamespace

        from advisor.report.output.statistics import render as table

        table(SimpleNamespace(findings=run.remaining), sys.stderr if err or diff else sys.stdout)  # type: ignore[arg-type]
    for f in [] if statistics else run.remaining:  # names and messages from the scanned tree: no raw escapes
        echo(f"{printable(f.location)}: {f.rule} {printable(short(f.message))}", err=err or diff)
    for path, message in run.errors:
        echo(f"{printable(path)}: error: {printable(message)}", err=True)
    if show_fixes:
        for path, counts in run.per_file:
            echo(
                f"{'Would fix' if diff else 'Fixed'} {path}: "
                + ", ".join(f"{c} x{n}" for c, n in sorted(counts.items())),
                err=diff or err,
            )
    if not quiet:
        for line in run.summary():
            echo(line, err=diff or err)
    return run.exit_code(exit_zero)


def fix_stdin(
    project,
    path: str,
    data: bytes,
    excluded: bool,
    *,
    diff: bool,
    show_fixes: bool,
    quiet: bool,
    exit_zero: bool,
    statistics: bool = False,
) -> int:
    """`advisor fix - --stdin-filename P` (Ruff's `check --fix -`): the fixed text on stdout (or, with --diff, the
    diff), the findings left and the summary on stderr; the exit code. An excluded P comes back unchanged."""
    from advisor.fix.fixer import FixOutcome
    from advisor.fix.fixrun import FixRun, fix_text

    run, fixed = (FixRun(diff=diff), data) if excluded else fix_text(project, path, data)
    run.diff = diff
    if diff:
        sys.stdout.buffer.write(FixOutcome(path, data, fixed).diff_bytes())
    else:
        sys.stdout.buffer.write(fixed)
    sys.stdout.flush()
    shown = {"diff": diff, "show_fixes": show_fixes, "quiet": quiet, "exit_zero": exit_zero, "statistics": statistics}
    return print_fix_run(run, **shown, err=True)


def write_scan_report(report: str, setup, result: ScanResult) -> None:
    """`scan --report DIR`: report.md, report.html and the validation scripts; report-only notes then leave `result`."""
    from advisor.report.render import write_report
    from advisor.run.postprocess import drop_report_only

    meta = {
        "target": setup.target,
        "target_source": setup.target_source,
        "files": result.files_scanned,
        "report_dir": report,
        "min_torch": setup.lowest,
        "min_torch_source": setup.lowest_source,
        "device": setup.device_context.to_json(),
        "docs_url": setup.settings.docs_url,
    }
    write_report(report, result.findings, [e.to_json() for e in result.errors], meta)
    echo(f"advisor: report written to {os.path.join(report, 'report.html')}", err=True)
    # Report-only notes (dynamic access) belong to the report, not to the exit status or the listing.
    drop_report_only(result, setup.listed)


def rules_listing(format: str, target_version: Optional[str]) -> str:
    """`advisor rules`: the catalogue as a table, JSON or the README's markdown (only what applies to a target)."""
    from advisor.analysis.registry import all_rules  # lazy: a scan reads the rule index, not the rules

    catalogue = all_rules()
    if target_version is not None:
        from advisor.core import policy
        from advisor.core.versions import normalise, parse_version

        try:
            target = parse_version(normalise(target_version))
        except ValueError as e:
            raise fail(str(e))
        kinds = {
            r.code: policy.rule_kind(
                [policy.torch_window(w, r.library) for w in r.windows()], r.kind, r.severity, target
            )
            for r in catalogue
        }
        catalogue = tuple(r for r in catalogue if kinds[r.code] is not None and r.default_enabled)
    rows = [r.metadata() for r in catalogue]
    columns: tuple[str, ...] = ("code", "name", "severity", "since", "fix", "validation", "opt-in")
    if target_version is not None:
        for row in rows:
            kind = kinds[row["code"]]
            assert kind is not None  # the catalogue was filtered on it
            row["kind"] = kind.value
            row["severity"] = policy.severity_for(kind, Severity(row["severity"])).value
        columns = ("code", "name", "kind", "severity", "since", "fix", "validation", "opt-in")
    if format == "json":
        import json

        return json.dumps(rows, indent=2)
    if format == "markdown":
        from advisor.report.output.markdown_rules import rules_table

        return rules_table(catalogue)
    if format != "table":
        raise fail(f"unknown --format {format!r} (expected table, json or markdown)")
    header = columns
    cells = [
        {**r, "opt-in": "yes" if r["opt_in"] else "-"} for r in rows
    ]  # off unless --select / --extend-select names it
    table = [header] + [tuple(str(r[k] if r[k] is not None else "-") for k in columns) for r in cells]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table)


def print_audit_summary(result: dict, out: str) -> int:
    """The audit's one-line summary, then why it exits 1: each failed repository and each file not analysed."""
    t, run = result["totals"], result["run"]
    echo(
        f"Audited {t['repositories']} repositories ({run['files']} files) in {run['seconds']:.1f} s: {t['blocked']} blocked, "
        f"{t['failed']} failed, {t['findings']} findings, {100 * t['safe_share']:.0f}% with a safe fix "
        f"({100 * t['auto_fixable_share']:.0f}% with unsafe ones too). "
        f"Dashboard: {os.path.join(out, 'audit.html')}"
    )
    # Exit 1 says why: each failed repository, and each file that could not be analysed.
    for r in result["repositories"]:
        if r["status"] == "failed":
            echo(printable(f"{r['name']}: error: {r['error']}"), err=True)
        for e in r["errors"]:  # paths and messages from the audited trees: no raw terminal escapes
            echo(printable(f"{r['name']}: {e['path']}: error: {e['message']}"), err=True)
    bad = t["failed"] + sum(bool(r["errors"]) for r in result["repositories"])
    if bad:
        echo(
            f"advisor: exit 1: {t['failed']} repositories failed, {bad - t['failed']} have files that could not be analysed",
            err=True,
        )
    return 1 if bad else 0


def emit_scan(
    setup,
    result: ScanResult,
    output_format: str,
    output: Optional[str],
    report: Optional[str],
    stdin: Optional[bytes],
    *,
    statistics: bool,
    quiet: bool,
) -> None:
    """`scan`'s outputs: the report folder (--report), then the findings in their format, on stdout or in -o FILE."""
    if report:
        try:
            write_scan_report(report, setup, result)
        except OSError as e:  # advisor.core.atomic.LinkError: a folder that is a link
            raise fail(f"cannot write the report: {e}")
    buffer = io.StringIO()  # -o FILE: written whole, atomically, never through a link
    stream = buffer if output else sys.stdout
    source = (lambda _path: split_lines(stdin.decode("utf-8", "replace"))) if stdin is not None else None
    render(output_format, result, stream, setup, statistics=statistics, quiet=quiet, source=source)
    if output:
        try:
            write_output(output, buffer.getvalue())
        except OSError as e:
            raise fail(f"cannot write {output}: {e.strerror or e}")


def save_baseline(path: str, result: ScanResult, root: str) -> None:
    """`scan --write-baseline PATH`: the findings recorded, and one line that says how many."""
    from advisor.run.baseline import write_baseline  # lazy: JSON and hashes, for this flag only

    count = write_baseline(path, result.findings, root)
    echo(f"advisor: wrote {count} findings to the baseline {path}", err=True)
