"""Every JSON fix carries its own range and edits; applying them gives exactly `advisor fix`'s output."""

from __future__ import annotations

import json
import os
import shutil

import pytest

from tests.conftest import ROOT, run_cli

TREES = ["examples/demo", "tests/fixtures/fix", "tests/fixtures/mixed", "tests/fixtures/ruffclean"]


def _apply(text: str, fixes: list[dict]) -> tuple[str, int]:
    """`text` with each fix's edits made, a fix whole or not at all; a fix that overlaps one taken waits. A fix's
    `shared_edits` are made once every fix they name is made too (the import they all used, say)."""
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))

    def offset(r: dict, end: bool = False) -> int:
        return starts[r["end_line" if end else "line"] - 1] + r["end_column" if end else "column"] - 1

    def spans(edits: list[dict]) -> list[tuple[int, int, str]]:
        return [(offset(e["range"]), offset(e["range"], True), e["content"]) for e in edits]

    def free(edits: list[tuple[int, int, str]]) -> bool:
        return not any(s < te and ts < e or s == e == ts for s, e, _ in edits for ts, te in taken)

    taken: list[tuple[int, int]] = []
    chosen: list[tuple[int, int, str]] = []
    made: list[dict] = []
    for f in fixes:
        own = spans(f["fix"]["edits"])
        if free(own):
            taken += [(s, e) for s, e, _ in own]
            chosen += own
            made.append(f)
    ids = {(f["rule"], f["cell"], f["line"], f["column"]) for f in made}
    for f in made:
        shared = f["fix"].get("shared_edits")
        if shared and all((o["rule"], o["cell"], o["line"], o["column"]) in ids for o in shared["with"]):
            together = spans(shared["edits"])
            assert free(together), shared  # never one of the fixes' own edits
            chosen += together
    for s, e, content in sorted(chosen, reverse=True):
        text = text[:s] + content + text[e:]
    return text, len(made)


def _encoding(raw: bytes) -> str:
    if raw.lstrip().startswith(b"{"):  # a notebook: its edits are in the .ipynb file's text
        return "utf-8"
    if raw.startswith(b"\xef\xbb\xbf"):
        return "utf-8-sig"
    return "latin-1" if b"latin-1" in raw[:200] else "utf-8"


def _apply_json_fixes(tree: str, unsafe: bool) -> int:
    """Scan, apply every JSON fix's edits, and again until none is left (as `advisor fix` does, pass after pass)."""
    applied = 0
    for _ in range(6):
        out = run_cli("scan", "--no-cache", "--output-format", "json", "--exit-zero", ".", cwd=tree)
        by_path: dict[str, list[dict]] = {}
        for f in json.loads(out.stdout)["findings"]:
            fix = f["fix"]
            if fix is None or not (unsafe or fix["applicability"] == "safe"):
                continue
            assert fix["range"] is not None and fix["edits"], f  # every fix has its own range and edits
            by_path.setdefault(f["path"], []).append(f)
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
            if name.endswith((".py", ".ipynb")):
                with open(os.path.join(folder, name), "rb") as fh:
                    out[os.path.relpath(os.path.join(folder, name), tree)] = fh.read()
    return out


def _same_as_advisor_fix(tmp_path, tree: str, unsafe: bool) -> None:
    by_json, by_fix = tmp_path / "json", tmp_path / "fix"
    shutil.copytree(tree, by_json)
    shutil.copytree(tree, by_fix)
    applied = _apply_json_fixes(str(by_json), unsafe)
    run_cli("fix", "--exit-zero", "--no-cache", *(["--unsafe-fixes"] if unsafe else []), ".", cwd=str(by_fix))
    assert applied > 0
    assert _files(str(by_json)) == _files(str(by_fix))


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("tree", TREES)
def test_json_fixes_give_advisor_fix_output(tmp_path, tree, unsafe):
    _same_as_advisor_fix(tmp_path, os.path.join(ROOT, tree), unsafe)


SHARED = """import torch


def run(model, x):
    from torch.cuda.amp import autocast

    with autocast():
        y = model(x)
    with autocast(dtype=torch.bfloat16):
        return model(y)
"""
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training"]},
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
            "source": ["from torch.cuda.amp import autocast, GradScaler\n", "scaler = GradScaler()"],
        },
        {
            "cell_type": "code",
            "metadata": {},
            "outputs": [{"output_type": "stream", "name": "stdout", "text": ["ok\n"]}],
            "execution_count": 2,
            "source": ["with autocast():\n", "    pass\n", "with autocast():\n", "    pass"],
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def test_fixes_that_share_an_import_and_notebook_fixes_compose(tmp_path):
    """Two fixes of one function each leave its import used by the other: together they remove it, as `advisor fix`
    does in one pass. A notebook's fixes add and remove imports in other cells: its edits are in the .ipynb text."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "shared.py").write_text(SHARED)
    (tree / "explore.ipynb").write_text(json.dumps(NOTEBOOK, indent=1) + "\n")
    out = run_cli("scan", "--no-cache", "--output-format", "json", "--exit-zero", ".", cwd=tree)
    fixes = [f for f in json.loads(out.stdout)["findings"] if f["fix"]]
    shared = [f["fix"]["shared_edits"] for f in fixes if f["path"] == "shared.py" and f["fix"].get("shared_edits")]
    assert len(shared) == 1 and shared[0]["with"][0]["line"] == 7  # carried once, by the fix at line 9
    cells = [f for f in fixes if f["cell"]]
    assert len(cells) == 2 and all(f["fix"]["edits"] for f in cells)  # notebook fixes have edits too
    _same_as_advisor_fix(tmp_path, str(tree), unsafe=False)
    fixed = (tmp_path / "fix" / "shared.py").read_text()
    assert "from torch.cuda.amp" not in fixed and fixed.count("torch.amp.autocast") == 2


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


def test_a_warm_json_run_takes_each_unchanged_files_edits_from_the_cache(tmp_path, monkeypatch):
    # The edits cost a second analysis and a fix per finding: a run over an unchanged file reads them back, and
    # a changed file's are made again.
    from advisor.fix import edits
    from advisor.run.project import Project

    shutil.copytree(os.path.join(ROOT, "tests", "fixtures", "fix"), tmp_path / "t")
    made = []
    real = edits.FixableFile.__init__

    def counting(self, path, *a, **k):
        made.append(os.path.basename(path))
        real(self, path, *a, **k)

    monkeypatch.setattr(edits.FixableFile, "__init__", counting)

    def run():
        project = Project.load([str(tmp_path / "t")], target_version="2.15", cache_dir=str(tmp_path / "cache"))
        findings = project.scan().findings
        return edits.fix_edits(findings, project)

    first = run()
    assert made and first[0]
    made.clear()
    import advisor.run.loading as loading

    reads = []
    real_read = loading.read_file
    monkeypatch.setattr(loading, "read_file", lambda path: reads.append(path) or real_read(path))
    assert run() == first and made == []
    assert reads == []  # an unchanged file (same size and mtime) is not even read for its edits
    monkeypatch.setattr(loading, "read_file", real_read)
    changed = tmp_path / "t" / "multi.in.py"
    changed.write_text(changed.read_text() + "\n# changed\n")
    assert run()[0] != {} and made == ["multi.in.py"]


# The edits generate only the top-level statements a fix changed and splice them into the file's text
# (advisor.fix.edits.FixableFile._spliced): it must give the whole module's code, byte for byte, for every case of
# tests/fix/test_replace.py (imports removed, added, several statements, a semicolon, non-ASCII text) and for a
# file with CRLF newlines, one with no final newline (not spliced) and one with a comment after the last statement.
def test_a_spliced_fix_is_the_whole_modules_code(monkeypatch):
    from advisor.analysis.registry import all_rules
    from advisor.core.settings import settings_at
    from advisor.fix import edits
    from tests.fix.test_replace import AMP, CASES

    extra = {
        "crlf": (AMP + "\nwith autocast():\n    pass\nx = 1\n").replace("\n", "\r\n"),
        "no final newline": AMP + "\nwith autocast():\n    pass",
        "footer comment": AMP + "\nwith autocast():\n    pass\n# the end\n",
    }
    rules, settings = all_rules(), settings_at("2.15", "2.12")
    spliced = 0
    for name, code in {**CASES, **extra}.items():
        file = edits.FixableFile(f"{name}.py", code.encode(), rules, settings)
        reports = [rep for rep, _ in file.items()]
        assert reports, name
        for chosen in [reports[:1], reports]:
            fast = file.fixed(chosen)
            with monkeypatch.context() as m:
                m.setattr(edits.FixableFile, "_spliced", lambda self, new: None)
                assert fast == file.fixed(chosen), name
            spliced += file._pieces is not None
    assert spliced >= len(CASES)  # the splice ran, and was not only the fallback


def test_the_scans_workers_make_the_json_edits_from_their_own_analysis(tmp_path, monkeypatch):
    # A JSON scan's workers make each file's fix edits from the analysis that found the fixes (a slice of the file,
    # or the whole file): the edits the main process would make from a second analysis, which they spare it.
    from advisor.fix import edits, file_edits
    from advisor.run.project import Project

    shutil.copytree(os.path.join(ROOT, "tests", "fixtures", "fix"), tmp_path / "t")
    filler = "".join(
        f"def unrelated_{i}(x):\n    y = x + {i}\n    z = y * 2\n    w = z - x\n    return [w] * {i}\n\n\n"
        for i in range(40)
    )
    sliced = "import torch\n\n\n" + filler + "def f(x):\n    with torch.cuda.amp.autocast():\n        return x\n"
    (tmp_path / "t" / "big.py").write_text(sliced)
    sources = []
    by_scan = file_edits.FixableFile.analysed_by_scan.__func__

    def recording(cls, path, data, rules, settings, analysed, source):
        sources.append((os.path.basename(path), source is not None))
        return by_scan(cls, path, data, rules, settings, analysed, source)

    monkeypatch.setattr(file_edits.FixableFile, "analysed_by_scan", classmethod(recording))
    project = Project.load([str(tmp_path / "t")], target_version="2.15", no_cache=True)
    result = project.scan(edits=True)
    fixable = {f.path for f in result.findings if file_edits.fixable(f)}
    made = {r.path: r.edits for r in result.results if r.edits is not None}
    assert sorted(made) == sorted(fixable)
    assert ("big.py", True) in sources  # big.py's from its slice
    analysed = []
    real = edits.FixableFile.__init__
    monkeypatch.setattr(
        edits.FixableFile, "__init__", lambda self, path, *a: analysed.append(path) or real(self, path, *a)
    )
    from_workers = edits.fix_edits(result.findings, project, made)
    assert analysed == []
    assert edits.fix_edits(result.findings, project) == from_workers and sorted(set(analysed)) == sorted(fixable)
