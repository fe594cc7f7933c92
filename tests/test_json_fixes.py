"""Every JSON fix carries its own range and edits; applying them gives exactly `advisor fix`'s output."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.conftest import ROOT, run_cli

TREES = ["examples/demo", "tests/fixtures/fix", "tests/fixtures/mixed", "tests/fixtures/ruffclean"]


def _apply(text: str, fixes: list[list[dict]]) -> tuple[str, int]:
    """`text` with each fix's edits made, a fix whole or not at all; a fix that overlaps one taken waits."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(r: dict, end: bool = False) -> int:
        return starts[r["end_line" if end else "line"] - 1] + r["end_column" if end else "column"] - 1

    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, int, str]] = []
    count = 0
    for edits in fixes:
        spans = [(offset(e["range"]), offset(e["range"], True), e["content"]) for e in edits]
        if any(s < te and ts < e or s == e == ts for s, e, _ in spans for ts, te in taken):
            continue
        taken += [(s, e) for s, e, _ in spans]
        chosen += spans
        count += 1
    for s, e, content in sorted(chosen, reverse=True):
        text = text[:s] + content + text[e:]
    return text, count


def _encoding(raw: bytes) -> str:
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    return "latin-1" if b"latin-1" in raw[:200] else "utf-8"


def _apply_json_fixes(tree: str, unsafe: bool) -> int:
    """Scan, apply every JSON fix's edits, and again until none is left (as `advisor fix` does, pass after pass)."""
    applied = 0
    for _ in range(6):
        out = run_cli("scan", "--no-cache", "--output-format", "json", "--exit-zero", ".", cwd=tree)
        by_path: dict[str, list[list[dict]]] = {}
        for f in json.loads(out.stdout)["findings"]:
            fix = f["fix"]
            if fix is None or f["cell"] or not (unsafe or fix["applicability"] == "safe"):
                continue
            assert fix["range"] is not None and fix["edits"], f  # every fix has its own range and edits
            by_path.setdefault(f["path"], []).append(fix["edits"])
        if not by_path:
            return applied
        for path, fixes in by_path.items():
            with open(os.path.join(tree, path), "rb") as fh:
                raw = fh.read()
            text, done = _apply(raw.decode(_encoding(raw)), fixes)
            applied += done
            with open(os.path.join(tree, path), "wb") as fh:
                fh.write(text.encode(_encoding(raw)))
    raise AssertionError("fixes still offered after 6 passes")


def _files(tree: str) -> dict[str, bytes]:
    out = {}
    for folder, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".advisor_cache"]
        for name in names:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), "rb") as fh:
                    out[os.path.relpath(os.path.join(folder, name), tree)] = fh.read()
    return out


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("tree", TREES)
def test_json_fixes_give_advisor_fix_output(tmp_path, tree, unsafe):
    by_json, by_fix = tmp_path / "json", tmp_path / "fix"
    shutil.copytree(os.path.join(ROOT, tree), by_json)
    shutil.copytree(os.path.join(ROOT, tree), by_fix)
    applied = _apply_json_fixes(str(by_json), unsafe)
    run_cli("fix", "--exit-zero", *(["--unsafe-fixes"] if unsafe else []), ".", cwd=str(by_fix))
    assert applied > 0
    assert _files(str(by_json)) == _files(str(by_fix))


def test_fix_range_is_the_replacements_not_the_findings(tmp_path):
    """ADV745 reports the whole call; its fix replaces one keyword, and says so."""
    (tmp_path / "m.py").write_text("import torch\nact = torch.nn.Hardtanh(min_value=-1.0, max_value=1.0)\n")
    out = run_cli("scan", "--no-cache", "--output-format", "json", "--select", "ADV738,ADV745", "m.py", cwd=tmp_path)
    fixes = {f["rule"]: f["fix"] for f in json.loads(out.stdout)["findings"]}
    line = "act = torch.nn.Hardtanh(min_value=-1.0, max_value=1.0)"
    for code, old, new in (("ADV738", "min_value=-1.0", "min_val=-1.0"), ("ADV745", "max_value=1.0", "max_val=1.0")):
        r = fixes[code]["range"]
        assert (r["line"], r["end_line"]) == (2, 2)
        assert line[r["column"] - 1 : r["end_column"] - 1] == old
        assert fixes[code]["replacement"] == new
