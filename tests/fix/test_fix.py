"""`advisor fix` as a user runs it: exact outputs, idempotence, integrity, exit codes."""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import py_compile
import shutil
import stat

import pytest

from advisor.fix.fixer import ConcurrentEditError, write_atomic
from advisor.core.settings import settings_at
from tests.conftest import FIXTURES as FIXTURE_PROJECTS

FIXTURES = os.path.join(FIXTURE_PROJECTS, "fix")
CASES = sorted(os.path.basename(p)[: -len(".in.py")] for p in glob.glob(os.path.join(FIXTURES, "*.in.py")))


@pytest.mark.parametrize("case", CASES)
def test_fixture_in_gives_out_and_is_idempotent(cli, tmp_path, case):
    src = os.path.join(FIXTURES, f"{case}.in.py")
    want = open(os.path.join(FIXTURES, f"{case}.out.py"), "rb").read()
    target = tmp_path / f"{case}.py"
    shutil.copy(src, target)
    os.chmod(target, 0o640)
    # The lowest supported torch has every replacement the fixtures use (torch.accelerator, Stream.is_capturing:
    # 2.12), so the unsafe fixes are offered; torch.load needs no weights_only= there (True is the default).
    proc = cli("fix", str(target), "--unsafe-fixes", "--min-torch", "2.12", cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert target.read_bytes() == want
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    again = cli("fix", str(target), "--unsafe-fixes", "--min-torch", "2.12", cwd=tmp_path)
    assert target.read_bytes() == want, "a second run changed the file"
    assert "Fixed 0 findings" in again.stdout + again.stderr


def test_unsafe_fixes_are_held_back_by_default(cli, tmp_path):
    target = tmp_path / "m.py"
    target.write_text("import torch\nx = torch.cuda.is_current_stream_capturing()\ny = torch.cuda.memory_cached()\n")
    # --min-torch 2.12: ADV101's replacement exists on every supported torch, so its fix is only unsafe, not withdrawn.
    proc = cli("fix", "m.py", "--min-torch", "2.12", cwd=tmp_path)
    assert (
        target.read_text()
        == "import torch\nx = torch.cuda.is_current_stream_capturing()\ny = torch.cuda.memory_reserved()\n"
    )
    assert "1 unsafe fix held back" in proc.stdout
    # What is left (ADV101) is advice on the target, so the run passes as `scan` would; `--fail-on advice` fails it.
    assert proc.returncode == 0
    assert cli("fix", "m.py", "--fail-on", "advice", cwd=tmp_path).returncode == 1


def test_diff_writes_nothing_and_exits_1(cli, tmp_path):
    target = tmp_path / "m.py"
    original = "import torch\ny = torch.cuda.memory_cached()\n"
    target.write_text(original)
    proc = cli("fix", "m.py", "--diff", cwd=tmp_path)
    assert proc.returncode == 1
    assert "-y = torch.cuda.memory_cached()" in proc.stdout and "+y = torch.cuda.memory_reserved()" in proc.stdout
    assert target.read_text() == original
    clean = tmp_path / "clean.py"
    clean.write_text("import torch\n")
    assert cli("fix", "clean.py", "--diff", cwd=tmp_path).returncode == 0


def test_broken_file_is_reported_and_untouched_while_others_are_fixed(cli, tmp_path):
    good = tmp_path / "good.py"
    good.write_text("import torch\ny = torch.cuda.memory_cached()\n")
    broken = tmp_path / "broken.py"
    broken_text = "import torch\ny = torch.cuda.memory_cached(\n"
    broken.write_text(broken_text)
    proc = cli("fix", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "broken.py" in proc.stderr and "syntax error" in proc.stderr
    assert broken.read_text() == broken_text
    assert "memory_reserved" in good.read_text()


def test_untouched_files_keep_bytes_and_mtime(cli, tmp_path):
    f = tmp_path / "other.py"
    f.write_text("import torch\nx = torch.ones(1)  # mentions memory_cached in a comment only\n")
    before = os.stat(f).st_mtime_ns
    cli("fix", ".", "--unsafe-fixes", cwd=tmp_path)
    assert os.stat(f).st_mtime_ns == before


def test_write_refuses_a_file_changed_since_analysis(tmp_path):
    f = tmp_path / "m.py"
    f.write_bytes(b"a = 1\n")
    with pytest.raises(ConcurrentEditError):
        write_atomic(str(f), b"a = 0\n", b"a = 2\n")
    assert f.read_bytes() == b"a = 1\n"
    write_atomic(str(f), b"a = 1\n", b"a = 2\n")
    assert f.read_bytes() == b"a = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["m.py"], "a temp file was left behind"


def _torch_dir():
    # Locate the installed torch without importing it.
    spec = importlib.util.find_spec("torch")
    return os.path.dirname(spec.origin) if spec and spec.origin else None


@pytest.mark.skipif(_torch_dir() is None, reason="torch is not installed")
def test_fix_on_a_copy_of_torch_sources(cli, tmp_path):
    """Every changed file compiles, a second run changes nothing, no fixable finding is left."""
    root = tmp_path / "torch_copy"
    src = _torch_dir()
    subset = [
        "cuda",
        "backends",
        "optim",
        "amp",
        "profiler",
        "autograd",
        "utils/checkpoint.py",
        "testing/_comparison.py",
        "nn/utils",
    ]
    for part in subset:
        s = os.path.join(src, part)
        d = root / part
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            d.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(s, d)
    before = {p: open(p, "rb").read() for p in glob.glob(str(root / "**" / "*.py"), recursive=True)}
    first = cli("fix", ".", "--unsafe-fixes", cwd=root)
    assert first.returncode in (0, 1), first.stderr
    changed = [p for p, data in before.items() if open(p, "rb").read() != data]
    assert changed, "expected torch's own sources to use some deprecated API"
    for p in changed:
        py_compile.compile(p, doraise=True)
    snapshot = {p: open(p, "rb").read() for p in before}
    cli("fix", ".", "--unsafe-fixes", cwd=root)
    assert {p: open(p, "rb").read() for p in before} == snapshot, "second fix run changed files"
    scan = json.loads(cli("scan", ".", "--format", "json", "--no-cache", cwd=root).stdout)
    assert [f for f in scan["findings"] if f["fix"] is not None] == []


def test_renaming_an_uncalled_function_reference_is_unsafe():
    # `{torch.ger: ...}` -> `{torch.outer: ...}` can collide with an existing key, and
    # tables of functions may be compared by identity: only calls are safe.
    from advisor.analysis.analyse import analyse
    from advisor.analysis.registry import rule_by_code

    code = b"import torch\na = torch.ger(x, y)\ntable = {torch.ger: 1, torch.outer: 2}\n"
    result, _ = analyse(code, "m.py", [rule_by_code("ADV721")], settings_at("2.12"))
    assert [(f.line, f.fix) for f in result.findings] == [(2, "safe"), (3, "unsafe")]
    # An attribute read (not a callable) stays safe.
    result, _ = analyse(
        b"import torch\nflags = [torch.has_cuda]\n", "m.py", [rule_by_code("ADV705")], settings_at("2.12")
    )
    assert [f.fix for f in result.findings] == ["safe"]


def test_monkeypatching_the_old_api_is_reported_but_never_rewritten(cli, tmp_path):
    # Seen in a real profiler: `F.upsample = wrap(F.upsample, ...)` patches the deprecated
    # function itself; rewriting either side would patch or wrap `interpolate` instead.
    code = (
        "import torch.nn.functional as F\n"
        "F.upsample = wrap(F.upsample, count_flops)\n"
        "old = {F.upsample: 1}\n"
        "y = F.upsample(x, scale_factor=2)\n"
    )
    target = tmp_path / "m.py"
    target.write_text(code)
    data = json.loads(cli("scan", "m.py", "--format", "json", "--no-cache", cwd=tmp_path).stdout)
    by_line = {}
    for f in data["findings"]:
        by_line.setdefault(f["line"], []).append(f["fix"])
    assert by_line[2] == [None, None]
    cli("fix", "m.py", "--unsafe-fixes", cwd=tmp_path)
    lines = target.read_text().splitlines()
    assert lines[1] == "F.upsample = wrap(F.upsample, count_flops)"
    assert lines[3] == "y = F.interpolate(x, scale_factor=2)"


def test_removing_the_first_import_keeps_the_blank_lines_around_it():
    # The blank line after the docstring belonged to the removed `import ... as F`; it stays (ruff format would
    # otherwise fail the fixed file). A module-level `pass` of the user's own is untouched by the parking.
    from advisor.analysis.registry import all_rules
    from advisor.fix.fixer import fix_bytes

    code = (
        b'"""Doc."""\n\nimport torch.nn.functional as F\nfrom torch.cuda import x\n\npass\n\n\n'
        b"def g(a):\n    return F.sigmoid(a)\n"
    )
    out = fix_bytes(code, "m.py", all_rules(), settings_at("2.15", "2.12"))
    assert out.error is None
    assert out.fixed == (
        b'"""Doc."""\n\nimport torch\nfrom torch.cuda import x\n\npass\n\n\ndef g(a):\n    return torch.sigmoid(a)\n'
    )
