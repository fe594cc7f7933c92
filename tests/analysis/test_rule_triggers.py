"""Every name a reference rule looks for gets past the prefilter on its own.

The prefilter matches whole words, so a trigger "lu" never lets a file through whose only legacy
call is `torch.lu_solve` (ADV206 missed it that way). Checked through the real `Prefilter`.
"""

from __future__ import annotations

import pytest

from advisor.analysis.prefilter import Prefilter
from advisor.analysis.registry import all_rules
from advisor.rule import ReferenceRule
from advisor.core.settings import settings_at

pytestmark = pytest.mark.torch_free


def test_every_name_passes_the_prefilter_alone():
    missed = []
    for rule in all_rules():
        if not (isinstance(rule, type) and issubclass(rule, ReferenceRule)) or not rule.names:
            continue
        prefilter = Prefilter([rule])
        for qualname in rule.names:
            top = qualname.split(".")[0]
            source = f"import {top}\nvalue = {qualname}(x)\n".encode()
            if rule not in prefilter.candidates(source):
                missed.append(f"{rule.code}: {qualname} (triggers {rule.triggers})")
    assert not missed, "\n".join(missed)


def test_adv206_finds_each_legacy_call_alone():
    from advisor.analysis.analyse import analyse

    (rule,) = [r for r in all_rules() if r.code == "ADV206"]
    for call in ("torch.lu_solve(b, lu, piv)", "torch.triangular_solve(b, a)", "torch.return_types.qr_out"):
        result, _ = analyse(f"import torch\nx = {call}\n".encode(), "m.py", [rule], settings_at("2.15"))
        assert [f.rule for f in result.findings] == ["ADV206"], call
