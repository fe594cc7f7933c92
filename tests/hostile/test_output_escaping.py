"""A hostile repository can't forge or hide anything in the CI formats through a file name or a message.

Names with `%`, `#`, `?`, spaces, non-ASCII, an undecodable byte, ESC/OSC 52 and a right-to-left
override; a message (ADV501 quotes source) with newlines, ESC and a line that looks like a finding.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from urllib.parse import unquote_to_bytes, urlsplit

import pytest

# A call that fails a default run (ADV206: torch.cholesky is gone in 2.14), so the findings must be seen.
CODE = b"import torch\ny = torch.cholesky(a)\n"
NAMES = {
    b"a b%#?\xc3\xa9.py": "a b%#?é.py",
    b"osc\x1b]52;c;aGk=\x07.py": "osc\\x1b]52;c;aGk=\\x07.py",
    b"bad\xff.py": "bad\\xff.py",
    b"rlo\xe2\x80\xaetxt.py": "rlo\\u202etxt.py",
}
FORGED = "evil.py:1:1: ADV101 forged"


@pytest.fixture
def hostile(tmp_path):
    for name in NAMES:
        with open(os.path.join(os.fsencode(tmp_path), name), "wb") as f:
            f.write(CODE)
    # ADV501 quotes the call, and with it a triple-quoted string holding a newline, ESC and a fake finding.
    (tmp_path / "adv.py").write_bytes(
        f'import torch\nopt_step = torch.compile(opt.step, mode="""\n{FORGED}\x1b[2J\x9b31m\n""")\n'.encode()
    )
    return tmp_path


def _scan(cli, where, fmt):
    proc = cli("scan", ".", "--no-cache", "--output-format", fmt, cwd=where)
    assert proc.returncode == 1, proc.stderr  # the findings are there: nothing hid them
    return proc.stdout


@pytest.mark.parametrize("fmt", ["concise", "full", "github"])
def test_text_formats_print_no_terminal_escape_and_no_forged_line(cli, hostile, fmt):
    out = _scan(cli, hostile, fmt)
    assert not any(c in out for c in "\x1b\x07\x9b\u202e"), repr(out)
    assert not any(line.startswith(("evil.py", "::") if fmt != "github" else "evil.py") for line in out.splitlines()), (
        out
    )
    for shown in NAMES.values():
        assert shown in out or shown.replace("%", "%25") in out, (shown, out)
    adv = next(line for line in out.splitlines() if "ADV501" in line)
    if fmt == "github":  # the workflow-command spec's escapes
        assert adv.startswith("::notice file=adv.py,") and f'"""%0A{FORGED}\\x1b[2J\\x9b31m%0A"""' in adv, adv
        assert all(line.startswith("::") for line in out.splitlines() if line), out
    elif fmt == "full":  # concise keeps what and the remedy only (issue 38): the quoted source is in `full`
        assert f'"""\\n{FORGED}\\x1b[2J\\x9b31m\\n"""' in adv, adv


def test_github_properties_escape_colon_comma_and_percent(cli, tmp_path):
    (tmp_path / "a:b,c%d.py").write_bytes(CODE)
    out = _scan(cli, tmp_path, "github")
    assert "file=a%3Ab%2Cc%25d.py,line=2," in out, out


def test_junit_parses_with_control_characters_and_undecodable_names(cli, hostile):
    out = _scan(cli, hostile, "junit")
    root = ET.fromstring(out)  # raises on anything XML 1.0 forbids
    names = [case.get("classname") for case in root.iter("testcase")]
    assert "bad\\xff.py" in names and "osc\\x1b]52;c;aGk=\\x07.py" in names, names
    adv = next(case for case in root.iter("testcase") if case.get("classname") == "adv.py")
    assert "\\x1b[2J" in adv.find("failure").get("message")


def test_sarif_uris_are_percent_encoded_relative_references(cli, hostile):
    sarif = json.loads(_scan(cli, hostile, "sarif"))
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert "a%20b%25%23%3F%C3%A9.py" in uris and "bad%FF.py" in uris, uris
    for uri in uris:
        parts = urlsplit(uri)
        assert not (parts.scheme or parts.netloc or parts.query or parts.fragment), uri
        assert all(" " < c < "\x7f" for c in uri), uri
    assert {unquote_to_bytes(u) for u in uris} == set(NAMES) | {b"adv.py"}


def test_fix_prints_what_is_left_without_raw_escapes(cli, hostile):
    proc = cli("fix", ".", cwd=hostile)
    assert "Fixed 4 findings" in proc.stdout, proc.stdout + proc.stderr
    assert any("ADV501" in line for line in proc.stdout.splitlines()), proc.stdout  # left, in concise form
    assert not any(c in proc.stdout + proc.stderr for c in "\x1b\x07\x9b\u202e"), repr(proc.stdout)


def test_audit_names_unanalysable_files_without_raw_escapes(cli, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "osc\x1b]52;c;aGk=\x07.py").write_text("import torch\ntorch.cuda.memory_cached(\n")
    (tmp_path / "org.txt").write_text("repo\n")
    proc = cli("audit", "org.txt", "--out", "out", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "repo: osc\\x1b]52;c;aGk=\\x07.py: error:" in proc.stderr, proc.stderr
    assert not any(c in proc.stdout + proc.stderr for c in "\x1b\x07"), repr(proc.stderr)
