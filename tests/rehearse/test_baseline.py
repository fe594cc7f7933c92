"""`advisor rehearse --baseline-python` and the statuses that are not counted: pre-existing and diagnostic.

The end-to-end test runs a tiny project's tests with this interpreter as both the target and the baseline, so
every would-be miss was also given on the baseline (pre-existing), while a confirmed record stays confirmed.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from advisor.rehearse.records import Record, baseline_keys, match, normalise, site_key
from advisor.rehearse.runner import Run
from advisor.rehearse.session import format_text
from tests.rehearse.test_rehearse import HAS_TORCH, _env, _finding, _gone, _project, _rehearse

BASELINE_TESTS = """\
import torch


def test_uint8_index():
    a, m = torch.ones(3), torch.tensor([1, 0, 1], dtype=torch.uint8)
    a[m]


def test_chain_matmul():
    torch.chain_matmul(torch.ones(2, 2), torch.ones(2, 2))


def branchy(x):
    if x.sum() > 0:
        return x * 2
    return x


def test_trace():
    torch.jit.trace(branchy, torch.ones(2))


def test_shape_error():
    torch.nn.Linear(2, 2)(torch.ones(3))
"""


@pytest.mark.skipif(not HAS_TORCH, reason="the rehearsed tests need torch")
def test_what_the_baseline_gave_too_is_pre_existing_and_a_confirmed_record_stays(tmp_path):
    root = _project(tmp_path / "proj", BASELINE_TESTS)
    out = tmp_path / "out.json"
    args = ("--python", sys.executable, "--baseline-python", sys.executable, "--format", "json", "-o", str(out))
    proc = _rehearse(*args, "--report", str(tmp_path / "report"), cwd=root, env=_env(tmp_path))
    assert proc.returncode == 1, proc.stderr  # a confirmed record is still a torch warning at a project site
    assert "with the baseline" in proc.stderr
    data = json.loads(out.read_text())
    status = {(r["line"], r["category"]): r["status"] for r in data["records"] if r["path"] == "tests/test_a.py"}
    assert status[(6, "UserWarning")] == "pre-existing"  # uint8 indexing: a C++ warning no rule knows
    assert status[(10, "UserWarning")] == "confirmed"  # chain_matmul: a finding there, baseline or not
    assert status[(14, "TracerWarning")] == "diagnostic"
    assert status[(24, "RuntimeError")] == "pre-existing"  # an error the lowest torch raises as well
    assert "missed" not in status.values()
    assert data["summary"]["missed"] == 0 and data["summary"]["pre-existing"] == 2
    assert data["baseline"]["python"] == sys.executable and data["baseline"]["torch"] == data["torch"]
    report = (tmp_path / "report" / "report.md").read_text()
    assert f"2 given on the baseline torch {data['torch']} too (pre-existing, not counted)" in report
    assert os.listdir(tmp_path / "tmp") == []  # both runs' folders are gone


def test_a_baseline_interpreter_without_torch_exits_2_before_any_test_runs(tmp_path):
    root = _project(tmp_path / "proj", "def test_plain():\n    open('ran', 'w').close()\n")
    fake = tmp_path / "python-without-torch"
    fake.write_text("#!/bin/sh\necho \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1\n")
    fake.chmod(0o755)
    proc = _rehearse("--python", sys.executable, "--baseline-python", str(fake), cwd=root, env=_env(tmp_path))
    if not HAS_TORCH:
        pytest.skip("the target --python needs torch to get as far as the baseline")
    assert proc.returncode == 2
    assert f"--baseline-python {fake}" in proc.stderr or str(fake) in proc.stderr
    assert "cannot import torch" in proc.stderr and "lowest" in proc.stderr
    assert not (root / "ran").exists()  # checked before the target's tests ran
    proc = _rehearse(
        "--baseline-python", str(tmp_path / "nothing-here"), "--python", sys.executable, cwd=root, env=_env(tmp_path)
    )
    assert proc.returncode == 2 and "--baseline-python" in proc.stderr and "no such executable file" in proc.stderr
    assert os.listdir(tmp_path / "tmp") == []


HANGS_THE_SECOND_TIME = """\
import os, subprocess, sys, time


def test_hangs_on_the_baseline():
    if not os.path.exists(os.environ["MARK"]):  # the target's run: done at once
        open(os.environ["MARK"], "w").close()
        return
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    with open(os.environ["PIDS"], "w") as f:
        f.write(f"{os.getpid()} {child.pid}")
    time.sleep(600)
"""


@pytest.mark.skipif(not HAS_TORCH, reason="--python and --baseline-python are checked for torch")
def test_a_baseline_run_that_hangs_is_stopped_whole_and_says_it_was_the_baseline(tmp_path):
    root = _project(tmp_path / "proj", HANGS_THE_SECOND_TIME)
    env = {**_env(tmp_path), "PIDS": str(tmp_path / "pids"), "MARK": str(tmp_path / "mark")}
    args = ("--python", sys.executable, "--baseline-python", sys.executable, "--timeout", "20")
    proc = _rehearse(*args, cwd=root, env=env)
    assert proc.returncode == 2
    assert "the baseline run (--baseline-python" in proc.stderr and "did not finish in 20 s" in proc.stderr
    assert _gone([int(p) for p in (tmp_path / "pids").read_text().split()])  # pytest and what it started
    assert os.listdir(tmp_path / "tmp") == []


def _record(category, message, line=3, path="pkg/m.py", kind="warning", in_torch_import=False):
    return Record(kind, category, message, path, line, in_torch_import=in_torch_import)


def test_the_classification_of_each_record(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # findings' paths are relative to advisor's working directory
    findings = [_finding("ADV2", 3, "`torch.meshgrid` without `indexing=` warns"), _finding("ADV3", 9, "tracing")]
    records = [
        _record("UserWarning", "torch.meshgrid: pass the indexing argument"),  # a finding: confirmed
        _record("TracerWarning", "Converting a tensor to a Python boolean", line=9),  # even at a finding
        _record("UserWarning", "dropout2d: Received a 3D input", line=5),  # given on the baseline too
        _record("AssertionError", "No valid profiler activities found", line=6, kind="error"),  # the same, an error
        _record("UserWarning", "only on the target", line=7),  # a miss
        _record("UserWarning", "torch's own import", line=8, in_torch_import=True),
        _record("UserWarning", "no project frame", path=None, line=None),
    ]
    before = [_record("UserWarning", "torch.meshgrid: pass the indexing argument")]  # does not unconfirm it
    before += [_record("UserWarning", "dropout2d: Received a  3D input", line=5)]
    before += [_record("AssertionError", "No valid profiler activities found", line=6, kind="error")]
    before += [_record("UserWarning", "only on the target", line=70)]  # another site: not the same warning
    baseline = {site_key(r) for r in before}
    outcome = match(records, {(str(tmp_path / "pkg" / "m.py"), 9)}, findings, str(tmp_path), baseline)
    assert [r.status for r in outcome.records] == [
        "confirmed",
        "diagnostic",
        "pre-existing",
        "pre-existing",
        "missed",
        "internal",
        "outside",
    ]
    assert [f.rule for f in outcome.silent] == ["ADV3"]  # its line ran, and a tracer diagnostic confirms nothing
    assert outcome.counts() == {
        "confirmed": 1,
        "missed": 1,
        "pre-existing": 2,
        "diagnostic": 1,
        "internal": 1,
        "outside": 1,
        "silent": 1,
    }
    text = format_text(Run(["pytest"], 0, torch="2.15.0"), outcome, "python", Run(["pytest"], 1, torch="2.13.0"))
    assert "pkg/m.py:5: [pre-existing] UserWarning: dropout2d" in text
    assert "1 missed by every rule, 2 given on the baseline torch too (pre-existing), 1 tracer diagnostic," in text
    assert text.rstrip().endswith("Baseline: torch 2.13.0, exited 1.")
    assert [r.status for r in match(records, set(), findings, str(tmp_path)).records][2:5] == ["missed"] * 3


def test_the_same_warning_on_two_runs_shares_its_key():
    assert normalise("tensor at 0x7f3a2c1d0e10 of size 12  in\n/tmp/pytest-of-root/pytest-7/tmpab12cd_x/f") == (
        "tensor at <address> of size # in /tmp/pytest-of-root/pytest-#/tmp_/f"
    )
    assert normalise("will be removed in 2.9") == normalise("will be removed in 2.16")
    assert normalise("dropout2d: Received a 3D input") != normalise("dropout1d: Received a 2D input")


def test_baseline_keys_are_the_project_sites_of_the_baseline_run(tmp_path):
    root = str(tmp_path)
    events = [
        {"event": "warning", "category": "UserWarning", "message": "m 1", "path": str(tmp_path / "a.py"), "line": 2},
        {"event": "warning", "category": "UserWarning", "message": "m", "path": None, "line": None},
        {"event": "error", "category": "RuntimeError", "message": "e", "path": str(tmp_path / "a.py"), "line": 4},
    ]
    assert baseline_keys(events, root) == {
        ("a.py", 2, "warning", "UserWarning", "m #"),
        ("a.py", 4, "error", "RuntimeError", "e"),
    }
