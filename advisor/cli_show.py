"""`scan`'s flags checked before anything is loaded, and `--show-settings` / `--show-files`: what a run would use
and read, as Ruff shows them (nothing is scanned); `validate`'s device probe and exit status; `echo` and `fail`,
which the commands print and stop with, Typer or not (advisor.cli_fast runs `scan` without it)."""

from __future__ import annotations

import codecs
import re
import sys
from typing import Any, List, Optional

from advisor.cli_options import FORMATS
from advisor.report.output.printable import printable

_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # Click's: the codes `echo` strips when not writing to a terminal


def echo(message: str = "", err: bool = False, nl: bool = True) -> None:
    """Print a line as `typer.echo` (Click's `echo`) does: to stdout or stderr, flushed, colour codes stripped
    unless the stream is a terminal."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:  # no stream attached (pythonw)
        return
    out = message + "\n" if nl else message
    if not out:
        stream.flush()
        return
    try:
        tty = stream.isatty()
    except Exception:
        tty = False
    out = out if tty else _ANSI.sub("", out)
    if _ascii(stream) and getattr(stream, "buffer", None) is not None:
        # Click writes UTF-8 to a stream set to ASCII (PYTHONIOENCODING=ascii), what it cannot encode as "?".
        stream.flush()
        stream.buffer.write(out.encode("utf-8", "replace"))
        stream.buffer.flush()
        return
    stream.write(out)
    stream.flush()


def _ascii(stream: Any) -> bool:
    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def fail(message: str) -> SystemExit:
    echo(f"advisor: error: {message}", err=True)
    return SystemExit(2)


def check_scan_flags(fix_flag: bool, output_format: str) -> None:
    if fix_flag:  # Ruff's `check --fix`
        raise fail(
            "`scan` only reports; fixes are `advisor fix` (add --diff to preview them, --unsafe-fixes for the rest)"
        )
    if output_format not in FORMATS:
        raise fail(f"unknown --output-format {output_format!r} (expected {', '.join(FORMATS)})")


def default_paths(paths: Optional[List[str]], stdin_filename: Optional[str]) -> List[str]:
    return list(paths) if paths else ["-"] if stdin_filename else ["."]  # --stdin-filename alone: stdin, as in Ruff


def settings_lines(project: Any) -> list[str]:
    """Which config, target, lowest torch, companions, device and rules a scan uses, each with where it came from."""
    settings = project.settings
    rules = sorted(r.code for r in project.rules)
    lines = [
        f"config: {settings.config_path or 'none (no [tool.advisor] found)'}",
        f"project root: {project.root}",
        f"target torch: {project.target} ({project.target_source})",
        f"lowest supported torch: {project.lowest} ({project.lowest_source})",
    ]
    lines += [f"target {lib}: {v}" for lib, v in project.companion_targets.items()]
    lines += [
        f"device: {settings.device or 'detected from ROCm markers'}",
        f"rules: {len(rules)} ({', '.join(rules[:8])}{', ...' if len(rules) > 8 else ''})",
        f"fail-on: {', '.join(settings.fail_on)}",
        f"exclude: {', '.join([*settings.exclude, *settings.extend_exclude]) or '-'}",
        f"per-file-ignores: {dict(settings.per_file_ignores) or '-'}",
        f"files: {len(project.files)} Python and notebooks, {len(project.text_files)} other (pyproject.toml, shell, Docker)",
    ]
    return lines


def show(project: Any, settings: bool) -> int:
    """Print the settings (`settings`) or the files a scan would read, one per line; the exit code (0)."""
    lines = settings_lines(project) if settings else sorted([*project.files, *project.text_files])
    for line in lines:
        echo(printable(line))
    return 0


def probe_device(python: Optional[str], device: str, timeout: int = 300) -> None:
    """`validate --device cuda|xpu`: InterpreterError unless `python`'s torch sees that device. Without one every
    script would only SKIP, and the run would overwrite earlier results while checking nothing."""
    import subprocess  # here: a scan never needs it

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
            # -I: a `torch/` or `sitecustomize.py` in the current folder (a checkout under test) is never imported
            [python, "-I", "-c", code, device],
            capture_output=True,
            text=True,
            timeout=timeout,
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
        echo("advisor: exit 1: no check ran here (every one was SKIPped), so nothing was validated", err=True)
        return 1
    return 0
