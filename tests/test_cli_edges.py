"""The edges a user meets (issue 17, bugs 2-6 and the Ruff conventions), each through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

# A fix that removes a line (the `from` import) above a finding that has no fix.
SHIFTING = '''import torch
import torch.nn.functional as F
from torch.cuda.amp import custom_fwd


class Fn(torch.autograd.Function):
    @staticmethod
    @custom_fwd
    def forward(ctx, x):
        return x


y = F.softmax(torch.ones(3))
'''


# --- bug 2: fix --diff reports what remains at the lines of the file on disk ---------

def test_fix_diff_reports_remaining_findings_at_lines_on_disk(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("fix", "a.py", "--diff", cwd=tmp_path)
    assert "a.py:13:5: ADV717" in proc.stdout, proc.stdout  # line 13 on disk (12 in the never-written text)
    assert (tmp_path / "a.py").read_text() == SHIFTING
    scan = cli("scan", "a.py", "--no-cache", "--select", "ADV717", cwd=tmp_path)
    assert "a.py:13:5: ADV717" in scan.stdout


def test_fix_reports_remaining_findings_at_lines_of_the_written_file(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("fix", "a.py", cwd=tmp_path)
    assert "a.py:12:5: ADV717" in proc.stdout, proc.stdout  # the file now written has it at line 12
    assert (tmp_path / "a.py").read_text().splitlines()[11].startswith("y = F.softmax")


# --- bug 3: --exit-zero forces 0 with fix --diff -----------------------------------

def test_fix_diff_exit_zero(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    assert cli("fix", "a.py", "--diff", cwd=tmp_path).returncode == 1
    proc = cli("fix", "a.py", "--diff", "--exit-zero", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "@torch.amp.custom_fwd" in proc.stdout


# --- bug 4: validate never passes while checking nothing ---------------------------

@pytest.fixture
def report_dir(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    assert cli("scan", "a.py", "--no-cache", "--report", "rep", cwd=tmp_path).returncode == 1
    good = {"torch": "2.13.0", "device": "cpu", "python": "x", "checks": [{"name": "amp_migration", "status": "PASS"}]}
    (tmp_path / "rep" / "validation-results.json").write_text(json.dumps(good))
    return tmp_path / "rep"


def test_validate_with_missing_interpreter_is_a_usage_error_and_keeps_results(cli, report_dir):
    before = (report_dir / "validation-results.json").read_text()
    proc = cli("validate", str(report_dir), "--python", "/no/such/file")
    assert proc.returncode == 2
    assert "/no/such/file" in proc.stderr and "Traceback" not in proc.stderr
    assert (report_dir / "validation-results.json").read_text() == before


def test_validate_without_torch_says_so_and_fails(cli, report_dir, tmp_path):
    # An interpreter without torch: this one, without its site-packages.
    wrapper = tmp_path / "python-without-torch"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "$@"\n')
    wrapper.chmod(0o755)
    before = (report_dir / "validation-results.json").read_text()
    proc = cli("validate", str(report_dir), "--python", str(wrapper))
    assert proc.returncode != 0
    assert "cannot import torch" in proc.stderr
    assert "SKIP" not in proc.stdout and "report updated" not in proc.stderr
    assert (report_dir / "validation-results.json").read_text() == before
