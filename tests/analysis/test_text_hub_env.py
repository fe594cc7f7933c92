"""ADV162 in the files the text scanner reads: `TORCH_HUB` / `TORCH_MODEL_ZOO` set in scripts and Dockerfiles."""

from __future__ import annotations

import pytest

from advisor.analysis.registry import rule_by_code
from advisor.analysis.textfiles import scan_text

pytestmark = pytest.mark.torch_free

SCRIPT = """#!/bin/bash
# export TORCH_HUB=/old   (a comment: not reported)
export TORCH_HUB=/data/hub
echo "$TORCH_HUB"
TORCH_MODEL_ZOO=/models python train.py
export TORCH_HOME=/data
docker run -e TORCH_HUB=/h image
"""
DOCKERFILE = "FROM python:3.11\nENV TORCH_HUB /cache/hub\nENV TORCH_HOME=/cache\nENV MY_TORCH_HUB_DIR=/x\n"


@pytest.mark.parametrize("name,text,lines", [("run.sh", SCRIPT, [3, 5, 7]), ("Dockerfile", DOCKERFILE, [2])])
def test_hub_variables_are_found_where_they_are_set(tmp_path, name, text, lines):
    found = scan_text(str(tmp_path / name), text.encode(), [rule_by_code("ADV162")], target=(2, 15)).findings
    assert [f.line for f in found] == lines
    assert all("TORCH_HOME" in f.message for f in found)
