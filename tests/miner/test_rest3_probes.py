"""#40's last items: the realistic probe of class members, and the rules whose report depends on the lowest torch."""

from __future__ import annotations

import pytest
from tests.tool_modules import load_tool

from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from tests.rules.test_rule_examples import analyse

ledger_tool = load_tool("miner.ledger")
RULES = {r.code: r for r in all_rules()}


def test_a_member_of_another_class_is_probed_on_an_instance_only():
    item = {"api": "torch.utils.data.ConcatDataset.cummulative_sizes", "kind": "warn", "message": "renamed"}
    snips = ledger_tool.snippets(item)
    assert snips and all("torch.utils.data.ConcatDataset.cummulative_sizes" not in s for s in snips)
    assert any("obj.cummulative_sizes" in s for s in snips)
    # a nested class is still reached through its owner
    nested = ledger_tool.snippets({"api": "torch.fx.Graph.Node", "kind": "removed", "message": "gone"})
    assert any("torch.fx.Graph.Node(" in s for s in nested)


def _found(code: str, rule: str, lowest: str | None, target: str = "2.15") -> list:
    result, _ = analyse(code.encode(), "example.py", [RULES[rule]], settings_at(target, lowest))
    assert not result.errors, result.errors
    return [f for f in result.findings if f.rule == rule]


@pytest.mark.parametrize(
    "lowest,reported", [(None, True), ("2.0", True), ("2.3", True), ("2.14", True), ("2.15", False)]
)
def test_fsspec_import_gap_follows_the_lowest_supported_torch(lowest, reported):
    code = "from torch.distributed.checkpoint import FsspecReader\n"
    assert bool(_found(code, "ADV163", lowest)) is reported


def test_fsspec_import_gap_is_silent_for_a_target_inside_no_gap():
    # torch 2.3 exports FsspecReader; a project on exactly 2.3 never meets the gap
    assert not _found("from torch.distributed.checkpoint import FsspecReader\n", "ADV163", "2.3", target="2.3")
