"""What Ruff users expect (issue 38): short concise lines, -q, --show-settings/--show-files, --stdin-filename alone,
--add-noqa merging into `# noqa:`, `fix --statistics`, "in K of M files", companion targets checked, run_all's device."""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys

import pytest

from tests.conftest import ROOT, run_cli

CHAIN = "import torch\nx = torch.chain_matmul(a, b, c)\n"


def test_concise_lines_are_short_and_full_keeps_the_evidence():
    demo = os.path.join(ROOT, "examples", "demo")
    concise = run_cli("scan", ".", "--no-cache", "--min-torch", "2.0", cwd=demo).stdout
    lengths = [len(m) for m in re.findall(r"^\S+: ADV\d+(?: \[\*\]| \[unsafe fix\])? (.*)$", concise, re.M)]
    assert lengths and statistics.median(lengths) <= 100 and max(lengths) <= 160, lengths
    assert "(warns from" not in concise and "(no fix:" not in concise
    full = run_cli("scan", ".", "--no-cache", "--min-torch", "2.0", "--output-format", "full", cwd=demo).stdout
    assert "(warns from" in full


def test_quiet_drops_the_lower_bound_note(tmp_path):
    (tmp_path / "m.py").write_text(CHAIN)
    loud = run_cli("scan", "m.py", "--no-cache", cwd=tmp_path)
    assert "no torch lower bound found" in loud.stderr
    quiet = run_cli("scan", "m.py", "--no-cache", "-q", cwd=tmp_path)
    assert quiet.stderr == "" and "ADV720" in quiet.stdout and "Found" not in quiet.stdout


def test_found_in_k_of_m_files(tmp_path):
    (tmp_path / "a.py").write_text(CHAIN)
    (tmp_path / "b.py").write_text("x = 1\n")
    assert "Found 1 finding in 1 of 2 files" in run_cli("scan", ".", "--no-cache", cwd=tmp_path).stdout


def test_show_settings_and_files(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\ndependencies = ["torch>=2.3"]\n')
    (tmp_path / "m.py").write_text(CHAIN)
    settings = run_cli("scan", "--show-settings", cwd=tmp_path)
    assert settings.returncode == 0 and "ADV720" not in settings.stdout
    assert "lowest supported torch: 2.3 (torch pin 'torch>=2.3' in pyproject.toml:3)" in settings.stdout
    assert "config: " in settings.stdout and "target torch: " in settings.stdout
    files = run_cli("scan", "--show-files", cwd=tmp_path)
    assert files.returncode == 0 and files.stdout.split() == ["m.py", "pyproject.toml"]


def test_stdin_filename_alone_reads_stdin(tmp_path):
    proc = run_cli("scan", "--stdin-filename", "m.py", "--no-cache", cwd=tmp_path, input=CHAIN)
    assert proc.returncode == 1 and "m.py:2:5: ADV720" in proc.stdout


def test_add_noqa_merges_into_an_existing_noqa(tmp_path):
    text = (
        "import torch\n"
        "x = torch.chain_matmul(a, b, c)  # noqa: E501\n"
        "y = torch.chain_matmul(a, b, c)  # keep\n"
        's = "# noqa: E1"; z = torch.chain_matmul(a, b, c)\n'
    )
    (tmp_path / "m.py").write_text(text)
    assert run_cli("scan", "m.py", "--add-noqa", "--no-cache", cwd=tmp_path).returncode == 0
    lines = (tmp_path / "m.py").read_text().splitlines()
    assert lines[1].endswith("# noqa: E501, ADV720")
    assert lines[2].endswith("# keep  # advisor: ignore[ADV720]")
    assert lines[3] == 's = "# noqa: E1"; z = torch.chain_matmul(a, b, c)  # advisor: ignore[ADV720]'
    assert run_cli("scan", "m.py", "--no-cache", cwd=tmp_path).returncode == 0


def test_fix_statistics_counts_what_is_left(tmp_path):
    (tmp_path / "m.py").write_text(CHAIN + "y = torch.cross(a, b)\n")
    proc = run_cli("fix", "m.py", "--statistics", cwd=tmp_path)
    assert re.search(r"^1\s+ADV792\s+cross-without-dim$", proc.stdout, re.M), proc.stdout
    assert "m.py:3" not in proc.stdout and "Fixed 1 finding in 1 file" in proc.stdout


def test_companion_targets_are_checked(tmp_path):
    (tmp_path / "m.py").write_text(CHAIN)
    bad = run_cli("scan", "m.py", "--no-cache", "--target", "torchvision=9.9", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown --target torchvision=9.9" in bad.stderr
    assert run_cli("scan", "m.py", "--no-cache", "--target", "torchvision=0.29", cwd=tmp_path).returncode == 1


def test_run_all_refuses_a_device_torch_does_not_see(tmp_path):
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    (tmp_path / "m.py").write_text("import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
    run_cli("scan", "m.py", "--no-cache", "--report", "rep", cwd=tmp_path)
    proc = subprocess.run(
        [sys.executable, str(tmp_path / "rep" / "validation" / "run_all.py"), "--device", "cuda"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 2 and "nothing was run" in proc.stderr and "== " not in proc.stdout
