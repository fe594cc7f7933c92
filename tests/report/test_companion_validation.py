"""The companion validation scripts (`audio_io`, `vision_weights`): rendered from real findings, and
they SKIP (never FAIL) where the library is absent or cannot load with this torch."""

from __future__ import annotations

import ast
import importlib.util
import json
import subprocess
import sys

import pytest

from advisor.report.validation import CHECKS
from tests.conftest import run_cli

PROJECT = (
    "import torchvision\nimport torchaudio\n"
    "m = torchvision.models.resnet50(pretrained=True)\n"
    "wav, sr = torchaudio.load('a.wav')\n"
)


def _importable(name: str) -> bool:
    if importlib.util.find_spec(name) is None:
        return False
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True)
    return proc.returncode == 0


@pytest.fixture(scope="module")
def scripts(tmp_path_factory):
    root = tmp_path_factory.mktemp("companions")
    (root / "proj.py").write_text(PROJECT)
    proc = run_cli("scan", "proj.py", "--no-cache", "--report", "rep", cwd=root)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return root / "rep" / "validation"


def _literal(path, name):
    tree = ast.parse(path.read_text())
    return next(
        ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == name
    )


def test_checks_are_registered():
    assert {"audio_io", "vision_weights"} <= set(CHECKS)


def test_findings_feed_the_scripts(scripts):
    assert _literal(scripts / "audio_io.py", "SITES") == [["proj.py", 4]]
    assert _literal(scripts / "vision_weights.py", "MODELS") == [
        ["torchvision.models.resnet50", "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"]
    ]


@pytest.mark.parametrize("check,library", [("audio_io", "torchaudio"), ("vision_weights", "torchvision")])
def test_skip_without_the_library(scripts, tmp_path, check, library):
    pytest.importorskip("torch")
    if _importable(library):
        pytest.skip(f"{library} imports here: the SKIP path is not what runs")
    out = tmp_path / "r.json"
    proc = subprocess.run(
        [sys.executable, str(scripts / f"{check}.py"), "--json", str(out)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(out.read_text())["results"]
    assert results and all(r["status"] == "SKIP" and library in r["detail"] for r in results), results
