"""The mined catalogue's text (tools/miner/catalogue.py): the wheel's whole message, the replacement it names,
and only user-facing names (no constants, no empty modules)."""

from __future__ import annotations

import json

import pytest

from tests.tool_modules import load_tool
from tests.conftest import REPO as ROOT

catalogue = load_tool("miner.catalogue")
index = load_tool("miner.index")
sites = load_tool("miner.sites")


@pytest.mark.parametrize(
    "text,named",
    [
        (
            "`LRScheduler.print_lr()` is being deprecated. To fetch the learning rate, please use `get_last_lr()` instead.",
            "get_last_lr()",
        ),
        (
            "nn.quantized.functional.upsample is deprecated. Use nn.quantized.functional.interpolate instead.",
            "nn.quantized.functional.interpolate",
        ),
        ("add_var_to_val is deprecated, use add_backed_var_to_val instead", "add_backed_var_to_val"),
        (
            "torch.jit.QuantizedGRU is no longer supported. Please use the torch.ao.nn.quantized.dynamic.GRU instead.",
            "torch.ao.nn.quantized.dynamic.GRU",
        ),
        ("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", "cumulative_sizes"),
        ("`is_namedtuple` is deprecated, please use the python checks instead", None),
        ("Please set training mode before exporting the model", None),
    ],
)
def test_the_replacement_is_read_from_the_text(text, named):
    assert catalogue.replacement(text) == named


def test_a_message_is_kept_whole():
    long = "`x` is deprecated. " + "Some words of explanation. " * 10 + "Use `torch.y` instead."
    text, _ = catalogue._quote([{"message": long, "releases": {1}, "kind": "warn", "category": "UserWarning"}])
    assert text == " ".join(long.split()) and "…" not in text
    assert catalogue.replacement(text) == "torch.y"


def test_the_miner_records_whole_messages():
    code = "import warnings\ndef f():\n    warnings.warn('" + "word " * 60 + "use g instead', FutureWarning)\n"
    found = sites.analyse("torch/m.py", code.encode())
    assert any(s["message"].endswith("use g instead") for s in found["sites"])


def test_constants_and_empty_modules_are_not_user_facing():
    ix = index.Index(
        {"releases": ["2.0.0"], "apis": {"torch.a": "0", "torch.b": "0", "torch.b.f": "0"}, "aliases": {}, "events": {}}
    )
    assert not catalogue.user_facing(ix, "torch.x.STATE", removed=True, module=False)
    assert not catalogue.user_facing(ix, "torch.a", removed=True, module=True)  # empty: nothing inside it
    assert catalogue.user_facing(ix, "torch.b", removed=True, module=True)
    assert catalogue.user_facing(ix, "torch.x.SHARDING_PRIORITIES", removed=False, module=False)  # deprecated, kept


def test_the_committed_catalogue_has_no_constants_or_cut_quotes():
    data = json.loads((ROOT / "rules" / "mined" / "catalogue.json").read_text(encoding="utf-8"))
    ledger = json.loads((ROOT / "docs" / "coverage" / "ledger.json").read_text(encoding="utf-8"))["items"]
    removals = {e["api"] for e in ledger.values() if e["dist"] == "torch" and e["kind"] == "removed"}
    removed = [a for a in data["removed"] if a in removals]
    assert removed and not [a for a in removed if catalogue._CONSTANT.fullmatch(a.rpartition(".")[2])]
    assert not [a for a in data["removed"] if a in ("torch.cuda.error", "functorch.dim.use_c")]
    entries = [e for section in ("removed", "deprecated") for e in data[section].values()]
    entries += [e for kws in data["keywords"].values() for e in kws.values()]
    assert not [e["message"] for e in entries if e["message"].endswith("…")]
    # 36 of 145 since hand rules (ADV155-ADV169) took over entries that named one; 12 of 177 when the quote
    # was cut at 160 characters
    assert sum(1 for e in entries if e["replacement"]) >= 30
