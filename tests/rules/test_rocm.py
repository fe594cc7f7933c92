"""ROCm context end to end: a ROCm-flavoured project gets exactly its ADV8xx findings, a CUDA-only one none.

Expectations live in the fixtures: `# expect: ADV806` on the flagged line, or
`# expect-next: ADV802` on the line before (Dockerfiles have no trailing comments).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections import Counter
from tests.conftest import FIXTURES


_EXPECT = re.compile(r"#\s*expect(?P<next>-next)?:\s*(?P<codes>ADV\d{3}(?:\s*,\s*ADV\d{3})*)")


def expected(root: str) -> Counter:
    want: Counter = Counter()
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    m = _EXPECT.search(line)
                    if m:
                        at = lineno + 1 if m.group("next") else lineno
                        for code in m.group("codes").split(","):
                            want[(os.path.relpath(path, root), at, code.strip())] += 1
    return want


def _copy(tmp_path, name):
    dst = tmp_path / name
    shutil.copytree(os.path.join(FIXTURES, name), dst)
    return dst


def _scan(cli, root, *extra):
    proc = cli("scan", ".", "--format", "json", "--no-cache", "--target-version", "2.12", *extra, cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def _got(data, prefix="ADV"):
    return Counter(
        (os.path.normpath(f["path"]), f["line"], f["rule"]) for f in data["findings"] if f["rule"].startswith(prefix)
    )


def test_rocm_project_gets_exactly_the_expected_findings(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    data = _scan(cli, root)
    want = expected(str(root))
    assert {code for _, _, code in want} >= {f"ADV80{i}" for i in range(1, 9)}, "the fixture covers every ROCm rule"
    assert _got(data) == want, {"missing": want - _got(data), "unexpected": _got(data) - want}
    assert data["device"]["rocm"] is True and data["device"]["source"] == "markers"
    markers = {(m["path"], m["marker"]) for m in data["device"]["markers"]}
    assert ("requirements.txt", "whl/rocm7") in markers
    assert (os.path.join("docker", "Dockerfile"), "FROM rocm/") in markers
    assert data["summary"]["suppressed"] >= 1  # the `# advisor: ignore[ADV802]` in launch.sh


def test_cuda_only_project_stays_silent(cli, tmp_path):
    root = _copy(tmp_path, "cuda_project")
    data = _scan(cli, root)
    assert _got(data) == expected(str(root))  # only its ADV101
    assert not _got(data, "ADV8")
    assert data["device"] == {"rocm": False, "source": "no ROCm markers", "markers": []}


def test_device_override_both_ways(cli, tmp_path):
    cuda = _copy(tmp_path, "cuda_project")
    forced = _got(_scan(cli, cuda, "--device", "rocm"), "ADV8")
    # The same code, declared ROCm: flex options, expandable_segments:False + max_split, CUTLASS, extension, amdsmi.
    assert {code for _, _, code in forced} == {"ADV801", "ADV802", "ADV805", "ADV806", "ADV807", "ADV808"}
    rocm = _copy(tmp_path, "rocm_project")
    silenced = _scan(cli, rocm, "--device", "cuda")
    assert not _got(silenced, "ADV8") and silenced["device"]["source"] == "--device cuda"


def test_device_from_config(cli, tmp_path):
    root = _copy(tmp_path, "cuda_project")
    (root / "pyproject.toml").write_text('[tool.advisor]\ndevice = "rocm"\n')
    assert _got(_scan(cli, root), "ADV8")
    (root / "pyproject.toml").write_text('[tool.advisor]\ndevice = "amd"\n')
    proc = cli("scan", ".", cwd=root)
    assert proc.returncode == 2 and "device" in proc.stderr and "rocm" in proc.stderr
    (root / "pyproject.toml").unlink()
    proc = cli("scan", ".", "--device", "tpu", cwd=root)
    assert proc.returncode == 2 and "--device" in proc.stderr


def test_one_file_run_uses_the_project_files(cli, tmp_path):
    """A pre-commit run passes only changed files: the project's requirements still say ROCm."""
    root = _copy(tmp_path, "rocm_project")
    proc = cli(
        "scan",
        os.path.join("model", "attention.py"),
        "--format",
        "json",
        "--no-cache",
        "--target-version",
        "2.12",
        cwd=root,
    )
    data = json.loads(proc.stdout)
    assert [f["rule"] for f in data["findings"]] == ["ADV806", "ADV806"]
    assert any(m["path"] == "requirements.txt" for m in data["device"]["markers"])


def test_rocm_arch_anywhere_silences_the_extension_rule(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    with open(root / "docker" / "Dockerfile", "a") as f:
        f.write("ENV PYTORCH_ROCM_ARCH=gfx942;gfx950\n")
    data = _scan(cli, root)
    assert not _got(data, "ADV807")
    assert _got(data, "ADV806")


def test_markers_survive_the_cache(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    cold = cli("scan", ".", "--format", "json", "--target-version", "2.12", cwd=root)
    warm = cli("scan", ".", "--format", "json", "--target-version", "2.12", cwd=root)
    assert json.loads(cold.stdout)["findings"] == json.loads(warm.stdout)["findings"]
    assert json.loads(warm.stdout)["device"] == json.loads(cold.stdout)["device"]


def test_text_files_given_explicitly_are_not_parsed_as_python(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    proc = cli(
        "scan",
        os.path.join("docker", "Dockerfile"),
        "scripts/launch.sh",
        "--format",
        "json",
        "--no-cache",
        "--target-version",
        "2.12",
        cwd=root,
    )
    data = json.loads(proc.stdout)
    assert not data["errors"]
    assert sorted(f["rule"] for f in data["findings"]) == ["ADV801", "ADV802", "ADV803", "ADV803"]


def test_text_scanner_reads_assignments_not_uses():
    from advisor.analysis.textfiles import _assignments

    text = (
        "# export PYTORCH_HIP_ALLOC_CONF=expandable_segments:False\n"
        "echo $PYTORCH_HIP_ALLOC_CONF ${PYTORCH_CUDA_ALLOC_CONF:-x}\n"
        "env PYTORCH_ALLOC_CONF='a:1' python x.py\n"
        "ENV PYTORCH_CUDA_ALLOC_CONF b:2\n"
        'X=1 PYTORCH_HIP_ALLOC_CONF="c:3" ./run\n'
    )
    assert [(ln, var, value) for ln, _, var, value in _assignments(text)] == [
        (3, "PYTORCH_ALLOC_CONF", "a:1"),
        (4, "PYTORCH_CUDA_ALLOC_CONF", "b:2"),
        (5, "PYTORCH_HIP_ALLOC_CONF", "c:3"),
    ]


def test_report_for_a_rocm_project_lists_silent_changes_even_with_no_findings(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    proc = cli("scan", ".", "--select", "ADV101", "--no-cache", "--target-version", "2.12", "--report", "rep", cwd=root)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    md = (root / "rep" / "report.md").read_text()
    assert "Silent changes on ROCm" in md and "FlexAttention forward defaults" in md
    assert "| `requirements.txt` |" in md  # paths are code spans: verbatim in Markdown
    assert (root / "rep" / "validation" / "rocm_runtime.py").exists()
    html = (root / "rep" / "report.html").read_text()
    assert "Silent changes on ROCm" in html


def test_report_lists_text_file_findings_under_their_own_heading(cli, tmp_path):
    root = _copy(tmp_path, "rocm_project")
    cli("scan", ".", "--no-cache", "--target-version", "2.12", "--report", "rep", cwd=root)
    md = (root / "rep" / "report.md").read_text()
    section = md[md.index("## Shell, Docker and env files") :]
    assert "**ADV802** `docker/Dockerfile:3`" in section and "**ADV801** `scripts/launch.sh:3`" in section
    # One meaning per finding (issue 38): listed under its kind and counted there, like every finding.
    deprecated = md[md.index("## Deprecated on the target") : md.index("## Advice")]
    assert "**ADV802** [docker/Dockerfile:3:5]" in deprecated


def test_cuda_report_has_no_rocm_section(cli, tmp_path):
    root = _copy(tmp_path, "cuda_project")
    cli("scan", ".", "--no-cache", "--report", "rep", cwd=root)
    md = (root / "rep" / "report.md").read_text()
    assert "Silent changes on ROCm" not in md and "ROCm rules (ADV8xx) are off" in md
    assert not (root / "rep" / "validation" / "rocm_runtime.py").exists()


def test_an_explicit_shell_script_without_extension_is_not_python(cli, tmp_path):
    """pre-commit passes `shell` files by shebang; they must not be parsed as Python."""
    script = tmp_path / "launch"
    script.write_text("#!/bin/bash\nexport PYTORCH_HIP_ALLOC_CONF=expandable_segments:True,max_split_size_mb:64\n")
    proc = cli("scan", "launch", "--format", "json", "--no-cache", "--target-version", "2.12", cwd=tmp_path)
    data = json.loads(proc.stdout)
    assert not data["errors"]
    assert [f["rule"] for f in data["findings"]] == ["ADV802"]


def test_a_marker_deep_in_one_package_scopes_that_directory_only(cli, tmp_path):
    # Megatron had one `torch.version.hip` test in a deep ops subpackage; it made the whole repository "ROCm".
    monitor = "import torch\n\ndef log(rank):\n    print(torch.cuda.temperature(rank))\n"
    (tmp_path / "pkg" / "ops" / "amd").mkdir(parents=True)
    (tmp_path / "pkg" / "ops" / "amd" / "common.py").write_text(
        "import torch\nIS_HIP = torch.version.hip is not None\n"
    )
    (tmp_path / "pkg" / "ops" / "amd" / "kernels").mkdir()
    (tmp_path / "pkg" / "ops" / "amd" / "kernels" / "monitor.py").write_text(monitor)
    (tmp_path / "pkg" / "monitor").mkdir()
    (tmp_path / "pkg" / "monitor" / "gpu.py").write_text(monitor)
    (tmp_path / "pkg" / "ops" / "cuda_monitor.py").write_text(monitor)
    data = _scan(cli, tmp_path)
    got = {os.path.normpath(f["path"]): f for f in data["findings"] if f["rule"] == "ADV808"}
    inside = os.path.join("pkg", "ops", "amd", "kernels", "monitor.py")
    assert set(got) == {inside}, "the sibling packages stay CUDA code"
    assert f"at {os.path.join('pkg', 'ops', 'amd', 'common.py')}:2]" in got[inside]["message"], "names the marker"


def test_a_marker_in_a_root_level_file_scopes_the_whole_project(cli, tmp_path):
    (tmp_path / "pkg" / "monitor").mkdir(parents=True)
    (tmp_path / "pkg" / "monitor" / "gpu.py").write_text("import torch\nprint(torch.cuda.temperature(0))\n")
    (tmp_path / "hip_check.py").write_text("import torch\nIS_HIP = torch.version.hip is not None\n")
    data = _scan(cli, tmp_path)
    assert [f["rule"] for f in data["findings"] if f["rule"].startswith("ADV8")] == ["ADV808"]
