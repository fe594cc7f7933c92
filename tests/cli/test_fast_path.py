"""`advisor scan` read without Typer (advisor.cli_fast) means what Typer reads, flag by flag, and imports no Typer.

The fast reader and the Typer command are made from the same declarations (advisor.cli_options, through the
signature of advisor.cli_scan.scan); these tests hold the two readings equal for every scan flag, and check
that what the fast reader does not know is left to Typer.
"""

import inspect
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from advisor import cli
from advisor.cli_fast import FLAG, MANY, command_line, read
from advisor.cli_scan import scan

OPTIONS, POSITIONAL, DEFAULTS = command_line(scan)


def typer_reading(monkeypatch, args):
    """The keyword arguments the real app's `scan` is called with for `advisor scan ARGS`, or the exit code."""
    (info,) = [c for c in cli.app.registered_commands if c.callback.__name__ == "scan"]
    seen = []

    def record(**kwargs):
        seen.append(kwargs)

    record.__name__, record.__signature__ = "scan", inspect.signature(info.callback)
    record.__annotations__ = info.callback.__annotations__
    monkeypatch.setattr(info, "callback", record)
    result = CliRunner().invoke(cli.app, ["scan", *args])
    return seen[0] if seen else result.exit_code


def sample(name, kind, convert):
    """Command lines that give option `name` a value, in each spelling Click accepts and the fast reader reads."""
    if kind == FLAG:
        return [[name]]
    value = "3" if convert is int else "v1"
    if kind == MANY:
        return [[name, value], [name, "a", name, "b,c"]] + ([[f"{name}=x"]] if name.startswith("--") else [])
    lines = [[name, value], [name, "2" if convert is int else "first", name, value]]
    if name.startswith("--"):
        lines.append([f"{name}={value}"])
    return lines + ([[f"{name}=", "p.py"]] if name.startswith("--") and convert is str else [])


CASES = [line for name, (_, kind, convert) in sorted(OPTIONS.items()) for line in sample(name, kind, convert)]


def test_every_scan_option_of_the_typer_command_is_read_by_the_fast_reader():
    from typer.main import get_command

    command = get_command(cli.only_command(cli.app, ["scan"])).commands["scan"]
    typer_names = {n for p in command.params if p.param_type_name == "option" for n in p.opts + p.secondary_opts}
    assert set(OPTIONS) == typer_names - {"-h", "--help"}
    assert POSITIONAL == "paths" and [p.name for p in command.params if p.param_type_name == "argument"] == ["paths"]


def test_nothing_given_reads_as_typer_reads_it(monkeypatch):
    assert read(scan, []) == typer_reading(monkeypatch, []) == {**DEFAULTS, "paths": None}


@pytest.mark.parametrize("args", CASES, ids=" ".join)
def test_each_flag_means_what_typer_makes_of_it(monkeypatch, args):
    for line in (args, ["src", *args], [*args, "a.py", "-"]):  # paths before, after and around
        fast = read(scan, line)
        assert fast is not None, line
        assert fast == typer_reading(monkeypatch, line), line


def test_every_flag_at_once(monkeypatch):
    line = [arg for args in CASES[::2] for arg in args] + ["x.py", "y.py"]
    assert read(scan, line) == typer_reading(monkeypatch, line)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-h"],
        ["x.py", "--bogus"],
        ["--", "x.py"],
        ["-qj1"],
        ["-j1"],
        ["--no-cache=1"],
        ["-j", "x"],
        ["--jobs=x"],
        ["--select"],
        ["--select", "--ignore", "ADV1"],
        ["--version"],
        ["--targe", "2.12"],  # Click has no abbreviations: an error there, and so here
    ],
    ids=" ".join,
)
def test_what_the_fast_reader_does_not_read_is_left_to_typer(args):
    assert read(scan, args) is None  # advisor.__main__ then runs Typer, which reads it (or says why not)


def _run(tmp_path, *args, importtime=False):
    env = {**os.environ, "NO_COLOR": "1"}
    flags = ["-X", "importtime"] if importtime else []
    return subprocess.run(
        [sys.executable, *flags, "-m", "advisor", *args], capture_output=True, text=True, cwd=tmp_path, env=env
    )


def _imported(stderr):
    return {line.rsplit("|", 1)[-1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_a_clean_file_scan_imports_no_typer_click_or_rich(tmp_path):
    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(3)\n")
    proc = _run(tmp_path, "scan", "clean.py", "--no-cache", importtime=True)
    assert proc.returncode == 0, proc.stderr
    assert "Found 0 findings in 1 file." in proc.stdout
    modules = _imported(proc.stderr)
    assert "advisor.cli_scan" in modules
    assert not [m for m in modules if m.split(".")[0] in ("typer", "click", "rich")]


def test_help_and_errors_still_come_from_typer(tmp_path):
    help_run = _run(tmp_path, "scan", "--help", importtime=True)
    assert help_run.returncode == 0 and "--target-version" in help_run.stdout
    assert "typer" in _imported(help_run.stderr)
    wrong = _run(tmp_path, "scan", ".", "--jobs", "many")
    assert wrong.returncode == 2 and "'many' is not a valid int" in wrong.stderr


def test_echo_writes_what_typer_echo_writes(capsys):
    import typer

    from advisor.cli_show import echo

    for message, err, nl in [("plain", True, True), ("\x1b[31mred\x1b[0m and more", False, True), ("", True, False)]:
        typer.echo(message, err=err, nl=nl)
        theirs = capsys.readouterr()
        echo(message, err=err, nl=nl)
        assert capsys.readouterr() == theirs
