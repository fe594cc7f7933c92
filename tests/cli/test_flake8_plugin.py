"""`flake8` reports ADV codes through the `flake8.extension` entry point, with advisor's config and suppressions."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("flake8")

CODE = (
    "import torch\n"
    "a = torch.cuda.memory_cached()\n"
    "b = torch.cuda.memory_cached()  # noqa: ADV713\n"
    "c = torch.cuda.memory_cached()  # advisor: ignore[ADV713]\n"
    "d = torch.range(0, 3)\n"
)


def flake8(*args, cwd, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "ADV", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_flake8_reports_adv_codes_with_the_same_suppressions(tmp_path):
    (tmp_path / "m.py").write_text(CODE)
    proc = flake8("m.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(" ")[0:2] for line in lines] == [["m.py:2:5:", "ADV713"], ["m.py:5:5:", "ADV718"]], proc.stdout
    # stdin, as editors run flake8
    proc = flake8("-", "--stdin-display-name", "m.py", cwd=tmp_path, stdin=CODE)
    assert [line.split(" ")[1] for line in proc.stdout.splitlines()] == ["ADV713", "ADV718"], proc.stdout


def test_flake8_honours_the_projects_advisor_config(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.advisor]\nignore = ["ADV718"]\n\n[tool.advisor.per-file-ignores]\n"legacy/*" = ["ADV7"]\n'
    )
    (tmp_path / "m.py").write_text(CODE)
    (tmp_path / "legacy").mkdir()
    (tmp_path / "legacy" / "old.py").write_text(CODE)
    proc = flake8(".", cwd=tmp_path)
    assert [line.split(" ")[0:2] for line in proc.stdout.splitlines()] == [["./m.py:2:5:", "ADV713"]], proc.stdout
    # flake8's own selection applies on top
    assert flake8(".", "--extend-ignore", "ADV713", cwd=tmp_path).stdout == ""


def test_the_plugin_never_imports_torch(tmp_path):
    (tmp_path / "m.py").write_text(CODE)
    probe = (
        "import sys\n"
        "from flake8.main.application import Application\n"
        "app = Application()\n"
        "app.run(['--select', 'ADV', '-j', '1', 'm.py'])\n"
        "assert app.result_count == 2, app.result_count\n"
        "print('torch' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "False", proc.stdout
