"""The real CLI on a realistic fixture project with aliases, shadowing and other-library traps.

Expected findings are written in the fixture itself, as `# expect: ADV101, ADV101`
comments on the lines that must be flagged. Every other line must stay silent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter

import pytest
from tests.conftest import FIXTURES

FIXTURE = os.path.join(FIXTURES, "project")
_EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>ADV\d{3}(?:\s*,\s*ADV\d{3})*)")


def expected_findings(root: str) -> Counter:
    want: Counter = Counter()
    for dirpath, _, files in os.walk(root):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = _EXPECT.search(line)
                    if m:
                        for code in m.group("codes").split(","):
                            want[(rel, lineno, code.strip())] += 1
    return want


@pytest.fixture
def project(tmp_path):
    dst = tmp_path / "project"
    shutil.copytree(FIXTURE, dst)
    return dst


def _scan_json(cli, root, *extra):
    proc = cli("scan", ".", "--format", "json", "--no-cache", "--target-version", "2.12", *extra, cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return proc, json.loads(proc.stdout)


def test_finds_exactly_the_expected_findings(cli, project):
    proc, data = _scan_json(cli, project)
    got = Counter((os.path.normpath(f["path"]), f["line"], f["rule"]) for f in data["findings"])
    want = expected_findings(str(project))
    assert got == want, {"missing": want - got, "unexpected": got - want}
    assert proc.returncode == 1


def test_syntax_error_is_reported_and_the_run_goes_on(cli, project):
    proc, data = _scan_json(cli, project)
    assert [e["path"] for e in data["errors"]] == ["broken.py"]
    assert "syntax error" in data["errors"][0]["message"]
    assert data["summary"]["files"] == 7  # the .py files; notes.txt is not Python


def test_json_format_is_stable(cli, project):
    _, data = _scan_json(cli, project)
    assert set(data) == {
        "version",
        "target_version",
        "target_source",
        "min_torch",
        "min_torch_source",
        "findings",
        "errors",
        "summary",
        "device",
    }
    assert set(data["device"]) == {"rocm", "source", "markers"}
    assert data["target_version"] == "2.12"
    f = data["findings"][0]
    assert set(f) == {
        "rule",
        "name",
        "severity",
        "path",
        "line",
        "column",
        "end_line",
        "end_column",
        "message",
        "fix",
        "validation",
        "cell",
        "kind",
        "warns_from",
        "breaks_in",
    }
    assert f["kind"] in ("breaking", "deprecated", "advice", "compat")
    assert set(data["summary"]["by_kind"]) == {"breaking", "deprecated", "advice", "compat"}
    assert f["line"] >= 1 and f["column"] >= 1
    assert f["fix"] is None or f["fix"]["applicability"] in ("safe", "unsafe")
    assert data["summary"]["findings"] == len(data["findings"])
    assert data["summary"]["suppressed"] == 3


def test_text_output_and_exit_codes(cli, project):
    proc = cli("scan", "trainer/capture.py", "--no-cache", cwd=project)
    assert proc.returncode == 1
    first = proc.stdout.splitlines()[0]
    assert re.match(r"^trainer/capture\.py:\d+:\d+: ADV\d{3} ", first), first
    assert "\033[" not in proc.stdout  # no colour when piped
    clean = cli("scan", "trainer/__init__.py", "--no-cache", cwd=project)
    assert clean.returncode == 0, clean.stdout
    assert cli("scan", "trainer/capture.py", "--no-cache", "--exit-zero", cwd=project).returncode == 0


def test_select_and_ignore(cli, project):
    _, data = _scan_json(cli, project, "--select", "ADV2")
    assert data["findings"] and {f["rule"][:4] for f in data["findings"]} == {"ADV2"}
    _, data = _scan_json(cli, project, "--ignore", "ADV1,ADV2,ADV3,ADV4,ADV5")
    assert {f["rule"][:4] for f in data["findings"]} == {"ADV6"}


@pytest.mark.parametrize("bad", ["ADV999", "XYZ", "ADV10x"])
def test_unknown_rule_code_is_a_usage_error(cli, project, bad):
    proc = cli("scan", ".", "--select", bad, cwd=project)
    assert proc.returncode == 2
    assert bad in proc.stderr


def test_missing_path_is_a_usage_error(cli, project):
    proc = cli("scan", "nope.py", cwd=project)
    assert proc.returncode == 2 and "nope.py" in proc.stderr


def test_target_version_gates_rules(cli, project):
    _, data = _scan_json(cli, project, "--target-version", "2.11")
    # ADV101's replacement (Stream.is_capturing) first exists in 2.12.
    assert not [f for f in data["findings"] if f["rule"] == "ADV101"]


def test_gitignored_files_are_skipped(cli, project):
    (project / ".gitignore").write_text("trainer/optim.py\n")
    (project / ".git").mkdir()
    _, data = _scan_json(cli, project)
    assert not [f for f in data["findings"] if f["path"].endswith("optim.py")]


def test_cache_gives_identical_results_and_sees_edits(cli, project, tmp_path):
    cache = str(tmp_path / "cache")
    args = ("scan", ".", "--format", "json", "--target-version", "2.12", "--cache-dir", cache)
    cold = json.loads(cli(*args, cwd=project).stdout)
    warm = json.loads(cli(*args, cwd=project).stdout)
    assert warm["findings"] == cold["findings"] and warm["errors"] == cold["errors"]
    assert os.path.isdir(cache)
    # An edit changes the content hash: the finding disappears.
    path = project / "trainer" / "linalg.py"
    path.write_text(
        path.read_text().replace('preferred_linalg_library("magma")', 'preferred_linalg_library("cusolver")')
    )
    edited = json.loads(cli(*args, cwd=project).stdout)
    assert len(edited["findings"]) == len(cold["findings"]) - 1
    assert not [f for f in edited["findings"] if f["rule"] == "ADV201"]


def test_parallel_and_serial_runs_agree(cli, project):
    for i in range(15):
        (project / f"copy_{i}.py").write_text((project / "trainer" / "capture.py").read_text())
    pooled = {"ADVISOR_POOL_MIN_BYTES": "0"}  # tiny files: in the pool all the same
    one = json.loads(cli("scan", ".", "--format", "json", "--no-cache", "-j", "1", cwd=project).stdout)
    two = json.loads(cli("scan", ".", "--format", "json", "--no-cache", "-j", "2", cwd=project, env=pooled).stdout)
    assert one["findings"] == two["findings"]
    assert one["summary"]["files_parsed"] >= 16
