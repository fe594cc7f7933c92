"""The next-release command (tools/miner/release.py, `python tools/release.py X.Y.Z --wheel ...`).

* No ledger entry may stay untriaged: the command marks what it adds, a maintainer triages and unmarks.
* Its pieces on synthetic data (always run).
* The rehearsal on 2.15 (issue 40 item 5): the index and the C++ texts cut back to 2.0-2.14.1, extended with the
  real 2.15.0 wheel, must give the committed data again, and the triage list must hold every item the ledgers
  date from 2.15.0. It needs the wheels (2.14.1 and 2.15.0, ~270 MB) in $ADVISOR_WHEELS or
  ~/.cache/advisor-wheels and skips without them: tests never download.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from tests.tool_modules import load_tool

release = load_tool("miner.release")
cxx = load_tool("miner.cxx")
cxx_ledger = load_tool("miner.cxx_ledger")
ledger = load_tool("miner.ledger")
index_mod = load_tool("miner.index")
WHEELS = Path(os.environ.get("ADVISOR_WHEELS", Path.home() / ".cache" / "advisor-wheels"))


def test_no_ledger_entry_is_left_untriaged():
    left = [k for k, e in ledger.load().items() if e.get("untriaged")]
    left += [k for k, e in cxx_ledger.load().items() if e.get("untriaged")]
    assert left == [], "triage these (set status/reason, remove `untriaged`): " + "; ".join(k[:80] for k in left)


def test_texts_extended_by_a_release_round_trip():
    texts = {
        "releases": ["1.0.0", "1.1.0"],
        "texts": {
            "a is deprecated": {"first": "1.0.0", "last": "1.1.0", "in": "0-1", "libs": ["c10"]},
            "b will be removed": {"first": "1.0.0", "last": "1.0.0", "in": "0", "libs": ["torch_cpu"]},
        },
    }
    found = {"a is deprecated": ["c10"], "c is deprecated": ["torch_python"]}
    three = release.extend_texts(texts, "1.2.0", found)
    assert three["texts"]["a is deprecated"]["in"] == "0-2" and three["texts"]["b will be removed"]["last"] == "1.0.0"
    assert three["texts"]["c is deprecated"] == {"first": "1.2.0", "last": "1.2.0", "in": "2", "libs": ["torch_python"]}
    assert release.truncate_texts(three, 2) == texts
    assert [line.split("]  ")[1] for line in release.cxx_group(three, "1.2.0", {})] == ["c is deprecated"]
    with pytest.raises(SystemExit):
        release.extend_texts(three, "1.2.0", found)


def test_python_items_are_grouped_for_triage():
    items = [
        {"id": "torch:removed:torch.a", "kind": "removed", "api": "torch.a", "message": "gone"},
        {"id": "torch:deprecated:torch.b", "kind": "warn", "api": "torch.b", "message": "b is deprecated"},
        {"id": "torch:deprecated:torch.c(k=)", "kind": "warn", "api": "torch.c(k=)", "message": "k is deprecated"},
        {"id": "torch:deprecated:torch.d", "kind": "warn", "api": "torch.d", "message": "known"},
    ]
    groups = release.python_groups(items, {"torch:deprecated:torch.d": {}})
    assert [len(groups[g]) for g in release.GROUPS] == [1, 1, 1, 0]
    assert groups["new keyword deprecations"][0].startswith("torch:deprecated:torch.c(k=)")


def _wheel(version: str) -> Path:
    found = sorted(WHEELS.glob(f"torch-{version}-*.whl"))
    if not found:
        pytest.skip(f"no torch {version} wheel in {WHEELS} (tests never download; see docs/coverage.md)")
    return found[0]


@pytest.fixture(scope="module")
def rehearsal():
    new, previous = _wheel("2.15.0"), _wheel("2.14.1")
    committed = index_mod.read_index(release.INDEX)
    texts = cxx.read(cxx_ledger.TEXTS)
    assert committed["releases"][-1] == texts["releases"][-1] == "2.15.0"
    cache_file = WHEELS / "cache.json"
    cache = load_tool("miner.sites").Cache(cache_file if cache_file.is_file() else None)
    rel = load_tool("miner.model").build_release(load_tool("miner.wheels").load(str(new), c_stubs=True), cache)
    index = index_mod.extend_index(index_mod.truncate_index(committed, len(committed["releases"]) - 1), rel)
    cut = release.truncate_texts(texts, len(texts["releases"]) - 1)
    again = release.extend_texts(cut, "2.15.0", cxx.WheelCache(WHEELS / "cxx-cache.json").texts(new))
    items = release.python_items(previous, new, cache)
    return committed, index, texts, again, items


def test_rehearsal_the_extended_index_is_the_committed_one(rehearsal):
    committed, index, *_ = rehearsal
    assert index["releases"] == committed["releases"]
    assert index["apis"] == committed["apis"]
    assert index["events"] == committed["events"]


def test_rehearsal_the_extended_texts_are_the_committed_ones(rehearsal):
    _c, _i, texts, again, _items = rehearsal
    assert again == texts


def test_rehearsal_the_triage_list_holds_every_2_15_item(rehearsal):
    """As if 2.15 were new: the ledgers without what they date from 2.15.0; the list must name all of that."""
    *_, texts, _again, items = rehearsal
    py_before = {k: e for k, e in ledger.load().items() if e["first"] != "2.15.0"}
    groups = release.python_groups(items, py_before)
    listed = {line.split("  ")[0] for g in release.GROUPS[:3] for line in groups[g]}
    dated = {k for k, e in ledger.load().items() if e["first"] == "2.15.0" and e["dist"] == "torch"}
    assert dated <= listed, sorted(dated - listed)
    c_before = {t: e for t, e in cxx_ledger.load().items() if e["first"] != "2.15.0"}
    new_texts = release.cxx_group(texts, "2.15.0", c_before)
    assert len(new_texts) == sum(1 for e in cxx_ledger.load().values() if e["first"] == "2.15.0")
    print(json.dumps({g: len(v) for g, v in {**groups, "new C++ texts": new_texts}.items()}))


def test_the_command_end_to_end_on_synthetic_wheels(tmp_path, monkeypatch, capsys):
    """9.0.0 is known; 9.1.0 deprecates a function, a keyword, removes a name and adds a C++ text."""
    from tests.miner.test_mine_deprecations import make_wheel

    lib = b"\x00torch.old_cpp is deprecated and will be removed in a future release\x00"
    v1 = {
        "torch/__init__.py": "from torch.mod import f, g, gone\n",
        "torch/mod.py": "def f(x):\n    return x\ndef g(x, key=None):\n    return x\ndef gone():\n    pass\n",
    }
    v2 = {
        "torch/__init__.py": "from torch.mod import f, g\n",
        "torch/mod.py": "import warnings\n"
        "def f(x):\n    warnings.warn('f is deprecated', FutureWarning)\n"
        "def g(x, key=None):\n    if key is not None:\n        warnings.warn('key is deprecated', FutureWarning)\n",
    }
    old, new = (make_wheel(tmp_path, v, files) for v, files in (("9.0.0", v1), ("9.1.0", v2)))
    with zipfile.ZipFile(new, "a") as zf:
        zf.writestr("torch/lib/libtorch_cpu.so", lib)
    sources = [
        (*load_tool("miner.wheels").peek(str(old)), lambda: load_tool("miner.wheels").load(str(old), c_stubs=True))
    ]
    index_mod.write_index(index_mod.build_index(sources, load_tool("miner.sites").Cache(None)), tmp_path / "i.json.gz")
    cxx.write(cxx.build([old], cxx.WheelCache(None)), tmp_path / "texts.json")
    monkeypatch.setattr(release, "INDEX", tmp_path / "i.json.gz")
    monkeypatch.setattr(release, "CATALOGUE", tmp_path / "catalogue.json")
    monkeypatch.setattr(cxx_ledger, "TEXTS", tmp_path / "texts.json")
    monkeypatch.setattr(cxx_ledger, "LEDGER", tmp_path / "cxx-ledger.json")
    monkeypatch.setattr(ledger, "LEDGER", tmp_path / "ledger.json")
    rows = tmp_path / "releases.py"
    rows.write_text(load_tool("miner.release_row").RELEASES.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(load_tool("miner.release_row"), "RELEASES", rows)
    assert release.main(["9.1.0", "--wheel", str(new), "--dry-run"]) == 0
    assert not (tmp_path / "ledger.json").exists()  # a dry run writes nothing
    assert release.main(["9.1.0", "--wheel", str(new)]) == 0
    out = capsys.readouterr().out
    assert "== removed: 1\n  torch:removed:torch.gone" in out
    assert "== newly warning: 1\n  torch:deprecated:torch.f" in out
    assert "== new keyword deprecations: 1\n  torch:deprecated:torch.g(key=)" in out
    assert "== new C++ texts: 1\n  [todo]  torch.old_cpp is deprecated" in out
    assert index_mod.read_index(tmp_path / "i.json.gz")["releases"] == ["9.0.0", "9.1.0"]
    marked = {k for k, e in ledger.load(tmp_path / "ledger.json").items() if e.get("untriaged") == "9.1.0"}
    assert marked == {"torch:removed:torch.gone", "torch:deprecated:torch.f", "torch:deprecated:torch.g(key=)"}
    assert [e["untriaged"] for e in cxx_ledger.load(tmp_path / "cxx-ledger.json").values()] == ["9.1.0"]
    # the release row: no companions and no Requires-Python given, so the previous row's values
    assert 'release row: Release("9.1", "0.29", "2.11", "3.11")' in out
    assert rows.read_text(encoding="utf-8").count('Release("9.1"') == 1
