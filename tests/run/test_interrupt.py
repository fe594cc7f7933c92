"""Ctrl-C on a real `advisor` process: exit 130, one line on stderr, no traceback, no worker left.

Each run is its own session (start_new_session), so its process group is its pid: a group
signal is what a terminal's Ctrl-C does, and an empty group afterwards means no worker
survived. The tree is torch's own source (from the installed wheel), copied so that
discovery does not skip it as part of a virtual environment.
"""

from __future__ import annotations

import importlib.util
import os
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc to find the run's processes")

EXIT_WITHIN = 10  # seconds; generous on a loaded machine (it takes well under 1 s unloaded)


def _group(pgid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry))
    return found


@pytest.fixture(scope="module")
def big_tree(tmp_path_factory):
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("torch is not installed: no large tree to scan")
    src = spec.submodule_search_locations[0]
    dst = tmp_path_factory.mktemp("torch-tree")
    count = 0
    for root, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                rel = os.path.relpath(os.path.join(root, name), src)
                os.makedirs(dst / os.path.dirname(rel), exist_ok=True)
                shutil.copyfile(os.path.join(src, rel), dst / rel)
                count += 1
    assert count > 1000
    return dst


def _start(args, cwd, stdout=subprocess.DEVNULL):
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def _send(proc, group: bool) -> None:
    if group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        proc.send_signal(signal.SIGINT)


def _wait_for_workers(proc, timeout=120.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before its workers started"
        if len(_group(proc.pid)) > 1:
            return
        time.sleep(0.02)
    pytest.fail("no worker process started")


def _check_ended(proc, sent_at: float, stdout_pipe: bool = False) -> str:
    try:
        out, err = proc.communicate(timeout=EXIT_WITHIN)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"still running {EXIT_WITHIN} s after the interrupt")
    took = time.monotonic() - sent_at
    err = err.decode()
    print(f"exited {proc.returncode} after {took:.2f} s; stderr {err!r}")
    assert proc.returncode == 130, (proc.returncode, err)
    assert "Traceback" not in err and len(err.splitlines()) == 1 and "interrupted" in err, err
    deadline = time.monotonic() + 5
    while _group(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _group(proc.pid), "a worker process outlived the run"
    return err


# (moment, group signal?, seconds between two signals or None for one)
CASES = [
    ("start", False, None),  # the CLI's own imports and discovery
    ("start", True, None),
    ("pool", False, None),  # the workers have just been forked
    ("pool", True, None),
    ("mid", False, None),
    ("mid", True, None),
    ("mid", False, 0.05),  # Ctrl-C twice, fast
    ("mid", True, 0.5),
    ("pool", True, 0.0),
]


@pytest.mark.parametrize(
    "moment,group,again",
    CASES,
    ids=[f"{m}-{'group' if g else 'main'}-{'twice' if a is not None else 'once'}" for m, g, a in CASES],
)
def test_an_interrupted_scan_exits_130_with_one_line(big_tree, tmp_path, moment, group, again):
    proc = _start(["scan", str(big_tree), "--no-cache", "-j", "3", "--min-torch", "2.0"], cwd=tmp_path)
    if moment == "start":
        time.sleep(0.4)
    else:
        _wait_for_workers(proc)
        if moment == "mid":
            time.sleep(1.5)
    assert proc.poll() is None, "the scan ended before the interrupt"
    sent_at = time.monotonic()
    _send(proc, group)
    if again is not None:
        time.sleep(again)
        _send(proc, group)
    _check_ended(proc, sent_at)


def test_an_interrupt_while_writing_the_output(tmp_path):
    # Far more JSON than a pipe holds: the run blocks writing it while nobody reads.
    for i in range(30):
        (tmp_path / f"m{i:02}.py").write_text(
            "import torch\n" + "".join(f"a{j} = torch.cuda.memory_cached({j})\n" for j in range(60))
        )
    proc = _start(
        ["scan", ".", "--no-cache", "--format", "json", "-j", "2", "--min-torch", "2.0"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
    )
    ready, _, _ = select.select([proc.stdout], [], [], 120)
    assert ready and proc.stdout.read(1), "no output"  # the output has started
    time.sleep(0.3)
    assert proc.poll() is None
    sent_at = time.monotonic()
    _send(proc, True)
    _check_ended(proc, sent_at)


def test_an_interrupted_fix_says_what_it_did(tmp_path):
    original = "import torch\n" + "".join(f"a{i} = torch.cuda.memory_cached({i})\n" for i in range(300))
    fixed = original.replace("memory_cached", "memory_reserved")
    for i in range(300):
        (tmp_path / f"m{i:03}.py").write_text(original)
    proc = _start(["fix", ".", "-j", "2", "--min-torch", "2.0"], cwd=tmp_path)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not any(
        (tmp_path / f"m{i:03}.py").read_text() == fixed for i in range(0, 300, 30)
    ):
        time.sleep(0.05)
    sent_at = time.monotonic()
    _send(proc, True)
    time.sleep(0.05)
    _send(proc, True)
    err = _check_ended(proc, sent_at)
    assert "fixed completely" in err
    states = [(tmp_path / f"m{i:03}.py").read_text() for i in range(300)]
    assert all(s in (original, fixed) for s in states), "a file was left half-written"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".advisor-tmp")]
