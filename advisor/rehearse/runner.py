"""Run the project's tests in a child process with the hook installed, and collect what it recorded.

The child gets a private folder first on its PYTHONPATH: `sitecustomize.py` (a shim that starts
`advisor_rehearse_hook` and then the environment's own sitecustomize, if any) and the pytest plugin.
It runs in its own session, so a timeout or Ctrl-C ends the whole process group, workers included; the
folder (hook, records, log) is removed whatever happens. advisor itself never imports torch.
"""

from __future__ import annotations

import glob
import json
import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGIN = "advisor_rehearse_plugin"
DEFAULT_TIMEOUT = 3600
GRACE = 5.0  # seconds between SIGTERM and SIGKILL for the tests' process group
PYTEST_NO_TESTS = 5  # pytest's exit code when it collected nothing
PYTEST_NOT_STARTED = {3: "pytest's internal error", 4: "pytest's usage error"}

# Runs at interpreter start in every Python process of the tests (PYTHONPATH); then hands over to
# the environment's own sitecustomize, which ours hides by coming first on the path.
SHIM = '''"""advisor rehearse: start the hook, then the environment's own sitecustomize."""
import importlib.machinery, importlib.util, os, sys

try:
    import advisor_rehearse_hook

    advisor_rehearse_hook.start()
except Exception as _error:  # the tests run as they would without advisor; the run says no hook loaded
    sys.stderr.write(f"advisor rehearse: the hook did not start: {_error!r}\\n")
_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.machinery.PathFinder.find_spec(
    "sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != _here]
)
if _spec is not None and _spec.loader is not None:
    _module = importlib.util.module_from_spec(_spec)
    sys.modules["sitecustomize"] = _module
    _spec.loader.exec_module(_module)
'''


class RehearseError(Exception):
    """The tests could not be run (exit 2): the message says with which interpreter and what failed."""


@dataclass
class Run:
    """What the child processes recorded."""

    command: list[str]
    exit_code: int
    events: list[dict] = field(default_factory=list)
    processes: int = 0  # how many processes the hook started in
    torch: str | None = None
    last_line: str = ""  # the tests' last line of output (pytest's summary)


def command_for(python: str, command: str | None) -> list[str]:
    """The tests' command: `python -m pytest` (without its cache folder), or the user's, split as a shell would."""
    if command is None:
        return [python, "-m", "pytest", "-p", "no:cacheprovider"]
    try:
        words = shlex.split(command)
    except ValueError as e:
        raise RehearseError(f"--command {command!r}: {e}") from None
    if not words:
        raise RehearseError("--command is empty")
    return words


def _prepare(folder: str, lines: dict[str, list[int]]) -> str:
    hook_dir = os.path.join(folder, "hook")
    os.makedirs(os.path.join(folder, "out"))
    os.makedirs(hook_dir)
    shutil.copyfile(os.path.join(HERE, "hook.py"), os.path.join(hook_dir, "advisor_rehearse_hook.py"))
    shutil.copyfile(os.path.join(HERE, "pytest_plugin.py"), os.path.join(hook_dir, f"{PLUGIN}.py"))
    with open(os.path.join(hook_dir, "sitecustomize.py"), "w", encoding="utf-8") as f:
        f.write(SHIM)
    with open(os.path.join(folder, "lines.json"), "w", encoding="utf-8") as f:
        json.dump(lines, f)
    return hook_dir


def _environment(python: str, root: str, folder: str, hook_dir: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (hook_dir, env.get("PYTHONPATH")) if p)
    env["PYTEST_PLUGINS"] = ",".join(p for p in (env.get("PYTEST_PLUGINS"), PLUGIN) if p)
    # `python` in a --command is the chosen interpreter: its folder comes first on PATH.
    env["PATH"] = os.pathsep.join(p for p in (os.path.dirname(os.path.abspath(python)), env.get("PATH")) if p)
    env["ADVISOR_REHEARSE_OUT"] = os.path.join(folder, "out")
    env["ADVISOR_REHEARSE_ROOT"] = root
    env["ADVISOR_REHEARSE_LINES"] = os.path.join(folder, "lines.json")
    return env


def stop_group(proc: subprocess.Popen) -> None:
    """End every process of the tests' session: SIGTERM, then SIGKILL to what is left after GRACE seconds."""
    if not hasattr(os, "killpg"):  # Windows: no process groups to signal; the tests' own process only
        proc.kill()
        proc.wait()
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return  # nothing left in the session
    for then in (signal.SIGKILL, None):
        try:
            proc.wait(GRACE)
        except subprocess.TimeoutExpired:
            pass
        if then is not None:
            try:
                os.killpg(proc.pid, then)
            except (ProcessLookupError, PermissionError):
                return


def run_tests(
    python: str, root: str, command: str | None, lines: dict[str, list[int]], timeout: float | None = None
) -> Run:
    """Run the tests in `root` with the hook; RehearseError when they could not be started or hung."""
    argv = command_for(python, command)
    timeout = timeout or DEFAULT_TIMEOUT
    with tempfile.TemporaryDirectory(prefix="advisor-rehearse-") as folder:
        hook_dir = _prepare(folder, lines)
        log_path = os.path.join(folder, "tests.log")
        with open(log_path, "wb") as log:
            try:
                proc = subprocess.Popen(
                    argv,
                    cwd=root,
                    env=_environment(python, root, folder, hook_dir),
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # its own process group: one signal ends all of it
                )
            except OSError as e:
                raise RehearseError(f"cannot start {shlex.join(argv)} in {root}: {e.strerror or e}") from None
            try:
                code = proc.wait(timeout)
            except subprocess.TimeoutExpired:
                stop_group(proc)
                raise RehearseError(
                    f"the tests ({shlex.join(argv)}) did not finish in {timeout:g} s; they were stopped (--timeout)"
                ) from None
            except BaseException:  # Ctrl-C: the tests go with advisor, then the folder is removed
                stop_group(proc)
                raise
            stop_group(proc)  # what the tests left running in their session
        return _collect(argv, code, folder, log_path)


def _collect(argv: list[str], code: int, folder: str, log_path: str) -> Run:
    run = Run(argv, code)
    for path in sorted(glob.glob(os.path.join(folder, "out", "*.jsonl"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue  # the last line of a process killed while writing it
                run.events.append(event)
                run.processes += event.get("event") == "start"
                if event.get("event") == "torch":
                    run.torch = event.get("version")
    with open(log_path, encoding="utf-8", errors="replace") as f:
        tail = [line.strip() for line in f.readlines()[-40:] if line.strip()]
    run.last_line = tail[-1] if tail else ""
    _check_started(run, tail)
    return run


def _check_started(run: Run, tail: list[str]) -> None:
    """RehearseError when the tests did not really run: no tests, pytest missing or failing to start, no hook."""
    shown = shlex.join(run.command)
    said = "; ".join(tail[-3:])[:600] or "no output"
    if any("No module named pytest" in line for line in tail):
        raise RehearseError(f"{run.command[0]} has no pytest ({said}); install it there, or pass --command")
    if run.command[1:3] == ["-m", "pytest"]:
        if run.exit_code == PYTEST_NO_TESTS:
            raise RehearseError(f"no tests found: `{shown}` collected nothing ({said})")
        if run.exit_code in PYTEST_NOT_STARTED:
            raise RehearseError(f"`{shown}` could not run the tests ({PYTEST_NOT_STARTED[run.exit_code]}: {said})")
    if run.processes == 0:
        raise RehearseError(
            f"`{shown}` exited {run.exit_code} and no Python process of it loaded advisor's hook "
            f"(not Python, or run with -I/-S?), so nothing could be recorded ({said})"
        )
