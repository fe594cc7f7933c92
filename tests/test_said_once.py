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
