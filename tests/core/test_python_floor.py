"""ADV781 is advice where pip can pick an older torch, breaking only where nothing the project accepts installs."""

from __future__ import annotations

import subprocess
import sys

import pytest

PYPROJECT = '[project]\nname = "p"\nrequires-python = "{python}"\ndependencies = ["{torch}"]\n'


def _scan(tmp_path, python: str, torch: str) -> subprocess.CompletedProcess:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT.format(python=python, torch=torch))
    return subprocess.run(
        # `full`: the whole message (concise output keeps only what and the remedy)
        [sys.executable, "-m", "advisor", "scan", ".", "--no-cache", "--output-format", "full"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_python_older_than_the_newest_torch_needs_is_a_planning_fact_and_the_scan_passes(tmp_path):
    proc = _scan(tmp_path, ">=3.10", "torch>=2.7")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "ADV781" in proc.stdout and "there pip installs torch <= 2.14" in proc.stdout
    assert "1 advice" in proc.stdout


@pytest.mark.parametrize(
    ("python", "torch", "needs"), [(">=3.10", "torch>=2.15", "3.11"), (">=3.9", "torch>=2.9", "3.10")]
)
def test_it_breaks_where_no_torch_the_project_accepts_installs(tmp_path, python, torch, needs):
    proc = _scan(tmp_path, python, torch)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "ADV781 breaks in" in proc.stdout and f"requires Python >= {needs}" in proc.stdout
