"""The coverage ledger (docs/coverage/ledger.json) against the miner and the rules.

* Every deprecation the miner finds in the installed torch (located with find_spec, never
  imported) has a ledger entry: a new torch release becomes a to-do list, not a surprise.
* Every `rule` entry is real: `advisor scan` reports that rule on a snippet using the API.
* docs/coverage.md states the figure the ledger gives (generated, never hand-typed).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from tests.tool_modules import load_tool
from tests.conftest import REPO as ROOT


miner = load_tool("miner")
ledger_tool = load_tool("miner.ledger")
LEDGER = ledger_tool.load()


def _installed(dist: str) -> Path | None:
    """site-packages holding `dist`, found without importing it."""
    spec = importlib.util.find_spec(dist)
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent.parent


def test_ledger_entries_are_well_formed():
    assert LEDGER, "docs/coverage/ledger.json is missing or empty"
    for iid, e in LEDGER.items():
        dist, key, api = iid.split(":", 2)
        assert (e["dist"], e["api"]) == (dist, api), iid
        assert key == ("removed" if e["kind"] == "removed" else "deprecated"), iid
        assert e["status"] in ledger_tool.STATUSES, iid
        if e["status"] == "rule":
            assert re.fullmatch(r"ADV\d{3}", e["rule"] if isinstance(e["rule"], str) else e["rule"][0]), iid
        elif e["status"] in ("not-user-facing", "no-static-pattern"):
            assert e.get("reason", "").strip(), f"{iid}: a {e['status']} entry needs a reason"
        else:
            assert e.get("family"), f"{iid}: a todo entry proposes a rule family"


@pytest.mark.parametrize("dist", ["torch", "torchvision", "torchaudio"])
def test_every_mined_item_of_the_installed_version_is_in_the_ledger(dist):
    site = _installed(dist)
    if site is None:
        pytest.skip(f"{dist} is not installed")
    src = miner.load_tree(site, dist)
    if not src.files:
        pytest.skip(f"no {dist} sources under {site}")
    result = miner.mine_sites(src)
    unknown = [it["id"] for it in result["items"] if it["id"] not in LEDGER]
    assert not unknown, (
        f"{len(unknown)} deprecation(s) of {dist} {src.version} are not in docs/coverage/ledger.json; "
        "triage them (docs/coverage.md): " + ", ".join(unknown[:20])
    )
    assert result["items"], f"the miner found nothing in {dist} {src.version}: it is broken"


def test_rule_entries_are_reported_by_that_rule():
    claimed = {iid: e for iid, e in LEDGER.items() if e["status"] == "rule"}
    assert claimed
    items = [{"id": iid, **e} for iid, e in claimed.items()]
    fired = ledger_tool.probe(items)
    wrong = []
    for iid, e in claimed.items():
        want = {e["rule"]} if isinstance(e["rule"], str) else set(e["rule"])
        if not want <= fired.get(iid, set()):
            wrong.append(f"{iid} claims {sorted(want)}, scan reports {sorted(fired.get(iid, set()))}")
    assert not wrong, "\n".join(wrong)


def test_docs_state_the_generated_figure():
    text = (ROOT / "docs" / "coverage.md").read_text(encoding="utf-8")
    figure = ledger_tool.summary_text(LEDGER)
    assert figure and figure in text, (
        f"docs/coverage.md must contain the output of `coverage_ledger.py summary`:\n{figure}"
    )
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert figure in readme, "README.md must state the same figure: run `coverage_ledger.py summary --write-doc`"


def test_update_probes_rules_keeps_hand_triage_and_files_new_items_as_todo(tmp_path):
    def item(api, kind="warn", msg=""):
        key = "removed" if kind == "removed" else "deprecated"
        return {
            "id": f"torch:{key}:{api}",
            "dist": "torch",
            "kind": kind,
            "kinds": [kind],
            "api": api,
            "versions": ["2.15.0"],
            "message": msg,
            "evidence": ["2.15.0:torch/x.py:1"],
            "category": "",
            "via": "",
        }

    mined = {
        "items": [
            item("torch.nn.functional.upsample"),
            item("torch.nn.Hardtanh(min_value=)"),
            item("torch.not_a_real_api_for_this_test"),
            item("torch.utils.hipify.hipify_python.is_caffe2_gpu_file"),
            item("torch.kept_by_hand"),
        ]
    }
    ledger = {
        "torch:deprecated:torch.kept_by_hand": {
            "status": "no-static-pattern",
            "reason": "set by a maintainer",
            "dist": "torch",
            "kind": "warn",
            "api": "torch.kept_by_hand",
            "first": "2.0.0",
            "last": "2.0.0",
        }
    }
    out = ledger_tool.update([mined], ledger)
    assert out["torch:deprecated:torch.nn.functional.upsample"]["status"] == "rule"
    assert out["torch:deprecated:torch.nn.functional.upsample"]["rule"] == "ADV708"
    assert out["torch:deprecated:torch.nn.Hardtanh(min_value=)"]["rule"] == "ADV738"
    new = out["torch:deprecated:torch.not_a_real_api_for_this_test"]
    assert new["status"] == "todo" and "2.14/2.15" in new["family"]
    assert out["torch:deprecated:torch.utils.hipify.hipify_python.is_caffe2_gpu_file"]["status"] == "not-user-facing"
    kept = out["torch:deprecated:torch.kept_by_hand"]
    assert kept["status"] == "no-static-pattern" and kept["reason"] == "set by a maintainer"
    assert (kept["first"], kept["last"]) == ("2.0.0", "2.15.0")
    path = tmp_path / "ledger.json"
    ledger_tool.dump(out, path)
    assert ledger_tool.load(path) == out
    assert len(path.read_text().splitlines()) == len(out) + 3  # one line per entry


def test_a_tensor_method_is_probed_as_called_on_a_tensor():
    """`x.rename(None)` is what users write; `torch.Tensor.rename(x)` (which the mined family reports) is not."""
    item = {"api": "torch.Tensor.rename", "kind": "removed", "message": "no longer declared"}
    snips = ledger_tool.snippets(item)
    assert snips and all("torch.Tensor.rename" not in s and ".rename(" in s for s in snips)
    hand = {**item, "probe_code": "import torch\nx = torch.ones(1)\nx.rename(None)\n"}
    assert ledger_tool.snippets(hand) == [hand["probe_code"]]


@pytest.mark.parametrize("api", ["torch.Tensor.rename", "torch.Tensor.refine_names", "torch.Tensor.resize_as"])
def test_tensor_method_entries_are_reported_on_realistic_calls(api):
    (entry,) = [e for e in LEDGER.values() if e["api"] == api]
    assert entry["status"] == "rule" and entry["rule"] in ("ADV150", "ADV151")
