"""The catalogue on a realistic mixed project: every instance found, nothing else."""

import json
import shutil
from collections import Counter
import os

from tests.cli.test_end_to_end import expected_findings
from tests.conftest import FIXTURES

FIXTURE = os.path.join(FIXTURES, "mixed")


def test_mixed_project_for_a_2_12_target(cli, tmp_path):
    root = tmp_path / "mixed"
    shutil.copytree(FIXTURE, root)
    proc = cli("scan", ".", "--format", "json", "--no-cache", "--target-version", "2.12", cwd=root)
    data = json.loads(proc.stdout)
    got = Counter((os.path.normpath(f["path"]), f["line"], f["rule"]) for f in data["findings"])
    want = expected_findings(str(root))
    assert got == want, {"missing": want - got, "unexpected": got - want}
    assert data["errors"] == []


def test_2_13_only_renames_need_a_2_13_target(cli, tmp_path):
    root = tmp_path / "mixed"
    shutil.copytree(FIXTURE, root)
    proc = cli(
        "scan",
        "profiling.py",
        "--format",
        "json",
        "--no-cache",
        "--target-version",
        "2.13",
        "--select",
        "ADV739",
        cwd=root,
    )
    findings = json.loads(proc.stdout)["findings"]
    assert [f["rule"] for f in findings] == ["ADV739"]
    assert "all_gather_single" in findings[0]["message"]
