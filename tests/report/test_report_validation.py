"""The report and its runtime validation scripts: rendering, safety, real runs, and real failures."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import py_compile
import re
import urllib.parse
import shutil
import subprocess
import sys

import pytest

from advisor.report.validation import CHECKS, write_scripts
from tests.conftest import FIXTURES, run_cli

FIXTURE = os.path.join(FIXTURES, "project")
NASTY = "x'\"<img src=x onerror=alert(1)>.py"


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("rep") / "project"
    shutil.copytree(FIXTURE, root)
    (root / NASTY).write_text(
        "import torch\nx = torch.cuda.is_current_stream_capturing()\nf = getattr(torch.cuda, name)\n"
    )
    out = root / "report"
    proc = run_cli("scan", ".", "--no-cache", "--target-version", "2.12", "--report", "report", cwd=root)
    assert proc.returncode == 1, proc.stderr
    return out


def test_report_files_and_links(report_dir):
    md = (report_dir / "report.md").read_text()
    html = (report_dir / "report.html").read_text()
    # Grouped by kind, what breaks first.
    order = [
        md.index(f"## {t}")
        for t in ("Breaking on the target", "Deprecated on the target", "Advice", "Compat fallbacks")
    ]
    assert order == sorted(order)
    # Every link points at a file that exists (source links carry a #L<line> anchor for GitHub's viewer).
    for link in set(re.findall(r"\]\(([^)]+)\)", md)) | set(re.findall(r'href="([^"]+)"', html)):
        assert (report_dir / urllib.parse.unquote(link.split("#")[0])).exists(), link
    # Unparsable files and dynamic access are listed, so "0 findings" is never read as "nothing to do".
    assert "broken.py" in md and "dynamic access" in md


def test_scan_output_does_not_list_report_only_findings(tmp_path):
    (tmp_path / "m.py").write_text("import torch\nf = getattr(torch.cuda, name)\n")
    proc = run_cli("scan", "m.py", "--no-cache", "--report", "r", cwd=tmp_path)
    assert proc.returncode == 0 and "ADV900" not in proc.stdout
    assert "dynamic access" in (tmp_path / "r" / "report.md").read_text()


def test_scanned_text_is_inert_in_html_and_markdown(report_dir):
    html = (report_dir / "report.html").read_text()
    assert "<img src=x" not in html and "&lt;img src=x onerror=alert(1)&gt;" in html
    md = (report_dir / "report.md").read_text()
    # Inside a code span Markdown shows text verbatim (never HTML); outside one no tag may open.
    outside = re.sub(r"(`+)(?:(?!\1).)+?\1", "", md)
    assert "<img" not in outside and "`x'\"<img src=x onerror=alert(1)>.py:2:5`" in md


def test_scanned_text_is_a_literal_in_scripts(report_dir):
    script = (report_dir / "validation" / "stream_capture.py").read_text()
    tree = ast.parse(script)
    sites = next(
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "SITES"
    )
    assert [NASTY, 2] in sites


@pytest.fixture(scope="module")
def all_scripts(tmp_path_factory):
    out = tmp_path_factory.mktemp("scripts")
    write_scripts(str(out), [], checks=list(CHECKS))
    return out / "validation"


@pytest.mark.parametrize("check", CHECKS)
def test_every_script_compiles(all_scripts, check):
    py_compile.compile(str(all_scripts / f"{check}.py"), doraise=True)


try:  # not a module-level importorskip: the torch-free tests of this module must run everywhere
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
_gpu = torch is not None and torch.cuda.is_available()
_rocm = torch is not None and torch.version.hip is not None


@needs_torch
@pytest.mark.parametrize("check", CHECKS)
def test_every_script_passes_or_skips_on_cpu(all_scripts, check, tmp_path):
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, str(all_scripts / f"{check}.py"), "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())["results"]
    assert results, "no sub-check ran"
    for r in results:
        assert r["status"] in ("PASS", "SKIP"), r
        if r["status"] == "SKIP":
            assert r["detail"], "a SKIP must say why"
    lines = [ln for ln in proc.stdout.splitlines() if re.match(r"^(PASS|FAIL|SKIP) ", ln)]
    assert len(lines) == len(results)


def _load(all_scripts, check):
    spec = importlib.util.spec_from_file_location(f"advisor_check_{check}", all_scripts / f"{check}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fails(module, argv=()):
    code = module.main(module.CHECKS, argv=list(argv))
    return code == 1 and any(r["status"] == "FAIL" for r in module.RESULTS)


class _FakeStream:
    def __init__(self, *a, **k):
        pass

    def is_capturing(self):
        return True


@needs_torch
def test_stream_capture_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "stream_capture")
    monkeypatch.setattr(torch, "Stream", _FakeStream)
    assert _fails(m)


@needs_torch
def test_linalg_eigh_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "linalg_eigh")
    real = torch.linalg.eigh

    def wrong(a, *args, **kw):
        w, v = real(a, *args, **kw)
        return w * 1.01, v

    monkeypatch.setattr(torch.linalg, "eigh", wrong)
    assert _fails(m)


@needs_torch
@pytest.mark.skipif(_gpu, reason="assumes no GPU")
@pytest.mark.parametrize("check", ["graph_capture", "stream_capture", "profiler_events", "nccl_backend"])
def test_asking_for_cuda_without_cuda_skips_with_a_reason(all_scripts, check):
    """`--device cuda` where CUDA is missing is not a failure of the new behaviour: SKIP, never an AssertionError."""
    m = _load(all_scripts, check)
    assert m.main(m.CHECKS, argv=["--device", "cuda"]) == 0
    assert [r["status"] for r in m.RESULTS] == ["SKIP"]
    assert "--device cuda" in m.RESULTS[0]["detail"] and "CUDA" in m.RESULTS[0]["detail"]


@needs_torch
@pytest.mark.skipif(_gpu, reason="assumes no GPU")
def test_nccl_backend_skips_without_two_gpus(all_scripts):
    m = _load(all_scripts, "nccl_backend")
    assert m.main(m.CHECKS, argv=[]) == 0
    assert {r["status"] for r in m.RESULTS} == {"SKIP"}
    assert all("GPU" in r["detail"] for r in m.RESULTS)


@needs_torch
def test_graph_capture_never_passes_on_the_old_pitfall(all_scripts):
    """A PASS must mean the new behaviour works: `Graph.__enter__` returning None is a SKIP, not a PASS."""
    m = _load(all_scripts, "graph_capture")
    m.main(m.CHECKS, argv=["--device", "cpu"])
    enter = [r for r in m.RESULTS if r["name"] == "accelerator_graph_enter_returns_none"]
    assert enter and (enter[0]["status"] == "SKIP" or "no longer applies" in enter[0]["detail"])


@needs_torch
def test_cond_capture_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "cond_capture")
    monkeypatch.setattr(torch, "cond", lambda pred, t, f, ops: f(*ops))
    assert _fails(m)


@needs_torch
def test_export_roundtrip_fails_where_e8m0_cannot_be_saved(all_scripts, monkeypatch):
    m = _load(all_scripts, "export_roundtrip")

    def old_save(*a, **k):  # what torch <= 2.11 does
        raise KeyError(torch.float8_e8m0fnu)

    monkeypatch.setattr(torch.export, "save", old_save)
    assert _fails(m)


@needs_torch
def test_export_roundtrip_leaves_nothing_in_the_temp_dir(all_scripts, monkeypatch, tmp_path):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where mkdtemp and TemporaryDirectory make folders
    m = _load(all_scripts, "export_roundtrip")
    m.main(m.CHECKS, argv=[])
    assert any(r["name"] == "export_e8m0_roundtrip" and r["status"] == "PASS" for r in m.RESULTS), m.RESULTS
    assert list(tmp_path.iterdir()) == []


@needs_torch
def test_compiled_numerics_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "compiled_numerics")

    def bad_compile(fn, *a, **k):
        def step(*args, **kwargs):
            out = fn(*args, **kwargs)
            for group in fn.__self__.param_groups:
                for p in group["params"]:
                    p.data.add_(1e-3)
            return out

        return step

    monkeypatch.setattr(torch, "compile", bad_compile)
    assert _fails(m)


@needs_torch
def test_profiler_events_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "profiler_events")
    from torch.autograd import profiler_util

    monkeypatch.setattr(profiler_util.FunctionEvent, "cuda_time_total", property(lambda self: 0))
    assert _fails(m)


@needs_torch
def test_amp_migration_can_fail(all_scripts, monkeypatch):
    m = _load(all_scripts, "amp_migration")
    import contextlib

    monkeypatch.setattr(torch.amp, "autocast", lambda *a, **k: contextlib.nullcontext())
    assert _fails(m)


@needs_torch
def test_validate_runs_scripts_and_updates_the_report(report_dir):
    # A real process, the smoke test of `advisor validate`: it starts the scripts as its own children.
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "validate", str(report_dir)], capture_output=True, text=True, timeout=900
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads((report_dir / "validation-results.json").read_text())
    assert results["torch"].startswith("2.") and results["device"] == "cpu"
    names = {c["name"] for c in results["checks"]}
    assert {"stream_capture", "linalg_eigh", "export_roundtrip"} <= names
    for c in results["checks"]:
        assert set(c) >= {"name", "script", "status", "detail"}
        assert c["status"] in ("PASS", "SKIP"), c
    html = (report_dir / "report.html").read_text()
    assert 'class="badge PASS"' in html and "validated with torch" in html


def test_validate_rejects_a_non_report_directory(tmp_path):
    proc = run_cli("validate", str(tmp_path))
    assert proc.returncode == 2 and "findings.json" in proc.stderr


# -- rocm_runtime: SKIPs off ROCm; its ROCm branches are exercised by faking only torch.version.hip --


@needs_torch
@pytest.mark.skipif(_rocm, reason="assumes a build that is not ROCm")
def test_rocm_runtime_skips_every_check_off_rocm(all_scripts):
    m = _load(all_scripts, "rocm_runtime")
    assert m.main(m.CHECKS, argv=[]) == 0
    assert {r["status"] for r in m.RESULTS} == {"SKIP"}
    assert all("not a ROCm build" in r["detail"] for r in m.RESULTS)


@needs_torch
@pytest.mark.skipif(_gpu, reason="assumes no GPU")
def test_rocm_runtime_on_a_gpuless_rocm_build_host(all_scripts, monkeypatch):
    """A ROCm wheel on a build host with no GPU: the real `_get_rocm_arch_flags` picks no architecture."""
    m = _load(all_scripts, "rocm_runtime")
    monkeypatch.setattr(torch.version, "hip", "7.0.51831")
    monkeypatch.delenv("PYTORCH_ROCM_ARCH", raising=False)
    assert m.main(m.CHECKS, argv=[]) == 1
    by_name = {r["name"]: r for r in m.RESULTS}
    assert by_name["extension_arch_flags"]["status"] == "FAIL"
    assert "--offload-arch= " in by_name["extension_arch_flags"]["detail"]
    assert by_name["rocm_build"]["status"] == "SKIP" and "no visible AMD GPU" in by_name["rocm_build"]["detail"]

    monkeypatch.setenv("PYTORCH_ROCM_ARCH", "gfx942;gfx950")
    assert m.main(m.CHECKS, argv=[]) == 0
    by_name = {r["name"]: r for r in m.RESULTS}
    assert by_name["extension_arch_flags"]["status"] == "PASS"
    assert "gfx942, gfx950" in by_name["extension_arch_flags"]["detail"]


@needs_torch
def test_rocm_runtime_reads_expandable_segment_runs(all_scripts):
    m = _load(all_scripts, "rocm_runtime")
    ok = 'ADVISOR-RESULT {"warned": false, "readback_ok": true, "reserved_mb": 64, "allocated_mb": 8, "segments": 3}'
    assert m.classify_expandable("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True", 0, ok, "")[0] == "PASS"
    warned = ok.replace('"warned": false', '"warned": true')
    status, detail = m.classify_expandable("PYTORCH_HIP_ALLOC_CONF", "expandable_segments:True", 0, warned, "")
    assert status == "SKIP" and "ignores it" in detail
    # The C++ warning may go to stderr instead of Python's warnings.
    status, _ = m.classify_expandable("V", "x", 0, ok, "[W] expandable_segments not supported on this platform")
    assert status == "SKIP"
    corrupt = ok.replace('"readback_ok": true', '"readback_ok": false')
    assert m.classify_expandable("V", "x", 0, corrupt, "")[0] == "FAIL"
    assert m.classify_expandable("V", "x", -11, "", "Segmentation fault")[0] == "FAIL"


@needs_torch
def test_rocm_runtime_child_script_is_valid_python(all_scripts):
    m = _load(all_scripts, "rocm_runtime")
    compile(m.CHILD, "child", "exec")


@needs_torch
def test_rocm_runtime_flex_numerics_tolerance(all_scripts):
    m = _load(all_scripts, "rocm_runtime")
    a = torch.randn(2, 4, 8, 16).to(torch.bfloat16)
    assert m.compare_outputs(a, a.clone(), "bfloat16") == (0.0, True)
    assert m.compare_outputs(a, a + 0.5, "bfloat16")[1] is False


def test_a_later_scan_skips_the_report_directory(tmp_path):
    (tmp_path / "m.py").write_text("import torch\nx = torch.cuda.is_current_stream_capturing()\n")
    first = run_cli("scan", ".", "--no-cache", "--report", "rep", "--format", "json", cwd=tmp_path)
    assert (tmp_path / "rep" / "validation" / "stream_capture.py").exists()
    again = run_cli("scan", ".", "--no-cache", "--format", "json", cwd=tmp_path)
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]
    assert all(not f["path"].startswith("rep") for f in json.loads(again.stdout)["findings"])
