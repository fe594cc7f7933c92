"""`advisor fix --diff | git apply --check` passes on every fixture, final newline or not, any encoding."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from tests.conftest import ROOT, run_cli

TREES = [
    "examples/demo",
    "tests/fixtures/fix",
    "tests/fixtures/mixed",
    "tests/fixtures/project",
    "tests/fixtures/ruffclean",
]

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _diff(cwd, *args) -> subprocess.CompletedProcess:
    return run_cli("fix", "--diff", *args, ".", cwd=cwd, binary=True)


def _check(cwd, patch: bytes) -> None:
    (cwd / ".." / "p.diff").write_bytes(patch)
    proc = subprocess.run(["git", "apply", "--check", "../p.diff"], cwd=cwd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr + patch.decode("utf-8", "replace")


@pytest.mark.parametrize("tree", TREES)
def test_fix_diff_applies_with_git(tmp_path, tree):
    work = tmp_path / "tree"
    shutil.copytree(os.path.join(ROOT, tree), work)
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    proc = _diff(work, "--unsafe-fixes")
    assert proc.stdout.startswith(b"--- a/"), proc.stderr  # stdout: the diff alone, summary on stderr
    assert b"Would fix" in proc.stderr and b"Would fix" not in proc.stdout
    _check(work, proc.stdout)


def test_fix_diff_without_final_newline(tmp_path):
    work = tmp_path / "tree"
    work.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    (work / "last.py").write_bytes(b"import torch\nx = torch.chain_matmul(a, b, c)")
    (work / "after.py").write_bytes(b"import torch\nx = torch.chain_matmul(a, b, c)\ny = 1")
    patch = _diff(work).stdout
    assert patch.count(b"\\ No newline at end of file\n") == 3  # old and new last line of last.py; after.py's
    _check(work, patch)
    # The fixed files are what `advisor fix` writes.
    subprocess.run(["git", "apply", "../p.diff"], cwd=work, check=True)
    assert (work / "last.py").read_bytes() == b"import torch\nx = torch.linalg.multi_dot([a, b, c])"
