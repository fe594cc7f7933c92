import contextlib
import multiprocessing
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

import pytest

# The repository and the fixture projects, for tests at any depth under tests/ (they mirror the packages).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = Path(ROOT)
FIXTURES = os.path.join(ROOT, "tests", "fixtures")

if os.environ.get("ADVISOR_TESTS_WITHOUT_TORCH"):
    # The suite as a venv without torch runs it: `import torch` fails in this process (subprocesses still find
    # it), so every torch test skips and every other one must pass. docs/architecture.md#tests
    for _name in ("torch", "torchvision", "torchaudio"):
        sys.modules[_name] = None  # type: ignore[assignment]

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


# Caches for the life of a process that hold nothing a new process would see differently: the rules.
KEPT_CACHES = frozenset({"advisor.analysis.registry"})


def _forget_what_a_process_remembers():
    """Each in-process run starts as a new process would: the machine key unread, and no per-directory
    answer (a pyproject.toml's lazy-import helpers, isort settings, style) remembered from an earlier run."""
    from advisor.core import machine_key

    machine_key._cached = None
    for name, module in list(sys.modules.items()):
        if name.startswith("advisor.") and name not in KEPT_CACHES:
            for value in list(vars(module).values()):
                if getattr(value, "__module__", None) == name and callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def _no_new_children(before, what, grace=5.0):
    """Fail when a child process started since `before` is still running `grace` seconds later."""
    deadline = time.monotonic() + grace
    left = [p for p in multiprocessing.active_children() if p not in before]
    for p in left:
        p.join(max(0.0, deadline - time.monotonic()))
    left = [p for p in multiprocessing.active_children() if p not in before]
    assert not left, f"{what} left worker processes running: {left}"


def run_cli(*args, cwd=None, env=None, input=None, binary=False):
    """Run the `advisor` CLI in this process with Typer's CliRunner: the same arguments, exit code, stdout and
    stderr as `run_process`, about 1 s less per call. What `advisor.__main__` adds around the app is kept:
    an exception of ours is exit 2 with "internal error" on stderr. The working directory and the environment
    are restored afterwards, and no worker process may be left running."""
    if env and PROCESS_ONLY_ENV & set(env):
        return run_process(*args, cwd=cwd, env=env, input=input, binary=binary)
    from typer.testing import CliRunner

    from advisor.cli import app

    _forget_what_a_process_remembers()
    before = set(multiprocessing.active_children())

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
    _no_new_children(before, f"advisor {' '.join(args)}")
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


@pytest.fixture(autouse=True)
def no_worker_outlives_a_test(request):
    """Every test: the worker processes it started (pools, Dask workers) have ended when it ends."""
    before = set(multiprocessing.active_children())
    yield
    _no_new_children(before, request.node.nodeid)
