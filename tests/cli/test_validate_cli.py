"""`advisor validate`'s device check and exit rule, through the real CLI (issue #29 item 8, issue #31).

`--device cuda` where the interpreter's torch sees no CUDA device is a usage error that runs nothing and
keeps earlier results; a check whose real sub-check was skipped is SKIP, not PASS; the run exits 0 only
if nothing failed and something ran.
"""

import json

import pytest

torch = pytest.importorskip("torch")
no_cuda = pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without CUDA")

STREAM = "import torch\nx = torch.cuda.is_current_stream_capturing()\n"  # ADV101 -> the stream_capture check


@pytest.fixture
def report_dir(cli, tmp_path):
    (tmp_path / "a.py").write_text(STREAM)
    assert cli("scan", "a.py", "--no-cache", "--report", "rep", cwd=tmp_path).returncode == 0
    earlier = {
        "torch": "2.13.0",
        "device": "cuda",
        "python": "x",
        "checks": [{"name": "stream_capture", "status": "PASS"}],
    }
    (tmp_path / "rep" / "validation-results.json").write_text(json.dumps(earlier))
    return tmp_path / "rep"


@no_cuda
def test_device_cuda_without_cuda_is_a_usage_error_that_keeps_results(cli, report_dir):
    before = (report_dir / "validation-results.json").read_bytes()
    html = (report_dir / "report.html").read_bytes()
    proc = cli("validate", str(report_dir), "--device", "cuda")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--device cuda" in proc.stderr and "nothing was run and earlier results are kept" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert (report_dir / "validation-results.json").read_bytes() == before
    assert (report_dir / "report.html").read_bytes() == html


@no_cuda
def test_stream_capture_on_cpu_is_skip_and_the_run_exits_1(cli, report_dir):
    proc = cli("validate", str(report_dir))
    results = json.loads((report_dir / "validation-results.json").read_text())
    (check,) = [c for c in results["checks"] if c["name"] == "stream_capture"]
    # Its sanity sub-checks passed, but the capture agreement it exists for could not run here.
    assert check["status"] == "SKIP", check
    assert "PASS cpu_stream_not_capturing" in check["detail"] and "SKIP capture_agreement" in check["detail"]
    assert proc.returncode == 1 and "no check ran here" in proc.stderr


def test_validate_exits_0_when_a_check_passed(cli, tmp_path):
    # linalg_eigh runs on the CPU too: a real PASS, so the run passes.
    (tmp_path / "a.py").write_text(
        "import torch\nw, v = torch.linalg.eigh(torch.randn(4, 8, 8))\n"
        "torch.backends.cuda.preferred_linalg_library('magma')\n"
    )
    cli("scan", "a.py", "--no-cache", "--report", "rep", "--select", "ADV201", cwd=tmp_path)
    proc = cli("validate", str(tmp_path / "rep"))
    statuses = {
        c["name"]: c["status"] for c in json.loads((tmp_path / "rep" / "validation-results.json").read_text())["checks"]
    }
    assert statuses.get("linalg_eigh") == "PASS", statuses
    assert proc.returncode == 0, proc.stdout + proc.stderr
