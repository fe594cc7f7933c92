"""The edges a user meets (issue 17, bugs 2-6 and the Ruff conventions), each through the real CLI."""

from __future__ import annotations

import json
import os
import sys

import pytest
from tests.conftest import ROOT

# A fix that removes a line (the `from` import) above a finding that has no fix.
SHIFTING = """import torch
import torch.nn.functional as F
from torch.cuda.amp import custom_fwd


class Fn(torch.autograd.Function):
    @staticmethod
    @custom_fwd
    def forward(ctx, x):
        return x


y = F.softmax(torch.ones(3))
"""


# --- bug 2: fix --diff reports what remains at the lines of the file on disk ---------


def test_fix_diff_reports_remaining_findings_at_lines_on_disk(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("fix", "a.py", "--min-torch", "2.4", "--diff", cwd=tmp_path)
    # Line 13 on disk (12 in the never-written text); on stderr, as the summary: stdout is the diff alone.
    assert "a.py:13:5: ADV717" in proc.stderr and "ADV717" not in proc.stdout, proc.stderr
    assert (tmp_path / "a.py").read_text() == SHIFTING
    scan = cli("scan", "a.py", "--no-cache", "--select", "ADV717", cwd=tmp_path)
    assert "a.py:13:5: ADV717" in scan.stdout


def test_fix_reports_remaining_findings_at_lines_of_the_written_file(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("fix", "a.py", "--min-torch", "2.4", cwd=tmp_path)
    assert "a.py:12:5: ADV717" in proc.stdout, proc.stdout  # the file now written has it at line 12
    assert (tmp_path / "a.py").read_text().splitlines()[11].startswith("y = F.softmax")


# --- bug 3: --exit-zero forces 0 with fix --diff -----------------------------------


def test_fix_diff_exit_zero(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    assert cli("fix", "a.py", "--min-torch", "2.4", "--diff", cwd=tmp_path).returncode == 1
    proc = cli("fix", "a.py", "--min-torch", "2.4", "--diff", "--exit-zero", cwd=tmp_path)
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


# --- bug 5: config `exclude` and files named on the command line (pre-commit) -------


def test_force_exclude_applies_config_exclude_to_named_files(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nexclude = ["generated"]\n')
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "g.py").write_text(SHIFTING)
    (tmp_path / "own.py").write_text(SHIFTING)
    named = cli("scan", "generated/g.py", "own.py", "--no-cache", cwd=tmp_path)
    assert "generated/g.py" in named.stdout  # named files are taken, as in Ruff...
    forced = cli("scan", "generated/g.py", "own.py", "--no-cache", "--force-exclude", cwd=tmp_path)
    assert "generated/g.py" not in forced.stdout and "own.py:8:5: ADV703" in forced.stdout  # ...unless forced
    fixed = cli("fix", "generated/g.py", "--force-exclude", cwd=tmp_path)
    assert fixed.returncode == 0 and (tmp_path / "generated" / "g.py").read_text() == SHIFTING
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nexclude = ["generated"]\nforce-exclude = true\n')
    assert "generated/g.py" not in cli("scan", "generated/g.py", "--no-cache", cwd=tmp_path).stdout


def test_both_pre_commit_hooks_pass_force_exclude():
    root = ROOT
    with open(os.path.join(root, ".pre-commit-hooks.yaml")) as f:
        entries = [line.split(":", 1)[1].split() for line in f if line.strip().startswith("entry:")]
    assert len(entries) == 2 and all("--force-exclude" in e for e in entries)


def test_pre_commit_fixes_first_quietly_and_scans_the_project_files():
    """The fix hook comes first (the scan then sees fixed files); -q: no footer per batch; the scan hook takes
    pyproject.toml and setup.cfg (ini), where the Python floor (ADV781) is declared."""
    import yaml

    root = ROOT
    with open(os.path.join(root, ".pre-commit-hooks.yaml")) as f:
        hooks = yaml.safe_load(f)
    assert [h["id"] for h in hooks] == ["advisor-fix", "advisor"]
    assert all("-q" in h["entry"].split() for h in hooks)
    assert {"pyproject", "ini"} <= set(hooks[1]["types_or"])


# --- bug 6: the rough edges --------------------------------------------------------


def test_directory_without_python_files_warns(cli, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# nothing here\n")
    proc = cli("scan", "docs", "--no-cache", cwd=tmp_path)
    assert "no Python files found in docs" in proc.stderr


def test_pyproject_errors_name_the_file_and_key(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nselect = ["ADV7O1"]\n')
    (tmp_path / "a.py").write_text("x = 1\n")
    proc = cli("scan", "a.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml: [tool.advisor] select: unknown rule code or prefix: ADV7O1" in proc.stderr
    (tmp_path / "pyproject.toml").write_text("[tool.advisor]\nexclude = 3\n")
    proc = cli("scan", "a.py", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and "pyproject.toml: [tool.advisor] exclude: expected a list" in proc.stderr


def test_audit_says_why_it_exits_1(cli, tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    (repo / "broken.py").write_text("import torch\nx = torch.load(\n")
    (tmp_path / "repos.txt").write_text(f"{repo}\n")
    proc = cli("audit", "repos.txt", "--out", "out", "--jobs", "1", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 1
    assert "broken.py: error: syntax error" in proc.stderr and "could not be analysed" in proc.stderr


def test_audit_help_keeps_the_toml_brackets(cli):
    proc = cli("audit", "--help", env={"COLUMNS": "200"})
    assert "[[repo]]" in proc.stdout
    assert "[tool.advisor]" in cli("scan", "--help", env={"COLUMNS": "200"}).stdout


def test_scan_fix_points_to_advisor_fix(cli, tmp_path):
    proc = cli("scan", "--fix", cwd=tmp_path)
    assert proc.returncode == 2 and "advisor fix" in proc.stderr and "--config" not in proc.stderr


def test_sarif_fix_for_a_decorator_leaves_no_blank_line(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    # --min-torch 2.4: the custom_fwd replacement exists there, so the finding carries its fix.
    doc = json.loads(
        cli("scan", "a.py", "--no-cache", "--min-torch", "2.4", "--output-format", "sarif", cwd=tmp_path).stdout
    )
    [res] = [r for r in doc["runs"][0]["results"] if r["ruleId"] == "ADV703"]
    [rep] = res["fixes"][0]["artifactChanges"][0]["replacements"]
    region, text = rep["deletedRegion"], rep["insertedContent"]["text"]
    lines = SHIFTING.splitlines(keepends=True)
    assert region["startLine"] == region["endLine"] == 8
    line = lines[7]
    lines[7] = line[: region["startColumn"] - 1] + text + line[region["endColumn"] - 1 :]
    assert lines[7] == '    @torch.amp.custom_fwd(device_type="cuda")\n' and lines[8].strip() == "def forward(ctx, x):"


def test_json_files_parsed_on_a_warm_run(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    (tmp_path / "plain.py").write_text("x = 1\n")
    cold = json.loads(cli("scan", ".", "--output-format", "json", cwd=tmp_path).stdout)["summary"]
    warm = json.loads(cli("scan", ".", "--output-format", "json", cwd=tmp_path).stdout)["summary"]
    assert cold["files_parsed"] == warm["files_parsed"] == 1
    assert (cold["files_cached"], warm["files_cached"]) == (0, 2)


def test_readme_has_no_doubled_words():
    import re

    root = ROOT
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = f.read()
    assert not re.findall(r"\b(use|the|a|to|of) \1\b", text)


def test_parse_errors_print_line_and_column(cli, tmp_path):
    (tmp_path / "broken.py").write_text("import torch\nx = torch.load(\n")
    proc = cli("scan", "broken.py", "--no-cache", cwd=tmp_path)
    assert "broken.py:2:15: error: syntax error" in proc.stdout, proc.stdout
    github = cli("scan", "broken.py", "--no-cache", "--output-format", "github", cwd=tmp_path)
    assert "::error file=broken.py,line=2,col=15," in github.stdout


# --- Ruff's conventions ------------------------------------------------------------


def test_output_format_and_its_format_alias(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    new = cli("scan", "a.py", "--no-cache", "--output-format", "json", cwd=tmp_path)
    old = cli("scan", "a.py", "--no-cache", "--format", "json", cwd=tmp_path)
    assert json.loads(new.stdout)["findings"] == json.loads(old.stdout)["findings"]


def test_full_output_shows_the_source_line(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    full = cli("scan", "a.py", "--no-cache", "--output-format", "full", cwd=tmp_path).stdout
    assert "13 | y = F.softmax(torch.ones(3))\n   |     ^^^^^^^^^^^^^^^^^^^^^^^^\n" in full
    concise = cli("scan", "a.py", "--no-cache", cwd=tmp_path).stdout
    assert "13 |" not in concise  # concise stays the default


def test_quiet_prints_findings_only(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("scan", "a.py", "--no-cache", "-q", cwd=tmp_path)
    assert proc.stdout.splitlines()[0].startswith("a.py:8:5: ADV703")
    assert "Found" not in proc.stdout and "Target torch" not in proc.stdout and proc.returncode == 1


def test_scan_stdin_with_stdin_filename(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nper-file-ignores = {"tests/*" = ["ADV717"]}\n')

    def scan_stdin(name, *extra):
        return cli("scan", "-", "--stdin-filename", name, *extra, input=SHIFTING, cwd=tmp_path)

    proc = scan_stdin("src/model.py")
    assert "src/model.py:13:5: ADV717" in proc.stdout and proc.returncode == 1
    assert "ADV717" not in scan_stdin("tests/test_model.py").stdout  # the config sees the file's name
    assert not (tmp_path / "src").exists()
    forced = scan_stdin("gen/x.py", "--exclude", "gen", "--force-exclude")
    assert forced.returncode == 0 and forced.stdout == ""


def test_extend_select_and_unfixable(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    only = cli(
        "scan", "a.py", "--no-cache", "--select", "ADV717", "--extend-select", "ADV703", "-q", cwd=tmp_path
    ).stdout
    assert "ADV703" in only and "ADV717" in only
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nunfixable = ["ADV703"]\n')
    proc = cli("fix", "a.py", "--min-torch", "2.4", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == SHIFTING and "a.py:8:5: ADV703" in proc.stdout
    proc = cli("fix", "a.py", "--min-torch", "2.4", "--fixable", "ADV7", "--show-fixes", cwd=tmp_path)
    assert (tmp_path / "a.py").read_text() == SHIFTING  # config's unfixable still applies


def test_show_fixes_lists_each_file(cli, tmp_path):
    (tmp_path / "a.py").write_text(SHIFTING)
    proc = cli("fix", "a.py", "--min-torch", "2.4", "--show-fixes", cwd=tmp_path)
    assert "Fixed a.py: ADV703 x1" in proc.stdout


def test_add_noqa_then_the_scan_is_clean(cli, tmp_path):
    source = SHIFTING + 'z = F.softmax(torch.ones(len("""\n"""))\n)  # keep\n'
    (tmp_path / "a.py").write_text(source)
    proc = cli("scan", "a.py", "--no-cache", "--add-noqa", cwd=tmp_path)
    assert proc.returncode == 0 and "Added 3 suppression comments." in proc.stderr
    text = (tmp_path / "a.py").read_text()
    assert "    @custom_fwd  # advisor: ignore[ADV703]\n" in text
    assert (
        'z = F.softmax(torch.ones(len("""\n"""))\n)  # keep  # advisor: ignore[ADV717]\n' in text
    )  # never inside the string
    after = cli("scan", "a.py", "--no-cache", cwd=tmp_path)
    assert after.returncode == 0 and "3 suppressed" in after.stdout


def test_ignore_file_comment(cli, tmp_path):
    (tmp_path / "a.py").write_text("# advisor: ignore-file\n" + SHIFTING)
    (tmp_path / "b.py").write_text("# advisor: ignore-file[ADV717]\n" + SHIFTING)
    proc = cli("scan", ".", "--no-cache", "-q", cwd=tmp_path)
    assert "a.py" not in proc.stdout.replace("b.py", "")
    assert "b.py:9:5: ADV703" in proc.stdout and "ADV717" not in proc.stdout


def test_explain_by_code_name_prefix_and_all(cli):
    by_code = cli("explain", "ADV701").stdout
    assert by_code.startswith("ADV701 (amp-autocast)")
    assert cli("explain", "amp-autocast").stdout == by_code
    prefix = cli("explain", "ADV70").stdout
    assert "ADV701 (amp-autocast)" in prefix and "ADV709 (weight-norm)" in prefix
    every = cli("explain", "--all").stdout
    assert every.count("\nseverity: ") + every.startswith("ADV") >= 60
    bad = cli("explain", "no-such-rule")
    assert bad.returncode == 2 and "no-such-rule" in bad.stderr


def test_scan_without_a_path_scans_the_current_directory(cli, tmp_path):
    # found by mypy: `paths` stayed None unless --add-noqa was given, and `advisor scan` crashed
    (tmp_path / "a.py").write_text("import torch\nx = torch.ger(a, b)\n")
    proc = cli("scan", "--output-format", "json", cwd=tmp_path)
    assert proc.returncode in (0, 1) and "internal error" not in proc.stderr, proc.stderr
    assert [f["path"] for f in json.loads(proc.stdout)["findings"]] == ["a.py"]
