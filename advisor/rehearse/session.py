"""`advisor rehearse`: the upgrade rehearsed on the project's own tests, set against the static scan.

This is one of the two places advisor runs the project's code (with `validate`), and only on this
explicit command. advisor's own process never imports torch: the tests run in a child (advisor.rehearse.runner).
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
from dataclasses import dataclass
from typing import Any, Callable

from advisor import __version__
from advisor.core.atomic import write_output
from advisor.core.findings import Finding
from advisor.core.versions import parse_version
from advisor.rehearse.records import Outcome, Record, aggregate, baseline_keys, finding_lines, match
from advisor.rehearse.runner import Run, RehearseError, run_tests
from advisor.report.output.printable import printable

TEXT_MESSAGE = 240  # characters of a warning shown in text output (JSON has it whole)


@dataclass(frozen=True)
class Request:
    root: str
    python: str | None = None
    command: str | None = None
    timeout: float | None = None
    output_format: str = "text"
    output: str | None = None
    report: str | None = None
    baseline_python: str | None = None  # an interpreter with the project's lowest torch: the same tests run there too


def _absolute_python(python: str) -> str:
    """Absolute: the tests run from the project's folder, and the interpreter's folder goes first on their PATH."""
    return os.path.abspath(python) if os.sep in python else (shutil.which(python) or python)


def interpreter_for(request: Request, target: str, companions: dict[str, str], cache: str, say) -> tuple[str, str]:
    """(interpreter, its torch): --python, checked for torch; else the cached environment with the target torch."""
    from advisor.report.validation import InterpreterError, probe_torch

    python = request.python
    if python is not None:
        python = _absolute_python(python)
    else:
        from advisor.rehearse.environment import ensure

        python = ensure(request.root, cache, target, companions, say)
    try:
        version = probe_torch(python)
    except InterpreterError as e:
        raise RehearseError(str(e)) from None
    if version.split("+")[0].split(".")[:2] != target.split(".")[:2]:
        say(f"advisor: note: {python} has torch {version}, the target is {target}")
    return python, version


def baseline_interpreter(request: Request, target: str, say) -> tuple[str, str] | None:
    """(interpreter, its torch) for --baseline-python, checked for torch before any test runs; None without it."""
    from advisor.report.validation import InterpreterError, probe_torch

    if request.baseline_python is None:
        return None
    python = _absolute_python(request.baseline_python)
    try:
        version = probe_torch(python, option="--baseline-python", wanted="the project's lowest")
    except InterpreterError as e:
        raise RehearseError(str(e)) from None
    try:
        older = parse_version(version) < parse_version(target)
    except ValueError:
        older = True  # a version that says nothing: no note
    if not older:
        say(f"advisor: note: the baseline {python} has torch {version}, not older than the target {target}")
    return python, version


def _run_baseline(request: Request, baseline: tuple[str, str], say) -> tuple[Run, set[tuple]]:
    """The same tests on the baseline torch, without coverage: what they record there is not the upgrade's."""
    python, version = baseline
    say(f"advisor: running the same tests with the baseline {python} (torch {version}): this runs the code again")
    try:
        run = run_tests(python, request.root, request.command, {}, request.timeout)
    except RehearseError as e:
        raise RehearseError(f"the baseline run (--baseline-python {python}): {e}") from None
    run.torch = run.torch or version
    return run, baseline_keys(run.events, request.root)


def rehearse(
    request: Request,
    findings: list[Finding],
    target: str,
    companions: dict[str, str],
    cache: str,
    say: Callable[[str], None],
    emit: Callable[[str], None],
) -> int:
    """Run the tests, tie what torch said to the findings, write the output; the exit code (0 or 1)."""
    python, version = interpreter_for(request, target, companions, cache, say)
    baseline = baseline_interpreter(request, target, say)
    say(f"advisor: running the project's tests in {request.root} with {python}: this runs the project's code")
    run = run_tests(python, request.root, request.command, finding_lines(findings, request.root), request.timeout)
    run.torch = run.torch or version
    base_run, seen_before = _run_baseline(request, baseline, say) if baseline else (None, None)
    records, hits = aggregate(run.events, request.root)
    outcome = match(records, hits, findings, request.root, seen_before)
    document = to_document(run, outcome, python, target, (baseline[0], base_run) if baseline and base_run else None)
    if request.output_format == "json":
        text = json.dumps(document, indent=1) + "\n"
    else:
        text = format_text(run, outcome, python, base_run)
    if request.output:
        write_output(request.output, text)
        say(f"advisor: records written to {request.output}")
    else:
        emit(text)
    if request.report:
        from advisor.report.render import add_runtime

        add_runtime(request.report, document)
        say(f"advisor: 'Seen at run time' added to {os.path.join(request.report, 'report.html')}")
    return 1 if outcome.at_project_sites else 0


def to_document(run: Run, outcome: Outcome, python: str, target: str, baseline: tuple[str, Run] | None = None) -> dict:
    document: dict[str, Any] = {
        "version": __version__,
        "target": target,
        "python": python,
        "torch": run.torch,
        "command": shlex.join(run.command),
        "tests_exit": run.exit_code,
        "summary": outcome.counts(),
        "records": [r.to_json() for r in outcome.records],
        "silent": [
            {"path": f.path, "line": f.line, "rule": f.rule, "kind": f.kind, "message": f.message}
            for f in outcome.silent
        ],
    }
    if baseline is not None:
        document["baseline"] = {
            "python": baseline[0],
            "torch": baseline[1].torch,
            "command": shlex.join(baseline[1].command),
            "tests_exit": baseline[1].exit_code,
        }
    return document


def _short(text: str) -> str:
    text = printable(text)
    return text if len(text) <= TEXT_MESSAGE else text[: TEXT_MESSAGE - 1] + "…"


def _line(r: Record) -> str:
    where = f"{r.path}:{r.line}" if r.path else "(no project frame)"
    status = f"confirmed {r.rule}" if r.status == "confirmed" else r.status
    notes = [f"{r.count}x"] if r.count > 1 else []
    if r.once:
        notes.append("once in the run: torch may give it once per process")
    if r.kind == "error":
        notes.append("error")
    extra = f" ({'; '.join(notes)})" if notes else ""
    return f"{printable(where)}: [{status}] {printable(r.category)}: {_short(r.message)}{extra}"


def format_text(run: Run, outcome: Outcome, python: str, baseline: Run | None = None) -> str:
    lines = [_line(r) for r in outcome.records]
    lines += [
        f"{printable(f.path)}:{f.line}: [silent {f.rule}] reached by the tests, no torch warning there: {_short(f.message)}"
        for f in outcome.silent
    ]
    c = outcome.counts()
    site_count = c["confirmed"] + c["missed"]
    lines.append(
        f"{site_count} torch warning{'s' if site_count != 1 else ''} at project call sites: "
        f"{c['confirmed']} confirmed by a finding, {c['missed']} missed by every rule"
        + (f", {c['pre-existing']} given on the baseline torch too (pre-existing)" if c["pre-existing"] else "")
        + (f", {c['diagnostic']} tracer diagnostic{'s' if c['diagnostic'] != 1 else ''}" if c["diagnostic"] else "")
        + (f", {c['internal']} internal to torch's own imports" if c["internal"] else "")
        + (f", {c['outside']} with no project frame" if c["outside"] else "")
        + f"; {c['silent']} finding{'s' if c['silent'] != 1 else ''} reached and silent. "
        f"Tests: `{printable(shlex.join(run.command))}` exited {run.exit_code}"
        + (f" ({printable(run.last_line)[:160]})" if run.last_line else "")
        + f", torch {run.torch}."
        + (f" Baseline: torch {baseline.torch}, exited {baseline.exit_code}." if baseline else "")
    )
    return "\n".join(lines) + "\n"
