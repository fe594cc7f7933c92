"""`advisor fix` after a `scan`: files the cache knows hold nothing to fix are not parsed again."""

from __future__ import annotations

import subprocess

import advisor.fix.fixer as fixer
from advisor.fix.fixrun import fix_project
from advisor.run.project import Project

FILES = {
    "fixable.py": "import torch\nwith torch.cuda.amp.autocast():\n    pass\n",  # a safe fix
    "held.py": "import torch\nstate = torch.load('ckpt.pt')\n",  # only an unsafe fix: held back
    "manual.py": "import torch\nx = torch.jit.script(f)\n",  # a finding with no fix
    "clean.py": "import torch\nx = torch.zeros(3)\n",  # torch, no finding
    "plain.py": "import os\n",  # no torch at all
    "nb.ipynb": '{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, '
    '"source": ["import torch\\n", "x = torch.jit.script(f)\\n"]}], "metadata": {}, "nbformat": 4, '
    '"nbformat_minor": 5}\n',
}


def _project(tmp_path, **flags):
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=2.4"]\n')
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return Project.load([str(tmp_path)], jobs=1, **flags)


def _fix_counting(project, monkeypatch) -> tuple[object, list[str]]:
    """The --diff run and the files the fixer analysed (parsed)."""
    analysed: list[str] = []
    real = fixer.analyse_source

    def counting(data, path, *args, **kwargs):
        analysed.append(path.rsplit("/", 1)[-1])
        return real(data, path, *args, **kwargs)

    monkeypatch.setattr(fixer, "analyse_source", counting)
    return fix_project(project, diff=True), analysed


def _summary(run):
    return run.applied, run.held_back, [f.to_dict() for f in run.remaining], run.changed, run.errors


def test_a_warm_fix_parses_only_the_files_with_something_to_fix(tmp_path, monkeypatch):
    project = _project(tmp_path)
    cold, cold_analysed = _fix_counting(project, monkeypatch)
    assert {"held.py", "manual.py", "fixable.py", "nb.ipynb"} <= set(cold_analysed)  # no scan yet: all analysed
    project.scan()  # fills the cache
    warm, warm_analysed = _fix_counting(project, monkeypatch)
    assert set(warm_analysed) == {"fixable.py"}
    assert _summary(warm) == _summary(cold)  # the same run, findings left and held back included
    assert warm.held_back == 1 and {f.rule for f in warm.remaining} >= {"ADV406", "ADV716"}


def test_a_scan_with_other_settings_is_not_reused(tmp_path, monkeypatch):
    _project(tmp_path).scan()
    other = Project.load([str(tmp_path)], jobs=1, target_version="2.12")  # another key: the cache says nothing
    _, analysed = _fix_counting(other, monkeypatch)
    assert {"held.py", "manual.py", "fixable.py"} <= set(analysed)


def test_unsafe_fixes_send_held_back_files_to_the_fixer(tmp_path, monkeypatch):
    _project(tmp_path).scan()
    unsafe = Project.load([str(tmp_path)], jobs=1, unsafe_fixes=True)  # same key: unsafe fixes now apply
    run, analysed = _fix_counting(unsafe, monkeypatch)
    assert set(analysed) == {"fixable.py", "held.py"} and run.held_back == 0


def test_no_cache_parses_everything(tmp_path, monkeypatch):
    _project(tmp_path).scan()
    _, analysed = _fix_counting(Project.load([str(tmp_path)], jobs=1, no_cache=True), monkeypatch)
    assert {"held.py", "manual.py", "fixable.py"} <= set(analysed)
