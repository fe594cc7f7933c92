"""A hostile pull request, round two (issue 41), item 10: a config that hides findings is said on stderr.

`ignore`, `per-file-ignores`, `extend-exclude`, a nested `.gitignore`, folder names skipped at any depth and a
committed baseline each turned findings into "Found 0 findings", exit 0, without a word. Now one stderr line
names what the config turned off (and from which file), what was left out and by what, and the baseline's file.
"""

from __future__ import annotations


from advisor.run.project import Project

FLAGGED = "import torch\nx = torch.cuda.memory_cached()\n"  # ADV713


def _hostile_tree(tmp_path):
    (tmp_path / ".git").mkdir()
    for rel in ("a.py", "pkg/build/b.py", "pkg/venv/c.py", "pkg/sub/d.py", "pkg/e.py"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FLAGGED)
    (tmp_path / "pkg" / ".gitignore").write_text("sub/\n")
    (tmp_path / "pyproject.toml").write_text(
        "[project]\nname = 'p'\ndependencies = ['torch>=2.0']\n"
        '[tool.advisor]\nignore = ["ADV"]\nper-file-ignores = {"*" = ["ADV"]}\nextend-exclude = ["e.py"]\n'
    )


def test_the_line_names_every_way_the_config_and_the_tree_hid_findings(tmp_path, monkeypatch):
    _hostile_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    project = Project.load(["."], no_cache=True)
    assert not project.scan().findings
    note = project.hidden_note
    assert note is not None and "\n" not in note
    assert f"{tmp_path / 'pyproject.toml'} turns off" in note
    assert "ignore = [ADV]" in note and 'per-file-ignores "*" = [ADV]' in note
    assert "1 file (pkg/e.py) by exclude globs" in note
    assert "1 folder (pkg/sub/) by pkg/.gitignore" in note
    assert "2 folders (pkg/build/, pkg/venv/) by the folder names advisor always skips" in note
    assert ".git/" not in note  # folders that never hold a project's code are not worth a word


def test_the_line_is_on_stderr_by_default_and_not_under_quiet(cli, tmp_path):
    _hostile_tree(tmp_path)
    for command in (["scan", "."], ["fix", "."]):
        proc = cli(*command, cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "advisor: note: " in proc.stderr and "turns off ignore = [ADV]" in proc.stderr, proc.stderr
        assert "advisor: note" not in proc.stdout
    assert "advisor: note" not in cli("scan", "-q", ".", cwd=tmp_path).stderr  # -q: findings and errors only


def test_a_committed_baseline_is_named_and_a_plain_project_gets_no_line(cli, tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text(FLAGGED)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\ndependencies = ['torch>=2.0']\n")
    monkeypatch.chdir(tmp_path)
    project = Project.load(["."], no_cache=True)
    assert project.scan().findings and project.hidden_note is None
    cli("scan", ".", "--write-baseline", "advisor-baseline.json", cwd=tmp_path)
    project = Project.load(["."], no_cache=True)
    assert not project.scan().findings
    assert project.hidden_note.endswith(f"the baseline {tmp_path / 'advisor-baseline.json'} hid 1 finding")
