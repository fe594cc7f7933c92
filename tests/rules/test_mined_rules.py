"""The mined-catalogue family ADV001-ADV003 (rules/mined): generated data, no double findings, real scans."""

from __future__ import annotations

import json
import subprocess
import sys

from advisor.analysis.registry import all_rules, rule_by_code
from tests.tool_modules import load_tool
from tests.conftest import REPO as ROOT

CATALOGUE = ROOT / "rules" / "mined" / "catalogue.json"
INDEX = ROOT / "docs" / "evidence" / "torch-api-index.json.gz"
FAMILY = ("ADV001", "ADV002", "ADV003")


def test_the_catalogue_is_generated_from_the_index_and_the_ledger(tmp_path):
    """Never edited by hand: deriving it again from the committed index gives the same bytes."""
    out = tmp_path / "catalogue.json"
    assert load_tool("miner").main(["--from-index", str(INDEX), "--catalogue", str(out)]) == 0
    assert out.read_bytes() == CATALOGUE.read_bytes(), (
        "rules/mined/catalogue.json is stale: run `python tools/mine_deprecations.py --from-index "
        "docs/evidence/torch-api-index.json.gz --catalogue rules/mined/catalogue.json`"
    )


def test_only_user_facing_names_and_each_has_a_window():
    data = json.loads(CATALOGUE.read_text(encoding="utf-8"))
    assert data["removed"] and data["deprecated"]
    for section in ("removed", "deprecated", "keywords"):
        for api, entry in data[section].items():
            assert api.split(".")[0] in ("torch", "functorch"), api
            assert not any(p.startswith("_") for p in api.split(".")), api
            entries = entry.values() if section == "keywords" else [entry]
            for e in entries:
                # silent_from: `@deprecated(..., category=None)`, documented deprecated but never warning (advice)
                assert e["removed_in"] or e["deprecated_in"] or e.get("silent_from"), api
                assert not (e.get("silent_from") and e["deprecated_in"]), api
                if section == "removed":
                    assert e["removed_in"], api


def test_no_name_is_reported_by_a_hand_rule_too():
    rules = all_rules()
    family = {rule_by_code(c) for c in FAMILY}
    claimed: set[str] = set()
    for r in rules:
        if r in family:
            continue
        claimed.update(r.targets)
        claimed.update(getattr(r, "names", ()) or ())
        row = getattr(r, "row", None)
        claimed.update(e.old for e in row.entries) if row is not None else None
    for r in family:
        mine = set(getattr(r, "names", ()) or ()) | set(getattr(r, "calls", ()) or ())
        assert mine, r.code
        assert not mine & claimed, f"{r.code} double-reports {sorted(mine & claimed)[:5]}"


def test_the_registry_hook_hands_a_name_to_a_new_hand_rule():
    """A hand rule written later for a mined API takes it over at once, before any regeneration."""
    mined = rule_by_code("ADV002")
    api = sorted(mined.names)[0]
    hand = type("Hand", (), {"code": "ADV799", "targets": (api,), "names": (), "attribute_targets": (), "row": None})
    saved = (mined.names, mined.targets, mined.triggers, mined._lookup)
    try:
        mined.defer_to((*all_rules(), hand))
        assert api not in mined.names and api not in mined._lookup and mined.names
    finally:
        mined.names, mined.targets, mined.triggers, mined._lookup = saved


def test_one_set_per_family_for_the_prefilter_and_the_reference_check():
    for code in FAMILY:
        r = rule_by_code(code)
        lookup = r._lookup
        assert isinstance(lookup, frozenset) and lookup == frozenset(r.targets)
        assert len(r.triggers) <= len(lookup)


def _scan(tmp_path, text: str, target: str) -> list[dict]:
    f = tmp_path / "m.py"
    f.write_text(text, encoding="utf-8")
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "advisor",
            "scan",
            str(f),
            "--format",
            "json",
            "--no-cache",
            "--exit-zero",
            "--target-version",
            target,
            "--min-torch",
            "2.0",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    return [x for x in json.loads(res.stdout)["findings"] if x["rule"] in FAMILY]


# APIs no hand rule covers (dynamo_export, distributed.pipeline and the nn.init aliases have theirs now):
# checkpoint/fsspec.py is in the 2.3.0 wheel and not the 2.4.0 one; verification.find_mismatch is @deprecated in
# 2.8.0 and gone from 2.9.0's torch/onnx/verification.py.
CODE = (
    "import torch\n"
    "import torch.distributed.checkpoint.fsspec\n"
    "from torch.distributed import all_reduce_coalesced\n"
    "prog = torch.onnx.verification.find_mismatch(m, x)\n"
    "all_reduce_coalesced(w)\n"
    "torch.distributed.all_reduce(w)\n"
    "def f(torch):\n"
    "    return torch.onnx.verification.find_mismatch(m)\n"
)


def test_kind_follows_the_window_and_the_target(tmp_path):
    at15 = {(x["line"], x["rule"]): x for x in _scan(tmp_path, CODE, "2.15")}
    assert set(at15) == {(2, "ADV001"), (4, "ADV001"), (5, "ADV002")}
    assert at15[(4, "ADV001")]["kind"] == "breaking"
    assert "torch.onnx.export(..., dynamo=True)" in at15[(4, "ADV001")]["message"]  # the wheel's own text
    assert at15[(5, "ADV002")]["kind"] == "deprecated"
    at8 = {(x["line"], x["rule"]): x for x in _scan(tmp_path, CODE, "2.8")}
    assert at8[(4, "ADV001")]["kind"] == "deprecated"  # decorated from 2.7, gone in 2.9
    assert (4, "ADV001") not in {(x["line"], x["rule"]) for x in _scan(tmp_path, CODE, "2.6")}


def test_readme_says_how_to_ignore_the_family():
    assert "--ignore ADV0" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_package_and_its_data_are_installed():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"advisor.rules.mined"' in text and '"advisor.rules.mined" = ["catalogue.json"]' in text
