"""`advisor fix` from the command line: its exit status follows `fail-on` as `scan`'s does, and `fix -` (issue #29, items 5-6)."""

import json

ADVICE_ONLY = 'import torch\nobj = torch.load("m.pt")\n'  # ADV716: advice (its fix is unsafe below torch 2.6)
DEPRECATED = "import torch\nx = torch.ger(a, b)\n"  # ADV721: deprecated, a safe fix


def _project(tmp_path, text):
    (tmp_path / "a.py").write_text(text)
    return tmp_path


def test_fix_exits_0_when_only_advice_is_left_as_scan_does(cli, tmp_path):
    _project(tmp_path, ADVICE_ONLY)
    scan = cli("scan", "a.py", "--no-cache", cwd=tmp_path)
    fix = cli("fix", "a.py", cwd=tmp_path)
    diff = cli("fix", "a.py", "--diff", cwd=tmp_path)
    assert "ADV716" in scan.stdout and "ADV716" in fix.stdout
    assert (scan.returncode, fix.returncode, diff.returncode) == (0, 0, 0), fix.stdout + fix.stderr
    # Advice needs no change: it is not counted as "need a manual change".
    assert "manual change" not in fix.stdout
    assert "1 finding is left to review (not of a `fail-on` kind)." in fix.stdout


def test_fix_takes_fail_on(cli, tmp_path):
    _project(tmp_path, ADVICE_ONLY)
    assert cli("fix", "a.py", "--fail-on", "advice", cwd=tmp_path).returncode == 1
    assert cli("fix", "a.py", "--diff", "--fail-on", "advice", cwd=tmp_path).returncode == 1
    assert cli("fix", "a.py", "--fail-on", "breaking", cwd=tmp_path).returncode == 0
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nfail-on = ["advice"]\n')
    assert cli("fix", "a.py", cwd=tmp_path).returncode == 1  # from the config, as scan reads it
    assert cli("fix", "a.py", "--fail-on", "nonsense", cwd=tmp_path).returncode == 2


def test_a_failing_finding_without_a_fix_is_counted_in_good_grammar(cli, tmp_path):
    # ADV717 (deprecated, no fix) fails the run; ADV716 (advice) is left to review and not counted with it.
    _project(tmp_path, "import torch\ny = torch.nn.functional.softmax(x)\n" + ADVICE_ONLY.split("\n", 1)[1])
    fix = cli("fix", "a.py", cwd=tmp_path)
    assert fix.returncode == 1
    assert "1 finding has no automatic fix and needs a manual change (listed above)." in fix.stdout
    assert "1 finding is left to review" in fix.stdout
    (tmp_path / "a.py").write_text(
        "import torch\ny = torch.nn.functional.softmax(x)\nz = torch.nn.functional.softmax(x)\n"
    )
    assert "2 findings have no automatic fix and need a manual change" in cli("fix", "a.py", cwd=tmp_path).stdout


def test_fix_exits_1_while_a_fail_on_finding_is_left(cli, tmp_path):
    _project(tmp_path, DEPRECATED)
    assert cli("fix", "a.py", "--diff", cwd=tmp_path).returncode == 1  # it would change the file
    fixed = cli("fix", "a.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout  # nothing failing is left
    assert "torch.outer(a, b)" in (tmp_path / "a.py").read_text()
    assert cli("fix", "a.py", "--diff", cwd=tmp_path).returncode == 0  # and --diff agrees


def test_fix_stdin_prints_the_fixed_source_and_leaves_the_file_alone(cli, tmp_path):
    _project(tmp_path, "untouched\n")
    text = DEPRECATED + 'obj = torch.load("m.pt")\n'
    proc = cli("fix", "-", "--stdin-filename", "a.py", cwd=tmp_path, input=text)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == text.replace("torch.ger", "torch.outer")  # the fixed source and nothing else
    assert "a.py:3:7: ADV716" in proc.stderr and "Fixed 1 finding in 1 file (ADV721: 1)." in proc.stderr
    assert (tmp_path / "a.py").read_text() == "untouched\n"


def test_fix_stdin_with_diff_and_unsafe_fixes(cli, tmp_path):
    proc = cli("fix", "-", "--stdin-filename", "src/m.py", "--diff", "--unsafe-fixes", cwd=tmp_path, input=ADVICE_ONLY)
    assert proc.stdout.startswith("--- a/src/m.py\n+++ b/src/m.py\n") and "weights_only=" in proc.stdout
    assert proc.returncode == 1  # it would change the text


def test_fix_stdin_gives_back_text_no_rule_matches_byte_for_byte(cli, tmp_path):
    text = "print('hi')\r\n\r\nx = 1"
    proc = cli("fix", "-", cwd=tmp_path, input=text)
    assert proc.returncode == 0 and proc.stdout == text.replace("\r\n", "\n")  # text mode on our side; see below
    import subprocess
    import sys

    raw = subprocess.run(
        [sys.executable, "-m", "advisor", "fix", "-"],
        input=b"x = 1\r\n# \xe9\r\n",
        capture_output=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert raw.returncode == 0 and raw.stdout == b"x = 1\r\n# \xe9\r\n"


def test_fix_stdin_respects_force_exclude_and_usage_errors(cli, tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nexclude = ["gen/*"]\n')
    proc = cli("fix", "-", "--stdin-filename", "gen/a.py", "--force-exclude", cwd=tmp_path, input=DEPRECATED)
    assert proc.returncode == 0 and proc.stdout == DEPRECATED
    assert cli("fix", "-", "a.py", cwd=tmp_path, input="").returncode == 2
    assert cli("fix", "a.py", "--stdin-filename", "b.py", cwd=tmp_path).returncode == 2


def test_fix_stdin_takes_a_notebook_named_by_stdin_filename(cli, tmp_path):
    nb = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "a1",
                "metadata": {},
                "outputs": [],
                "source": ["import torch\n", "y = torch.ger(a, b)"],
            }
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    proc = cli("fix", "-", "--stdin-filename", "explore.ipynb", cwd=tmp_path, input=json.dumps(nb, indent=1) + "\n")
    assert proc.returncode == 0, proc.stderr
    fixed = json.loads(proc.stdout)  # still a notebook: its JSON on stdout
    assert "".join(fixed["cells"][0]["source"]).startswith("import torch\ny = torch.outer(a, b)")
    assert "Fixed 1 finding in 1 file" in proc.stderr
