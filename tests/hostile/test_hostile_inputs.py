"""A hostile tree, built in each test, never blocks, exhausts or crashes a run (issue 30, items 9, 11, 15).

FIFOs, links to /dev/zero, `-r /dev/stdin`, non-table TOML values, deeply nested arrays and line
separators that `str.splitlines()` honours but Python does not. Each drives the real CLI (or, for a
file swapped for a FIFO between discovery and reading, the real engine) with a bounded time-out: a
regression hangs the test for seconds, not forever.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from advisor.analysis.registry import select_rules
from advisor.core.pins import find_bounds
from advisor.core.reading import SOURCE_LIMIT
from advisor.run.engine import ScanOptions, scan
from advisor.core.settings import settings_at

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero need a POSIX system")

HANG = 120  # seconds: a run here takes one or two; a blocking read would take forever
SOURCE = "import torch\ntorch.cuda.is_current_stream_capturing()\n"


def advisor(*args, cwd):
    """The real CLI, bounded, its stdin a pipe that nobody writes to or closes (so reading it blocks)."""
    env = {**os.environ, "NO_COLOR": "1"}
    read_end, write_end = os.pipe()
    try:
        with subprocess.Popen(
            [sys.executable, "-m", "advisor", *args],
            cwd=cwd,
            env=env,
            stdin=read_end,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        ) as proc:
            try:
                out, err = proc.communicate(timeout=HANG)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()
                pytest.fail(f"advisor {' '.join(args)} blocked for {HANG} s")
    finally:
        os.close(read_end)
        os.close(write_end)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def project(tmp_path, files: dict[str, str]) -> str:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text(SOURCE)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return str(tmp_path)


# --- item 9: pin files that would block or never end ------------------------------------------


def _fifo(path):
    os.mkfifo(path)


def _link_zero(path):
    os.symlink("/dev/zero", path)


# (what the tree holds, the file the warning names): each one alone, next to a real pin the run must still read.
PIN_TRAPS = {
    "fifo-requirements": ({}, lambda t: _fifo(t / "requirements-dev.txt"), "requirements-dev.txt: a FIFO"),
    "requirements-linked-to-dev-zero": (
        {},
        lambda t: _link_zero(t / "requirements.txt"),
        "resolves outside the project (/dev/zero)",
    ),
    "include-dev-zero": ({"requirements-ci.txt": "-r /dev/zero\n"}, None, "/dev/zero: resolves outside the project"),
    "include-dev-stdin": (
        {"requirements-ci.txt": "--requirement=/dev/stdin\n"},
        None,
        "/dev/stdin: resolves outside the project",
    ),
    "include-fifo": (
        {"requirements-ci.txt": "-c pins/p.txt\n"},
        lambda t: ((t / "pins").mkdir(), _fifo(t / "pins" / "p.txt")),
        "pins/p.txt: a FIFO",
    ),
    "setup-cfg-file": (
        {"setup.cfg": "[options]\ninstall_requires = file: deps.txt\n"},
        lambda t: _link_zero(t / "deps.txt"),
        "resolves outside the project (/dev/zero)",
    ),
    "setuptools-dynamic": (
        {"pyproject.toml": '[tool.setuptools.dynamic]\ndependencies = {file = ["deps.in"]}\n'},
        lambda t: _fifo(t / "deps.in"),
        "deps.in: a FIFO",
    ),
    "setup-py-opens": (
        {"setup.py": "from setuptools import setup\nsetup(install_requires=open('deps/x.txt').read())\n"},
        lambda t: ((t / "deps").mkdir(), _link_zero(t / "deps" / "x.txt")),
        "resolves outside the project (/dev/zero)",
    ),
}


@pytest.mark.parametrize("trap", sorted(PIN_TRAPS))
def test_pin_files_that_block_or_never_end_are_skipped_with_a_warning(tmp_path, trap):
    files, make, warning = PIN_TRAPS[trap]
    root = project(tmp_path, {"constraints.txt": "torch>=2.3,<2.14\n", **files})
    if make:
        make(tmp_path)
    proc = advisor("scan", ".", "--no-cache", cwd=root)
    assert proc.returncode in (0, 1), proc.stderr  # 1 where the trap has a scanned file's name (a listed error)
    assert "advisor: warning: " in proc.stderr and warning in proc.stderr, proc.stderr
    assert "lowest supported torch 2.3 (torch pin 'torch>=2.3,<2.14' in constraints.txt:1)" in proc.stdout
    assert "internal error" not in proc.stderr


def test_source_files_that_are_fifos_or_too_large_are_listed_not_read(tmp_path):
    root = project(tmp_path, {})
    os.mkfifo(tmp_path / "b.py")
    with open(tmp_path / "big.py", "wb") as f:  # sparse: its size says it is too large before a byte is read
        f.write(SOURCE.encode())
        f.truncate(SOURCE_LIMIT + 1)
    proc = advisor("scan", ".", "--no-cache", cwd=root)
    assert "b.py: error: not a regular file (a FIFO, socket or device); not read" in proc.stdout
    assert "big.py: error: cannot read: file is 64.0 MB, over the 64 MB advisor reads; not read" in proc.stdout
    assert "a.py:2:1: ADV101" in proc.stdout and proc.returncode == 1


def test_a_source_file_swapped_for_a_fifo_after_discovery_does_not_block(tmp_path):
    """The engine reads what discovery listed: by then the file may be a FIFO (or a link to /dev/zero)."""
    (tmp_path / "a.py").write_text(SOURCE)
    os.mkfifo(tmp_path / "b.py")
    os.symlink("/dev/zero", tmp_path / "c.py")
    result = scan(
        [str(tmp_path / n) for n in ("a.py", "b.py", "c.py")], ScanOptions(select_rules(), settings_at("2.12"), jobs=1)
    )
    errors = {os.path.basename(e.path): e.message for e in result.errors}
    assert errors == {
        "b.py": "cannot read: a FIFO, not a regular file; not read",
        "c.py": "cannot read: a character device, not a regular file; not read",
    }
    assert [f.rule for f in result.findings] == ["ADV101"]


# --- item 11: TOML of any shape ---------------------------------------------------------------

SHAPES = {
    "project = 5": "`project` is int 5, not a table",
    "build-system = 5": "`build-system` is int 5",
    "dependency-groups = 5": "`dependency-groups` is int 5",
    "[project]\ndependencies = 5": "`project.dependencies` is int 5, not an array",
    "[project]\noptional-dependencies = 5": "`project.optional-dependencies` is int 5, not a table",
    "[project.optional-dependencies]\ngpu = 5": "`project.optional-dependencies.gpu` is int 5, not an array",
    "[build-system]\nrequires = 'torch'": "`build-system.requires` is str 'torch', not an array",
    "[tool]\npoetry = 5": "`tool.poetry` is int 5",
    "[tool.poetry]\ndependencies = [1]": "`tool.poetry.dependencies` is list [1], not a table",
    "[tool.poetry]\ngroup = 5": "`tool.poetry.group` is int 5",
    "[tool.poetry.group]\ngpu = 5": "`tool.poetry.group.gpu` is int 5",
    "[tool.pixi]\ntarget = 5": "`tool.pixi.target` is int 5",
    "[tool.pixi]\nfeature = 5": "`tool.pixi.feature` is int 5",
    "[tool.pixi.feature]\ncuda = 5": "`tool.pixi.feature.cuda` is int 5",
    "[tool.pixi.feature.cuda]\npypi-dependencies = 5": "`tool.pixi.feature.cuda.pypi-dependencies` is int 5",
    "[tool.setuptools]\ndynamic = 5": "`tool.setuptools.dynamic` is int 5",
    "[tool.setuptools.dynamic]\ndependencies = 5": "`tool.setuptools.dynamic.dependencies` is int 5",
    "[tool.setuptools.dynamic.dependencies]\nfile = 5": "`tool.setuptools.dynamic.dependencies.file` is int 5, not an array",
}


@pytest.mark.parametrize("text", sorted(SHAPES))
def test_pyproject_values_of_the_wrong_shape_are_noted_and_ignored(tmp_path, text):
    (tmp_path / "pyproject.toml").write_text(text + "\n")
    (tmp_path / "constraints.txt").write_text("torch>=2.3\n")
    notes: list[str] = []
    assert find_bounds(str(tmp_path), notes)["torch"].lower_text == "2.3"  # the other pin files still count
    assert (
        len(notes) == 1 and notes[0].startswith(f"pyproject.toml: {SHAPES[text]}") and notes[0].endswith("; ignored")
    ), notes


@pytest.mark.parametrize("lock", ["package = 5", "[[package]]\nname = 5\nversion = [1]", "package = [5, 'x']"])
def test_lock_files_of_the_wrong_shape(tmp_path, lock):
    (tmp_path / "poetry.lock").write_text(lock + "\n")
    notes: list[str] = []
    assert find_bounds(str(tmp_path), notes) == {}
    assert notes == (["poetry.lock: `package` is int 5, not an array; ignored"] if lock == "package = 5" else [])


def test_the_cli_warns_about_a_bad_shape_and_a_deep_array_without_an_internal_error(tmp_path):
    deep = "x = " + "[" * 500 + "]" * 500 + "\n"
    root = project(tmp_path, {"pyproject.toml": "project = 5\n", "poetry.lock": deep, "uv.lock": "package = 5\n"})
    proc = advisor("scan", ".", "--no-cache", cwd=root)
    assert "advisor: warning: pyproject.toml: `project` is int 5, not a table; ignored" in proc.stderr
    assert "advisor: warning: poetry.lock: TOML nested too deeply to read; no pins read from it" in proc.stderr
    assert "advisor: warning: uv.lock: `package` is int 5, not an array; ignored" in proc.stderr
    assert proc.returncode == 0 and "a.py:2:1: ADV101" in proc.stdout and "internal error" not in proc.stderr


@pytest.mark.parametrize(
    "text, error",
    [
        ("tool = 5", "[tool] must be a table"),
        ("x = " + "[" * 500 + "]" * 500, "TOML nested too deeply to read"),
    ],
)
def test_the_config_file_of_a_bad_shape_is_a_clear_error(tmp_path, text, error):
    root = project(tmp_path, {"pyproject.toml": text + "\n"})
    for command in ("scan", "fix"):
        proc = advisor(command, ".", cwd=root)
        assert proc.returncode == 2 and f"advisor: error: {tmp_path / 'pyproject.toml'}: {error}" in proc.stderr, (
            proc.stderr
        )


def test_the_fixer_reads_isort_settings_of_any_shape(tmp_path):
    """`fix` adds imports in the section the project's isort/ruff settings say; odd shapes mean no settings."""
    root = project(
        tmp_path, {"pyproject.toml": "[tool]\nruff = 5\nisort = [1]\n", "setup.cfg": "[isort]\nknown_first_party = a\n"}
    )
    os.mkfifo(tmp_path / ".isort.cfg")
    (tmp_path / "a.py").write_text("import torch\nx = torch.cuda.amp.GradScaler()\n")
    proc = advisor("fix", ".", cwd=root)
    assert "internal error" not in proc.stderr and proc.returncode in (0, 1), proc.stderr
    from advisor.fix.imports import _settings

    assert _settings(root) == (frozenset({"a"}), (os.path.join(root, "."), os.path.join(root, "src")))


# --- item 15 (part): lines as Python numbers them --------------------------------------------

# Each of these is a line break for str.splitlines() and an ordinary character for Python.
SEPARATORS = ["\x0c", "\x0b", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]


@pytest.mark.parametrize("sep", SEPARATORS, ids=[f"U+{ord(s):04X}" for s in SEPARATORS])
def test_add_noqa_suppressions_and_full_output_count_lines_as_python_does(tmp_path, sep):
    source = f'import torch\ns = """a{sep}b"""  # x{sep}y\ntorch.cuda.is_current_stream_capturing()\n'
    (tmp_path / "a.py").write_text(source, encoding="utf-8")
    full = advisor("scan", "a.py", "--no-cache", "--output-format", "full", cwd=tmp_path)
    assert "a.py:3:1: ADV101" in full.stdout and "3 | torch.cuda.is_current_stream_capturing()\n" in full.stdout
    proc = advisor("scan", "a.py", "--no-cache", "--add-noqa", cwd=tmp_path)
    assert proc.returncode == 0 and "Added 1 suppression comment" in proc.stderr, proc.stderr
    fixed = (tmp_path / "a.py").read_text(encoding="utf-8")
    assert fixed == source.replace("capturing()\n", "capturing()  # advisor: ignore[ADV101]\n")
    after = advisor("scan", "a.py", "--no-cache", cwd=tmp_path)
    assert after.returncode == 0 and "1 suppressed" in after.stdout
    # The comment on line 2 (after the separator) is not a comment on line 3.
    (tmp_path / "b.py").write_text(
        f"import torch\nx = 1  # x{sep}# advisor: ignore\ntorch.cuda.is_current_stream_capturing()\n"
    )
    assert "b.py:3:1: ADV101" in advisor("scan", "b.py", "--no-cache", cwd=tmp_path).stdout


# --- item 8: workers die with their parent, even when it is SIGKILLed --------------------------


def _descendants(pid: int) -> set[int]:
    psutil = pytest.importorskip("psutil")
    try:
        return {p.pid for p in psutil.Process(pid).children(recursive=True) if p.status() != psutil.STATUS_ZOMBIE}
    except psutil.NoSuchProcess:
        return set()


def _alive(pids: set[int]) -> set[int]:
    psutil = pytest.importorskip("psutil")
    alive = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.add(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _read_to_eof(stream, within: float) -> bool:
    import select

    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream], [], [], max(0.0, deadline - time.monotonic()))
        if ready and not os.read(stream.fileno(), 1 << 16):
            return True
    return False


@pytest.mark.skipif(sys.platform != "linux", reason="finds the workers through /proc (psutil)")
@pytest.mark.parametrize("command", ["scan", "fix", "audit"])
def test_workers_die_with_a_sigkilled_parent_and_the_pipe_closes(tmp_path, command):
    """`advisor ... | tee log` after an OOM kill or `timeout -s KILL`: the pipe must close."""
    tree = tmp_path / "repo"
    tree.mkdir()
    body = "import torch\n" + "".join(f"a{i} = torch.cuda.memory_cached({i})\n" for i in range(200))
    for i in range(300):
        (tree / f"m{i:03}.py").write_text(body)
    (tmp_path / "repos.txt").write_text(f"{tree}\n")
    args = {
        "scan": ["scan", str(tree), "--no-cache", "-j", "2"],
        "fix": ["fix", str(tree), "-j", "2"],
        "audit": ["audit", str(tmp_path / "repos.txt"), "--out", str(tmp_path / "out"), "-j", "2"],
    }[command]
    env = {**os.environ, "NO_COLOR": "1", "ADVISOR_POOL_MIN_BYTES": "1", "ADVISOR_NO_CACHE": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", *args, "--min-torch", "2.0"]
        if command != "audit"
        else [sys.executable, "-m", "advisor", *args],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_descendants(proc.pid)) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, "the run ended before its workers started"
            time.sleep(0.02)
        workers = _descendants(proc.pid)
        assert len(workers) >= 2, "no worker process started"
        time.sleep(0.3)
        assert proc.poll() is None, "the run ended before the kill"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert _read_to_eof(proc.stdout, within=30), f"the output pipe is still open: workers {_alive(workers)} live on"
        deadline = time.monotonic() + 10
        while _alive(workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(workers), "a worker outlived its SIGKILLed parent"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # a regression must not leave workers behind the test
        except ProcessLookupError:
            pass
        proc.stdout.close()


def test_without_prctl_a_watch_thread_ends_an_orphaned_worker(tmp_path):
    """The portable fallback (no PR_SET_PDEATHSIG): the worker sees its parent change and exits."""
    code = (
        "import os, sys, time\n"
        "import advisor.run.workers as w\n"
        "w._die_with_parent_prctl = lambda: False\n"
        "w.PARENT_POLL = 0.05\n"
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    w.die_with_parent(parent)\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "print(child, flush=True)\n"
        "os._exit(0)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    child = int(out.stdout.strip())
    deadline = time.monotonic() + 10
    while _alive({child}) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive({child}), "the orphaned worker kept running"


# --- item 12 (part): file names that are not UTF-8, old notebooks ------------------------------


def _bytes_named_tree(tmp_path):
    tree = tmp_path / "repo"
    tree.mkdir()
    (tree / ".git").mkdir()
    try:
        with open(os.path.join(os.fsencode(tree), b"caf\xe9.py"), "wb") as f:  # Latin-1 bytes: not UTF-8
            f.write(SOURCE.encode())
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    (tree / "ok.py").write_text("import torch\ny = torch.cuda.amp.GradScaler()\n")
    return tree


def test_a_report_with_a_non_utf8_file_name(tmp_path):
    tree = _bytes_named_tree(tmp_path)
    proc = advisor("scan", ".", "--no-cache", "--report", str(tmp_path / "rep"), cwd=tree)
    assert proc.returncode in (0, 1) and "internal error" not in proc.stderr, proc.stderr
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "caf\\xe9.py" in html and "ok.py" in html  # the undecodable byte shown as \xe9, nothing lost
    assert "caf\\\\xe9.py" in (tmp_path / "rep" / "report.md").read_text(
        encoding="utf-8"
    )  # markdown escapes the backslash


def test_an_audit_keeps_a_repository_with_a_non_utf8_file_name(tmp_path):
    import json

    tree = _bytes_named_tree(tmp_path)
    (tmp_path / "repos.txt").write_text(f"{tree}\n")
    proc = advisor("audit", str(tmp_path / "repos.txt"), "--out", str(tmp_path / "out"), "-j", "1", cwd=tmp_path)
    assert "internal error" not in proc.stderr and "failed" not in proc.stderr, proc.stderr
    (repo,) = json.loads((tmp_path / "out" / "audit.json").read_text())["repositories"]
    assert repo["status"] != "failed" and repo["findings"] == 2, repo


def test_a_format_3_notebook_is_a_clear_error_for_scan_and_fix(tmp_path):
    import json

    cell = {
        "cell_type": "code",
        "collapsed": False,
        "input": ["import torch\n", "x = torch.cuda.amp.GradScaler()"],
        "language": "python",
        "metadata": {},
        "outputs": [],
        "prompt_number": 1,
    }
    nb = {
        "metadata": {"name": ""},
        "nbformat": 3,
        "nbformat_minor": 0,
        "worksheets": [{"cells": [cell], "metadata": {}}],
    }
    text = json.dumps(nb)
    (tmp_path / "old.ipynb").write_text(text)
    (tmp_path / "cells.ipynb").write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {},
                "cells": [{"cell_type": "code", "source": 5, "x": "torch.cuda.amp.GradScaler"}],
            }
        )
    )
    expected = "old.ipynb: error: notebook format 3 is not supported (advisor reads format 4"
    scan_ = advisor("scan", ".", "--no-cache", cwd=tmp_path)
    assert expected in scan_.stdout and "cells.ipynb: error: not a readable notebook" in scan_.stdout
    fix = advisor("fix", ".", cwd=tmp_path)
    assert "internal error" not in fix.stderr and expected in fix.stdout + fix.stderr, (fix.stdout, fix.stderr)
    assert (tmp_path / "old.ipynb").read_text() == text


# --- item 13: one huge candidate file must not take the run down -------------------------------


def test_a_large_candidate_is_parsed_in_a_process_of_its_own(tmp_path):
    """Without a pool, a candidate over ISOLATE_MIN_BYTES (1 MB; lowered here so the file stays small) is
    analysed in a fresh process: a parser abort there is that file's error, not the end of the run."""
    (tmp_path / "big.py").write_text(SOURCE + "x = torch.cuda.amp.GradScaler()\n" + "#" * 400 + "\n")
    (tmp_path / "small.py").write_text("import torch\ny = torch.cuda.amp.GradScaler()\n")
    code = (
        "import sys; from advisor.cli import app; sys.argv = ['advisor', 'scan', '.', '--no-cache', '-q', '-j', '1']\n"
        "try: app()\nexcept SystemExit: pass\nprint('isolated' if 'advisor.run.workers' in sys.modules else 'in-process')"
    )
    env = {**os.environ, "NO_COLOR": "1", "ADVISOR_ISOLATE_MIN_BYTES": "300"}
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=HANG
    )
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "isolated", out.stderr
    assert [line.split(": ")[0] for line in lines[:-1]] == ["big.py:2:1", "big.py:3:5", "small.py:2:5"], out.stdout


def test_the_parse_limit_follows_what_the_parser_costs(tmp_path):
    from advisor.analysis.analyse import MAX_CST_BYTES, analyse_source

    if "ADVISOR_MAX_FILE_MB" in os.environ:
        pytest.skip("ADVISOR_MAX_FILE_MB sets another limit")
    assert MAX_CST_BYTES == 2 * 2**20  # ~1.1 GiB of RSS per MB parsed (measured: the docstring of MAX_CST_BYTES)
    data = (SOURCE + "\n" * (MAX_CST_BYTES + 1 - len(SOURCE))).encode()
    result, _ = analyse_source(data, "big.py", select_rules(), settings_at("2.12"))
    assert [e.message for e in result.errors] == [
        "file is 2.0 MB, over the 2 MB advisor parses (raise ADVISOR_MAX_FILE_MB to analyse it)"
    ]


def test_a_committed_baseline_nested_too_deeply_or_a_fifo(tmp_path):
    root = project(tmp_path, {"advisor-baseline.json": "[" * 100_000 + "]" * 100_000})
    proc = advisor("scan", ".", "--no-cache", cwd=root)
    assert (
        proc.returncode == 2 and "advisor: error: cannot read baseline" in proc.stderr and "internal" not in proc.stderr
    )
    os.remove(tmp_path / "advisor-baseline.json")
    os.mkfifo(tmp_path / "advisor-baseline.json")  # not a regular file: no baseline (and no blocking read)
    assert "a.py:2:1: ADV101" in advisor("scan", ".", "--no-cache", cwd=root).stdout
