"""The pool starts only when the candidate bytes pay for it (advisor.run.engine.POOL_MIN_BYTES)."""

from advisor.analysis.registry import select_rules
import advisor.run.engine as engine
import advisor.run.workers as workers
from advisor.run.engine import ScanOptions, scan
from advisor.core.settings import settings_at

LINE = "import torch\ntorch.cuda.is_current_stream_capturing()\n"


def _tree(tmp_path, count, padding=0):
    paths = []
    for i in range(count):
        p = tmp_path / f"m{i:02}.py"
        p.write_text(LINE + "#" * padding + "\n")
        paths.append(str(p))
    return paths


def _pools(monkeypatch):
    started = []
    real = workers.start_pool

    def counting(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(workers, "start_pool", counting)
    return started


def test_many_small_candidates_stay_in_one_process(tmp_path, monkeypatch):
    started = _pools(monkeypatch)
    result = scan(_tree(tmp_path, 30), ScanOptions(select_rules(), settings_at("2.12"), jobs=2))
    assert not started
    assert result.files_parsed == 30 and len(result.findings) == 30


def test_enough_candidate_bytes_start_the_pool_and_agree(tmp_path, monkeypatch):
    monkeypatch.setenv("ADVISOR_POOL_MIN_BYTES", "4096")
    paths = _tree(tmp_path, 8, padding=1000)
    serial = scan(paths, ScanOptions(select_rules(), settings_at("2.12"), jobs=1))
    started = _pools(monkeypatch)
    pooled = scan(paths, ScanOptions(select_rules(), settings_at("2.12"), jobs=2))
    assert started == [1]
    assert pooled.findings == serial.findings and len(pooled.findings) == 8


def test_the_engine_keeps_the_workers_time_out():
    assert engine.ISOLATED_TIMEOUT == workers.ISOLATED_TIMEOUT


def test_a_small_scan_never_imports_multiprocessing(tmp_path):
    import subprocess
    import sys

    (tmp_path / "clean.py").write_text("import torch\n\nx = torch.ones(3)\n")
    code = (
        "import sys; from advisor.cli import app; sys.argv = ['advisor', 'scan', sys.argv[1], '--no-cache'];\n"
        "try: app()\nexcept SystemExit: pass\nprint('workers' if 'advisor.run.workers' in sys.modules else 'none')"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "clean.py")], capture_output=True, text=True)
    assert out.stdout.strip().splitlines()[-1] == "none", out.stderr


def test_a_big_file_that_can_be_sliced_is_analysed_in_the_pool(tmp_path, monkeypatch):
    # A big file is parsed in a capped process of its own only where it cannot be sliced (the slices of one that
    # can are small trees): here the one whose torch import is inside a function. A stub (.pyi) is sliced too.
    monkeypatch.setenv("ADVISOR_POOL_MIN_BYTES", "4096")
    monkeypatch.setenv("ADVISOR_ISOLATE_MIN_BYTES", "3000")
    filler = "".join(
        f"def unrelated_{i}(x):\n    y = x + {i}\n    z = y * 2\n    return [z] * {i}\n\n\n" for i in range(60)
    )
    (tmp_path / "sliced.py").write_text("import torch\n\n\n" + filler + "def f():\n    " + LINE.splitlines()[1] + "\n")
    (tmp_path / "whole.py").write_text(filler + "def g():\n    " + LINE.replace("\n", "\n    "))
    (tmp_path / "stub.pyi").write_text("import torch\n\n\n" + filler + "def h():\n    " + LINE.splitlines()[1] + "\n")
    paths = [str(tmp_path / p) for p in ("sliced.py", "whole.py", "stub.pyi")] + _tree(tmp_path, 8, padding=1000)
    serial = scan(paths, ScanOptions(select_rules(), settings_at("2.12"), jobs=1))
    alone = []
    real = workers.isolated
    monkeypatch.setattr(workers, "isolated", lambda fn, job, *a: alone.append(job.path) or real(fn, job, *a))
    pooled = scan(paths, ScanOptions(select_rules(), settings_at("2.12"), jobs=2))
    assert alone == [str(tmp_path / "whole.py")]
    assert pooled.findings == serial.findings and len(pooled.findings) == 11  # a stub is sliced as a module is
