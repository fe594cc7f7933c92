"""The release row (tools/miner/release_row.py): the new torch release's line in advisor/core/releases.py, from the
wheels' METADATA. The real-wheel check needs torch 2.15.0 and torchvision 0.29.2 in the caches and skips without."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import pytest

from tests.tool_modules import load_tool

release_row = load_tool("miner.release_row")
WHEELS = Path(os.environ.get("ADVISOR_WHEELS", Path.home() / ".cache" / "advisor-wheels"))
COMPANIONS = Path.home() / ".cache" / "advisor-companion-wheels"


def _wheel(tmp: Path, name: str, version: str, *headers: str) -> Path:
    path = tmp / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"{h}\n" for h in headers)
        zf.writestr(f"{name}-{version}.dist-info/METADATA", meta + "\n")
    return path


def _rows(tmp: Path) -> Path:
    path = tmp / "releases.py"
    path.write_text(release_row.RELEASES.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def test_the_row_comes_from_the_wheels(tmp_path):
    torch = _wheel(tmp_path, "torch", "9.1.0", "Requires-Python: >=3.12")
    tv = _wheel(tmp_path, "torchvision", "0.40.1", "Requires-Dist: torch (==9.1.0)")
    ta = _wheel(tmp_path, "torchaudio", "9.1.0", "Requires-Dist: torch==9.1.0")
    path = _rows(tmp_path)
    row = release_row.add_row(torch, "9.1.0", {"torchvision": tv, "torchaudio": ta}, path)
    assert row == 'Release("9.1", "0.40", "9.1", "3.12"),'
    assert release_row.rows(path.read_text(encoding="utf-8"))[-1] == {
        "torch": "9.1",
        "tv": "0.40",
        "ta": "9.1",
        "py": "3.12",
    }
    assert release_row.add_row(torch, "9.1.0", {}, path) is None  # already there: written once


def test_a_companion_for_another_torch_is_refused(tmp_path):
    torch = _wheel(tmp_path, "torch", "9.1.0", "Requires-Python: >=3.12")
    tv = _wheel(tmp_path, "torchvision", "0.40.0", "Requires-Dist: torch (==9.0.0)")
    with pytest.raises(SystemExit, match="does not require torch 9.1.0"):
        release_row.add_row(torch, "9.1.0", {"torchvision": tv}, _rows(tmp_path))


@pytest.mark.parametrize(
    "pin,admits",
    [("torch (==2.16.0)", True), ("torch==2.15.0", False), ("torch (>=2.14.0)", True), ("torch<2.17,>=2.14", False)],
)
def test_pins(pin, admits):
    assert release_row._admits(pin, "2.16.0") is admits


def test_the_2_15_row_again_from_the_real_wheels(tmp_path):
    torch = next(iter(sorted(WHEELS.glob("torch-2.15.0-*.whl"))), None)
    tv = next(iter(sorted(COMPANIONS.glob("torchvision-0.29.2-*.whl"))), None)
    if torch is None or tv is None:
        pytest.skip("needs the torch 2.15.0 and torchvision 0.29.2 wheels (tests never download)")
    text = release_row.RELEASES.read_text(encoding="utf-8")
    path = tmp_path / "releases.py"
    path.write_text(text.replace('    Release("2.15", "0.29", "2.11", "3.11"),\n', ""), encoding="utf-8")
    assert release_row.add_row(torch, "2.15.0", {"torchvision": tv}, path) == 'Release("2.15", "0.29", "2.11", "3.11"),'
    assert path.read_text(encoding="utf-8") == text
