"""What report.md and report.html say, through the real CLI (issue #29 items 10-13; issue #30 item 14).

One count per kind, used everywhere; inline code rendered (not escaped) in both; tables and the HTML
safe against newlines, `|` and bidi controls in scanned text; no absolute path of the report in it;
each finding's source and fix as before/after, linked to the file.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import run_cli

SOURCE = (
    "import torch\n"
    "x = torch.ger(a, b)\n"  # advice (docs-only deprecation), safe fix
    "y = torch.cuda.is_current_stream_capturing()\n"  # advice, unsafe fix
    "z = torch.nn.functional.softmax(x)\n"  # deprecated, no fix
    "if torch.__version__ < '2.4':\n"
    "    s = torch.cuda.amp.GradScaler()\n"  # compat
    "else:\n"
    "    s = torch.amp.GradScaler('cuda')\n"
    "w = torch.cuda.memory_cached()\n"  # deprecated, safe fix
    "h = torch.has_cuda\n"  # deprecated, safe fix
    "torch.testing.assert_allclose(a, b)\n"  # deprecated, unsafe fix (assert_close is stricter)
)


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("report") / "project"
    root.mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\ndependencies = ["torch>=2.1,<2.13"]\n')
    (root / "m.py").write_text(SOURCE)
    # Hostile names: a right-to-left override, a `|`, a backtick.
    (root / "evil\u202egnp.py").write_text("import torch\nx = torch.ger(a, b)\n")
    (root / "pipe|`name`.py").write_text("import torch\nx = torch.ger(a, b)\n")
    proc = run_cli("scan", ".", "--no-cache", "--report", "rep", cwd=root)
    assert proc.returncode == 1, proc.stderr
    return root


def _read(project, name):
    return (project / "rep" / name).read_text(encoding="utf-8")


def _findings(project):
    return json.loads(_read(project, "findings.json"))["findings"]


def test_each_kind_has_one_count_used_everywhere(project):
    findings = [f for f in _findings(project) if f["rule"] != "ADV900"]
    kinds = {k: sum(1 for f in findings if f["kind"] == k) for k in ("breaking", "deprecated", "advice", "compat")}
    assert kinds["deprecated"] >= 3 and kinds["advice"] >= 1 and kinds["compat"] == 1
    md, html = _read(project, "report.md"), _read(project, "report.html")
    assert (
        f"By kind: {kinds['breaking']} breaking on the target, {kinds['deprecated']} deprecated (warn on the target), "
        f"{kinds['advice']} advice, {kinds['compat']} compat"
    ) in md
    titles = {
        "breaking": "Breaking on the target",
        "deprecated": "Deprecated on the target",
        "advice": "Advice",
        "compat": "Compat fallbacks",
    }
    for kind, title in titles.items():
        assert f"## {title} ({kinds[kind]})" in md
        assert f"{title} ({kinds[kind]})</h2>" in html
        assert f'<div class="card {kind}"><b>{kinds[kind]}</b>' in html
        # The section holds that kind only, as many as its title says.
        section = md.split(f"## {title} ({kinds[kind]})", 1)[1].split("\n## ", 1)[0]
        codes = re.findall(r"^- \*\*(ADV\d+)\*\*", section, re.M)
        assert sorted(codes) == sorted(f["rule"] for f in findings if f["kind"] == kind), (kind, codes)


def test_safe_and_unsafe_fixes_are_counted_apart(project):
    findings = _findings(project)
    safe = sum(1 for f in findings if f["fix"] == "safe")
    unsafe = sum(1 for f in findings if f["fix"] == "unsafe")
    assert safe and unsafe
    assert f"Fixes: {safe} safe (`advisor fix`), {unsafe} unsafe to review" in _read(project, "report.md")
    assert f'<b>{safe}</b>safe fixes (<span id="unsafe-fixes">{unsafe}</span> unsafe to review)' in _read(
        project, "report.html"
    )


def test_inline_code_is_rendered_not_escaped(project):
    md, html = _read(project, "report.md"), _read(project, "report.html")
    assert "&gt;" not in md and "&lt;" not in md and "\\`torch" not in md
    assert "torch pin 'torch>=2.1,<2.13' in pyproject.toml" in md
    assert "`torch.ger` is deprecated; use `torch.outer`" in md
    assert "<code>torch.ger</code> is deprecated; use <code>torch.outer</code>" in html
    assert "`torch.ger`" not in html


def test_tables_survive_pipes_and_bidi_controls(project):
    md = _read(project, "report.md")
    table = md.split("### By file", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("|")][2:]
    assert len(rows) == 3
    for row in rows:  # exactly three cell borders per row: the `|` in a name is escaped
        assert len(re.findall(r"(?<!\\)\|", row)) == 3, row
    assert "\u202e" not in md and "evil\u27e8U+202E\u27e9gnp.py" in md  # shown, not obeyed


def test_a_right_to_left_override_cannot_reverse_the_html(project):
    html = _read(project, "report.html")
    assert "\u202e" not in html and "evil\u27e8U+202E\u27e9gnp.py" in html
    # Every path is isolated, so even a control we do not know cannot reorder the text after it.
    assert "<bdi>evil\u27e8U+202E\u27e9gnp.py:2:5</bdi>" in html


def test_the_report_has_no_absolute_path_of_its_own_and_works_when_copied(project, tmp_path):
    for name in ("report.md", "report.html"):
        text = _read(project, name)
        assert str(project) not in text and "python validation/run_all.py" in text and "advisor validate ." in text
    copy = tmp_path / "rep_v"
    shutil.copytree(project / "rep", copy)
    proc = subprocess.run(
        [sys.executable, "validation/run_all.py", "--device", "cpu"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "== stream_capture.py" in proc.stdout and "No such file" not in proc.stderr, proc.stderr[-2000:]


def test_each_finding_shows_its_source_and_fix_as_before_after(project):
    md, html = _read(project, "report.md"), _read(project, "report.html")
    assert "  ```diff\n  - x = torch.ger(a, b)\n  + x = torch.outer(a, b)\n  ```" in md
    assert "<del>- x = torch.ger(a, b)</del><ins>+ x = torch.outer(a, b)</ins>" in html
    assert "  ```python\n  z = torch.nn.functional.softmax(x)\n  ```" in md  # no fix: the line alone


def test_source_locations_link_to_the_file(project):
    md, html = _read(project, "report.md"), _read(project, "report.html")
    assert "[m.py:2:5](../m.py#L2)" in md
    assert '<a class="where" href="../m.py"><bdi>m.py:2:5</bdi></a>' in html
    for href in set(re.findall(r'href="(\.\./[^"]+)"', html)):
        from urllib.parse import unquote

        assert os.path.isfile(os.path.join(project, "rep", unquote(href))), href
