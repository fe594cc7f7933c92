"""ADV154 in the files the text scanner reads: shell scripts, Makefiles and Dockerfiles (not only Python)."""

from __future__ import annotations

import pytest

from advisor.analysis.registry import rule_by_code
from advisor.analysis.textfiles import is_text_file, scan_text

pytestmark = pytest.mark.torch_free

SCRIPT = """#!/bin/bash
# python -m torch.distributed.launch --nproc_per_node 2 train.py   (a comment: not reported)
python -m torch.distributed.launch --nproc_per_node 2 train.py
torchrun --nproc_per_node 2 train.py
python -m torch.distributed.run --nproc_per_node 2 train.py
python -m torch.distributed.launcher_tools x
"""
MAKEFILE = "train:\n\tpython -m torch.distributed.launch --nproc_per_node=8 train.py\n"
DOCKERFILE = (
    'FROM python:3.11\nCMD ["python", "-m", "torch.distributed.launch", "t.py"]\n'
    "RUN python /usr/lib/python3/site-packages/torch/distributed/launch.py t.py\n"
)


@pytest.mark.parametrize(
    "name,text,lines",
    [
        ("run.sh", SCRIPT, [3]),
        ("Makefile", MAKEFILE, [2]),
        ("Dockerfile", DOCKERFILE, [2, 3]),
        ("rules.mk", MAKEFILE, [2]),
    ],
)
def test_launch_is_found_in_text_files(tmp_path, name, text, lines):
    assert is_text_file(name)
    found = scan_text(str(tmp_path / name), text.encode(), [rule_by_code("ADV154")], target=(2, 15)).findings
    assert [f.line for f in found] == lines
    assert all("torchrun" in f.message and "LOCAL_RANK" in f.message for f in found)
    assert all(f.warns_from == "2.0" for f in found)


def test_the_column_points_at_the_module(tmp_path):
    (finding,) = scan_text(
        str(tmp_path / "Makefile"), MAKEFILE.encode(), [rule_by_code("ADV154")], target=(2, 15)
    ).findings
    assert MAKEFILE.splitlines()[1][finding.column - 1 :].startswith("torch.distributed.launch")
