"""Documented commands work as written (issue #29, item 9): Ruff's flags, ALL, opt-in rules, the install lines."""

import json
import os
import re
from tests.conftest import ROOT

BAD = "import torch\nx = torch.cuda.memory_cached()\nflag = torch.has_cuda\nf = getattr(torch.cuda, name)\n"


def _codes(proc):
    return sorted({f["rule"] for f in json.loads(proc.stdout)["findings"]})


def test_select_all_means_every_rule_opt_in_ones_too(cli, tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    default = _codes(cli("scan", "a.py", "--no-cache", "--output-format", "json", cwd=tmp_path))
    every = _codes(cli("scan", "a.py", "--no-cache", "--output-format", "json", "--select", "ALL", cwd=tmp_path))
    assert "ADV900" not in default and "ADV900" in every  # dynamic-torch-access is opt-in
    assert set(default) < set(every)


def test_extend_ignore_output_file_and_no_baseline(cli, tmp_path):
    (tmp_path / "a.py").write_text(BAD)
    proc = cli("scan", "a.py", "--no-cache", "--output-format", "json", "--extend-ignore", "ADV705", cwd=tmp_path)
    assert _codes(proc) == ["ADV713"]
    assert cli("scan", "a.py", "--no-cache", "--output-file", "out.txt", cwd=tmp_path).stdout == ""
    assert "ADV713" in (tmp_path / "out.txt").read_text()
    assert cli("scan", "a.py", "--no-cache", "--write-baseline", "advisor-baseline.json", cwd=tmp_path).returncode == 0
    assert cli("scan", "a.py", "--no-cache", cwd=tmp_path).returncode == 0  # the baseline hides today's findings
    proc = cli("scan", "a.py", "--no-cache", "--no-baseline", cwd=tmp_path)
    assert proc.returncode == 1 and "ADV713" in proc.stdout


def test_rules_show_which_are_opt_in(cli):
    table = cli("rules").stdout.splitlines()
    assert table[0].split()[-1] == "opt-in"
    row = next(line for line in table if line.startswith("ADV900 "))
    assert row.split()[-1] == "yes"
    assert next(line for line in table if line.startswith("ADV101 ")).split()[-1] == "-"
    rows = {r["code"]: r for r in json.loads(cli("rules", "--format", "json").stdout)}
    assert rows["ADV900"]["opt_in"] is True and rows["ADV101"]["opt_in"] is False


def test_server_without_pygls_says_how_to_install_from_a_checkout(cli, tmp_path):
    # An environment without the `server` extra: pygls cannot be imported.
    fake = tmp_path / "site" / "pygls"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'pygls'\", name='pygls')\n")
    proc = cli("server", env={"PYTHONPATH": str(tmp_path / "site")})
    assert proc.returncode == 2
    assert 'pip install ".[server]"' in proc.stderr and 'torch-upgrade-advisor[server]"' not in proc.stderr


def test_readme_install_lines_need_no_index_and_no_tag():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    assert not re.search(r'pip install "torch-upgrade-advisor\[server\]"\s', readme)  # not on the index
    assert "rev: v0.1.0" not in readme and "rev: <commit sha>" in readme  # no tag exists
    assert 'pip install ".[server]"' in readme
