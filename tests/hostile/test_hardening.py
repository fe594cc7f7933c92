"""Bad input, odd files, interrupted runs, and never running the code we read."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from advisor.run.engine import ScanOptions, scan
from advisor.core.jobs import FileJob
from advisor.analysis.registry import select_rules
from advisor.core.settings import settings_at

LINE = "import torch\nx = torch.cuda.memory_cached()\n"


def _scan_json(cli, cwd, *args):
    proc = cli("scan", *args, "--format", "json", "--no-cache", cwd=cwd)
    return proc, json.loads(proc.stdout)


def test_bad_files_are_errors_and_the_run_goes_on(cli, tmp_path):
    (tmp_path / "binary.py").write_bytes(b"\x00\x01torch.cuda.memory_cached\xff")
    (tmp_path / "bad_utf8.py").write_bytes(b"import torch\nx = '\xff'\ny = torch.cuda.memory_cached()\n")
    (tmp_path / "parens.py").write_text(
        "import torch\nx = " + "(" * 2000 + "1" + ")" * 2000 + "\ny = torch.cuda.memory_cached()\n"
    )
    (tmp_path / "chain.py").write_text(
        "import torch\nx = " + "+".join(["1"] * 10000) + "\ny = torch.cuda.memory_cached()\n"
    )
    (tmp_path / "deep.py").write_text(
        "import torch\nx = " + "+".join(["1"] * 600) + "\ny = torch.cuda.memory_cached()\n"
    )
    (tmp_path / "syntax.py").write_text("import torch\ndef f(:\n    torch.cuda.memory_cached()\n")
    (tmp_path / "good.py").write_text(LINE)
    start = time.perf_counter()
    proc, data = _scan_json(cli, tmp_path, ".")
    assert time.perf_counter() - start < 60, "a pathological file slowed the run down"
    assert proc.returncode == 1
    errors = {e["path"]: e["message"] for e in data["errors"]}
    assert "binary" in errors["binary.py"]
    assert "not valid utf-8" in errors["bad_utf8.py"]
    assert "too many nested parentheses" in errors["parens.py"]
    assert "nested" in errors["chain.py"] and "nesting deeper" in errors["deep.py"]
    assert "syntax error" in errors["syntax.py"]
    assert [f["path"] for f in data["findings"]] == ["good.py"]


@pytest.mark.parametrize(
    "name,content,findings",
    [
        ("empty.py", b"", 0),
        ("comments.py", b"# torch.cuda.memory_cached() only in a comment\n", 0),
        ("latin1.py", b"# -*- coding: latin-1 -*-\nimport torch\ns = '\xe9'\nx = torch.cuda.memory_cached()\n", 1),
        ("bom.py", b"\xef\xbb\xbfimport torch\r\nx = torch.cuda.memory_cached()\r\n", 1),
        ("mixed.py", b"import torch\r\ny = 1\nx = torch.cuda.memory_cached()\r\n", 1),
    ],
)
def test_odd_but_valid_files(cli, tmp_path, name, content, findings):
    (tmp_path / name).write_bytes(content)
    proc, data = _scan_json(cli, tmp_path, name)
    assert data["errors"] == [] and len(data["findings"]) == findings


def test_mixed_newlines_survive_a_fix(cli, tmp_path):
    f = tmp_path / "mixed.py"
    f.write_bytes(b"import torch\r\ny = 1\nx = torch.cuda.memory_cached()\r\n")
    cli("fix", "mixed.py", cwd=tmp_path)
    assert f.read_bytes() == b"import torch\r\ny = 1\nx = torch.cuda.memory_reserved()\r\n"


def test_huge_generated_file_is_reported_not_parsed(cli, tmp_path):
    body = "".join(f"v{i} = torch.ones({i % 7})\n" for i in range(400_000))
    (tmp_path / "huge.py").write_text("import torch\n" + body + "x = torch.cuda.memory_cached()\n")
    assert (tmp_path / "huge.py").stat().st_size > 9_000_000
    (tmp_path / "good.py").write_text(LINE)
    start = time.perf_counter()
    proc, data = _scan_json(cli, tmp_path, ".")
    assert time.perf_counter() - start < 120
    assert "over the 2 MB" in data["errors"][0]["message"]
    assert [f["path"] for f in data["findings"]] == ["good.py"]


def test_paths_that_are_not_plain_files(cli, tmp_path):
    (tmp_path / "pkg.py").mkdir()  # a directory named like a module
    (tmp_path / "pkg.py" / "inner.py").write_text(LINE)
    (tmp_path / "loop").symlink_to(tmp_path)  # a symlink loop
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.py"
    outside.write_text(LINE)
    (tmp_path / "external.py").symlink_to(outside)
    proc, data = _scan_json(cli, tmp_path, ".")
    assert [f["path"] for f in data["findings"]] == [os.path.join("pkg.py", "inner.py")]
    assert data["errors"] == [{"path": "dangling.py", "message": "dangling symbolic link"}]
    assert cli("fix", ".", cwd=tmp_path).returncode in (0, 1)
    assert outside.read_text() == LINE, "a file outside the scanned tree was rewritten"


def test_file_deleted_between_listing_and_reading(tmp_path):
    present = tmp_path / "a.py"
    present.write_text(LINE)
    result = scan([str(present), str(tmp_path / "gone.py")], ScanOptions(select_rules(), settings_at("2.12")))
    assert [e.message for e in result.errors] == ["cannot read: No such file or directory"]
    assert len(result.findings) == 1


def test_read_only_file_is_reported_not_rewritten(cli, tmp_path):
    f = tmp_path / "ro.py"
    f.write_text(LINE)
    f.chmod(0o444)
    proc = cli("fix", "ro.py", cwd=tmp_path)
    assert proc.returncode == 1 and "read-only file" in proc.stderr
    assert f.read_text() == LINE


def test_scanning_and_fixing_never_run_the_code(cli, tmp_path):
    marker = tmp_path / "MARKER"
    (tmp_path / "evil.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
        "import torch\nx = torch.cuda.memory_cached()\n"
        "if __name__ == '__main__':\n    pass\n"
    )
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.advisor]\nselect = ['ADV7']  # __import__('os').system('touch {marker}')\n"
    )
    cli("scan", ".", "--no-cache", cwd=tmp_path)
    cli("fix", ".", cwd=tmp_path)
    cli("scan", ".", "--no-cache", "--report", "r", cwd=tmp_path)
    assert not marker.exists()
    assert "memory_reserved" in (tmp_path / "evil.py").read_text()


def test_an_interrupted_fix_leaves_every_file_whole(tmp_path):
    original = "import torch\n" + "".join(f"a{i} = torch.cuda.memory_cached({i})\n" for i in range(300))
    fixed = original.replace("memory_cached", "memory_reserved")
    for i in range(400):
        (tmp_path / f"m{i:03}.py").write_text(original)
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "fix", "."],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 120
    while time.time() < deadline and not any(
        (tmp_path / f"m{i:03}.py").read_text() == fixed for i in range(0, 400, 40)
    ):
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    states = [(tmp_path / f"m{i:03}.py").read_text() for i in range(400)]
    assert all(s in (original, fixed) for s in states), "a file was left half-written"
    assert proc.returncode == 130 and "interrupted" in err, (proc.returncode, err)
    assert 0 < states.count(fixed) < 400
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".advisor-tmp")]


def crashing_job(job):
    """Stands in for a parser segfault on one file (LibCST can crash on input we failed to guard).
    SIGKILL rather than SIGSEGV: the effect on the pool is the same, without a faulthandler dump in the test log."""
    if job.path.endswith("crash.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_job(job)


_real_job = None


def test_a_crashing_worker_costs_only_its_own_file(tmp_path, monkeypatch):
    import advisor.run.engine as engine

    global _real_job
    _real_job = engine._analyse_job
    monkeypatch.setattr(engine, "_analyse_job", crashing_job)
    monkeypatch.setenv("ADVISOR_POOL_MIN_BYTES", "0")  # tiny files: run them in the pool all the same
    paths = []
    for i in range(20):
        p = tmp_path / f"m{i:02}.py"
        p.write_text(LINE)
        paths.append(str(p))
    crash = tmp_path / "crash.py"
    crash.write_text(LINE)
    paths.append(str(crash))
    result = scan(paths, ScanOptions(select_rules(), settings_at("2.12"), jobs=2))
    assert [(e.path, e.message) for e in result.errors] == [
        (str(crash), "the parser crashed on this file; not analysed")
    ]
    assert len(result.findings) == 20


def test_a_syntax_error_is_cached_but_a_crash_is_not(tmp_path, monkeypatch):
    import advisor.run.engine as engine

    (tmp_path / "broken.py").write_text("import torch\ntorch.cuda.is_current_stream_capturing(\n")
    options = ScanOptions(select_rules(), settings_at("2.12"), cache_dir=str(tmp_path / "c"), jobs=1)
    first = scan([str(tmp_path / "broken.py")], options)
    assert first.errors and first.files_parsed == 1
    again = scan([str(tmp_path / "broken.py")], options)
    assert again.errors == first.errors and again.files_cached == 1 and again.files_parsed == 0

    (tmp_path / "ok.py").write_text(LINE)
    real = engine._analyse_job

    def failing(job):
        return engine.FileResult(
            job.path, errors=[engine.FileError(job.path, "internal error while analysing (X: y)")]
        ).to_dict()

    monkeypatch.setattr(engine, "_analyse_job", failing)
    scan([str(tmp_path / "ok.py")], options)
    monkeypatch.setattr(engine, "_analyse_job", real)
    retry = scan([str(tmp_path / "ok.py")], options)
    assert retry.files_parsed == 1 and not retry.errors and retry.findings


_real_fix_job = None


def crashing_fix_job(job):
    if job.path.endswith("crash.py"):
        os.kill(os.getpid(), signal.SIGKILL)
    return _real_fix_job(job)


def test_parallel_fix_equals_serial_and_a_crash_costs_one_file(tmp_path, monkeypatch):
    import advisor.fix.fixer as fixer
    from advisor.analysis.registry import rule_by_code

    global _real_fix_job
    jobs = []
    for i in range(20):
        src = f"import torch\nx{i} = torch.cuda.memory_cached({i})\n".encode()
        jobs.append(FileJob(str(tmp_path / f"m{i:02}.py"), src, ("ADV713",), settings_at("2.12")))
    assert rule_by_code("ADV713")  # the rule the jobs name
    serial = [(o.fixed, dict(o.applied)) for o in fixer.fix_many(jobs, workers=1)]
    parallel = [(o.fixed, dict(o.applied)) for o in fixer.fix_many(jobs, workers=2)]
    assert serial == parallel and all(b"memory_reserved" in fixed for fixed, _ in serial)

    _real_fix_job = fixer._fix_job
    monkeypatch.setattr(fixer, "_fix_job", crashing_fix_job)
    crash = FileJob(str(tmp_path / "crash.py"), jobs[0].data, ("ADV713",), settings_at("2.12"))
    outcomes = list(fixer.fix_many(jobs[:10] + [crash] + jobs[10:], workers=2))
    assert [o.error for o in outcomes].count("the parser crashed on this file; not fixed") == 1
    assert outcomes[10].path.endswith("crash.py") and outcomes[10].error
    assert all(o.changed for i, o in enumerate(outcomes) if i != 10)
