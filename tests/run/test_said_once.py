"""Deprecations said once (issue 27): TorchScript in tests is one project-level finding, import-time sites rank first."""

from __future__ import annotations

import json


def _write(root, files):
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


FILES = {
    "pkg/__init__.py": "",
    "pkg/ops.py": (
        "import torch\n\n@torch.jit.script\ndef fused(x):\n    return x\n\n"
        "def export(m):\n    return torch.jit.trace(m, 1)\n"
    ),
    "pkg/helpers.py": "import torch\n\ndef test_scripts(m):\n    torch.jit.script(m)\n",
    "tests/test_jit.py": (
        "import torch\n\ndef test_a(m):\n    torch.jit.script(m)\n    torch.jit.script(m)\n"
        "    torch.testing.assert_allclose(1, 1)\n"
    ),
    "tests/conftest.py": "import torch\nSCRIPTED = torch.jit.script(lambda x: x)\n",
}


def _findings(cli, root, cwd):
    proc = cli("scan", str(root), "--no-cache", "--output-format", "json", cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["findings"]


def test_torchscript_in_tests_is_one_finding(cli, tmp_path):
    root = tmp_path / "proj"
    _write(root, FILES)
    found = _findings(cli, root, root)
    jit = [f for f in found if f["rule"] == "ADV406"]
    summary = [f for f in jit if "times in tests" in f["message"]]
    assert len(summary) == 1, jit
    assert (
        "used 4 times in tests (3 files: pkg/helpers.py, tests/conftest.py, tests/test_jit.py)" in summary[0]["message"]
    )
    assert "FutureWarning" in summary[0]["message"] and "filterwarnings" in summary[0]["message"]
    per_site = {(f["path"].split("proj/")[-1], f["line"]): f["severity"] for f in jit if f not in summary}
    # the decorator runs at import: every user sees it, ranked first; the call inside a function keeps warning
    assert per_site == {("pkg/ops.py", 3): "error", ("pkg/ops.py", 8): "warning"}
    # a test calling an API that has a drop-in replacement keeps its per-site finding
    assert [f["line"] for f in found if f["rule"] == "ADV707"] == [6]


def test_the_summary_does_not_depend_on_the_working_directory(cli, tmp_path):
    root = tmp_path / "proj"
    _write(root, FILES)
    elsewhere = tmp_path / "tests"  # a directory named like a test directory above nothing of the project
    elsewhere.mkdir()
    here = [(f["rule"], f["line"], f["severity"]) for f in _findings(cli, root, root)]
    there = [(f["rule"], f["line"], f["severity"]) for f in _findings(cli, root, elsewhere)]
    assert here == there


def test_rocm_scope_from_the_scanned_root_not_the_working_directory(cli, tmp_path):
    root = tmp_path / "amdproj"  # no pyproject.toml, no .git: the scanned directory is the root
    _write(
        root,
        {
            "pkg/amd/ops.py": (
                "import os\nimport torch\nif torch.version.hip:\n"
                "    os.environ['PYTORCH_HIP_ALLOC_CONF'] = 'expandable_segments:True,max_split_size_mb:128'\n"
            )
        },
    )
    other = tmp_path / "other"
    _write(other, {"pyproject.toml": "[project]\nname = 'other'\n"})
    here = [(f["rule"], f["line"]) for f in _findings(cli, ".", root)]
    there = [(f["rule"], f["line"]) for f in _findings(cli, root, other)]
    assert here == there == [("ADV802", 4)]


def test_the_folded_finding_lists_every_site_in_json_and_sarif(cli, tmp_path):
    """One line in text output; every site (path, line, column) in JSON `sites` and SARIF `relatedLocations`."""
    root = tmp_path / "proj"
    _write(root, FILES)
    want = [
        ("pkg/helpers.py", 4, 5),
        ("tests/conftest.py", 2, 12),
        ("tests/test_jit.py", 4, 5),
        ("tests/test_jit.py", 5, 5),
    ]
    (summary,) = [f for f in _findings(cli, root, root) if "times in tests" in f["message"]]
    assert [(s["path"].split("proj/")[-1], s["line"], s["column"]) for s in summary["sites"]] == want
    # every site is really there: the text at (line, column) is the call
    for s in summary["sites"]:
        line = (root / s["path"].split("proj/")[-1]).read_text().splitlines()[s["line"] - 1]
        assert line[s["column"] - 1 :].startswith("torch.jit.script(")

    proc = cli("scan", str(root), "--no-cache", "--output-format", "sarif", cwd=root)
    results = json.loads(proc.stdout)["runs"][0]["results"]
    (folded,) = [r for r in results if "times in tests" in r["message"]["text"]]
    related = [
        (
            loc["physicalLocation"]["artifactLocation"]["uri"].split("proj/")[-1],
            loc["physicalLocation"]["region"]["startLine"],
            loc["physicalLocation"]["region"]["startColumn"],
        )
        for loc in folded["relatedLocations"]
    ]
    assert related == want
    assert [r["message"]["text"] for r in folded["relatedLocations"]][-1] == "site 4 of 4"
    assert not any("relatedLocations" in r for r in results if r is not folded)  # per-site findings have none

    text = cli("scan", str(root), "--no-cache", cwd=root).stdout
    assert sum("times in tests" in line for line in text.splitlines()) == 1
    assert "tests/test_jit.py:5" not in text  # the sites are not printed one by one
