"""The C++ texts of every torch release (tools/miner/cxx.py) and their ledger (tools/miner/cxx_ledger.py).

The extraction runs on small synthetic wheels; the committed data and ledger are checked for form, and every
`rule` entry of the ledger is probed with `advisor scan` (no network, no wheels needed)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from tests.tool_modules import load_tool

cxx = load_tool("miner.cxx")
cxx_ledger = load_tool("miner.cxx_ledger")
# Codes a ledger entry may name before their rules land (their probes are checked once registered); none now.
PENDING_RULES: set[str] = set()


def fake_wheel(tmp: Path, version: str, libs: dict[str, bytes]) -> Path:
    path = tmp / f"torch-{version}-cp311-cp311-macosx_14_0_arm64.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"torch-{version}.dist-info/METADATA", f"Name: torch\nVersion: {version}\n\n")
        for name, data in libs.items():
            zf.writestr(f"torch/lib/{name}", data)
    return path


WARN = b"torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."
SYMBOL = b"__ZN3c1021warnDeprecatedDataPtrEv"
OTHER = b"Expected all tensors to be on the same device"


def test_texts_are_the_deprecation_strings_of_the_three_libraries(tmp_path):
    whl = fake_wheel(
        tmp_path,
        "9.0.0",
        {
            "libtorch_cpu.dylib": b"\x00\x01" + WARN + b"\x00" + SYMBOL + b"\x00" + OTHER + b"\x00\xff",
            "libc10.dylib": b"\x00torch.x is deprecated and will be removed\x00",
            "libshm.dylib": b"\x00torch.y is deprecated and will be removed\x00",  # not one of the three
        },
    )
    assert cxx.texts_of_wheel(whl) == {
        WARN.decode(): ["torch_cpu"],
        "torch.x is deprecated and will be removed": ["c10"],
    }


def test_first_and_last_release_of_each_text(tmp_path):
    old = b"\x00torch.old is deprecated and will be removed in a future release\x00"
    whls = [
        fake_wheel(tmp_path, "9.0.0", {"libtorch_cpu.so": old}),
        fake_wheel(tmp_path, "9.1.0", {"libtorch_cpu.so": old + WARN + b"\x00"}),
        fake_wheel(tmp_path, "9.2.0", {"libtorch_python.so": WARN + b"\x00"}),
    ]
    cache = cxx.WheelCache(tmp_path / "c.json")
    data = cxx.build(list(reversed(whls)), cache)
    assert data["releases"] == ["9.0.0", "9.1.0", "9.2.0"]
    assert data["texts"][WARN.decode()] == {
        "first": "9.1.0",
        "last": "9.2.0",
        "in": "1-2",
        "libs": ["torch_cpu", "torch_python"],
    }
    assert data["texts"][old.strip(b"\x00").decode()]["in"] == "0-1"
    cxx.write(data, tmp_path / "a.json")
    cxx.write(cxx.build(whls, cxx.WheelCache(tmp_path / "c.json")), tmp_path / "b.json")  # from the cache
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_the_committed_texts_are_sorted_and_span_2_0_to_2_15(tmp_path):
    data = json.loads(cxx_ledger.TEXTS.read_text(encoding="utf-8"))
    cxx.write(data, tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == cxx_ledger.TEXTS.read_bytes()  # the miner's own bytes
    assert [v.rsplit(".", 1)[0] for v in data["releases"] if v.endswith(".0")] == [f"2.{m}" for m in range(16)]
    assert list(data["texts"]) == sorted(data["texts"])
    for text, info in data["texts"].items():
        assert text == " ".join(text.split()) and len(text) <= cxx.MAX_TEXT, text  # one line, as mined
        assert info["first"] in data["releases"] and info["last"] in data["releases"]


def test_every_text_has_a_ledger_entry_with_a_status_and_a_reason():
    texts = json.loads(cxx_ledger.TEXTS.read_text(encoding="utf-8"))["texts"]
    items = cxx_ledger.load()
    assert set(items) == set(texts), "run `python -m tools.miner.cxx_ledger update`"
    for text, e in items.items():
        assert e["status"] in cxx_ledger.STATUSES, text
        if e["status"] == "rule":
            assert e["rule"].startswith("ADV") and e["probe"], text
        elif e["status"] == "todo":
            assert isinstance(e["score"], int), text
        else:
            assert e["reason"], text


def test_each_rule_entry_is_reported_on_its_probe():
    items = {t: e for t, e in cxx_ledger.load().items() if not (e["status"] == "rule" and e["rule"] in PENDING_RULES)}
    assert cxx_ledger.check(items) == {}
