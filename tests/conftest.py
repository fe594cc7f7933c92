import contextlib
import multiprocessing
import os
import subprocess
import sys
import traceback

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Variables the CLI reads when a module is imported, or that only a new interpreter honours: a call
# that sets one runs in a real process (the in-process CLI would silently ignore it).
PROCESS_ONLY_ENV = frozenset({"PYTHONPATH", "PYTHONHASHSEED", "PYTHONSAFEPATH", "ADVISOR_MAX_FILE_MB"})


def run_process(*args, cwd=None, env=None, input=None, binary=False):
    """Run the real `advisor` CLI in a subprocess, as a user would; `input`: the text piped to its stdin
    (bytes, and bytes out, with `binary`). For what only a process shows: start-up, signals, interrupts,
    isolation, the exit of the interpreter."""
    full_env = {**os.environ, "NO_COLOR": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=not binary,
        timeout=600,
        input=input,
    )


@contextlib.contextmanager
def _inside(cwd):
    before = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(before)


def run_cli(*args, cwd=None, env=None, input=None, binary=False):
    """Run the `advisor` CLI in this process with Typer's CliRunner: the same arguments, exit code, stdout and
    stderr as `run_process`, about 1 s less per call. What `advisor.__main__` adds around the app is kept:
    an exception of ours is exit 2 with "internal error" on stderr. The working directory and the environment
    are restored afterwards, and no worker process may be left running."""
    if env and PROCESS_ONLY_ENV & set(env):
        return run_process(*args, cwd=cwd, env=env, input=input, binary=binary)
    from typer.testing import CliRunner

    from advisor.cli import app
    from advisor.core import machine_key

    machine_key._cached = None  # a process reads its key once; each run here must find it as a new process would

    try:  # fd capture (Click 8.3+): what a child process (validate's scripts) writes is caught as a shell would
        runner = CliRunner(capture="fd")
    except TypeError:
        runner = CliRunner()
    with _inside(cwd):
        result = runner.invoke(
            app,
            list(args),
            input=input,
            env={"NO_COLOR": "1", **(env or {})},
            prog_name="advisor",
            catch_exceptions=True,
        )
    left = multiprocessing.active_children()
    assert not left, f"advisor {' '.join(args)} left worker processes running: {left}"
    code, out, err = result.exit_code, result.stdout_bytes, result.stderr_bytes
    exc = result.exception
    if exc is not None and not isinstance(exc, SystemExit):  # a bug of ours, as advisor.cli.main reports it
        trace = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        code, err = 2, err + f"{trace}advisor: internal error: {type(exc).__name__}: {exc}\n".encode()
    if not binary:  # decoded as subprocess.run(text=True) does: universal newlines
        out, err = (_text(b) for b in (out, err))
    return subprocess.CompletedProcess(["advisor", *args], code, out, err)


def _text(data: bytes) -> str:
    return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


@pytest.fixture
def cli():
    return run_cli


@pytest.fixture
def cli_process():
    return run_process
