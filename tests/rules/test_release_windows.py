"""Every finding says when its API warns and breaks, and the upgrade path puts it at that release.

Run over every rule's INVALID examples, as a scan would report them: a deprecated API carries
`warns_from` (or, on its way out, `breaks_in`), a removal carries `breaks_in`. The few rules below
report something that is not an API's deprecation or removal; each says why.
"""

from __future__ import annotations

import pytest

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.versions import NEWEST, OLDEST
from advisor.report.upgrade_path import hops
from advisor.rule.base import Example
from advisor.core.settings import settings_at

pytestmark = pytest.mark.torch_free

# Rules whose "deprecated" / "breaking" findings have no release of an API's warning or removal.
NO_RELEASE = {
    "ADV201": "the MAGMA warning is printed by C++ once at selection; its first release is not settled statically",
    "ADV206": "torch.svd / torch.norm are deprecated only in their documentation (their kind is issue #27's)",
    "ADV303": "a host sync in a captured region: a performance pattern, not a deprecation",
    "ADV302": "passing an accelerator Graph where a CUDA graph is expected never worked: a bug, not a removal",
    "ADV401": "e8m0 export needs 2.12 on both ends: a compatibility limit, not a deprecation",
    "ADV403": "float4 export does not save in any release: a limit, not a removal",
    "ADV717": "the implicit-dim warning predates 2.0 and its kind is another issue's (issue #27)",
    "ADV718": "torch.range warns from C++; the first release is not settled statically",
    "ADV743": "`require_grad` is a typo that never worked: a bug, not a removal",
    "ADV163": "names missing from some releases in between (2.4-2.14), present again in 2.15: the message names them",
    "ADV770": "2.15 builds ProcessGroupNCCL2 by default: a behaviour change without a warning",
    "ADV802": "a ROCm allocator-setting combination: a runtime behaviour, not an API deprecation",
    "ADV803": "a ROCm allocator-setting shadowing: a runtime behaviour, not an API deprecation",
    "ADV807": "a ROCm build setting: not an API deprecation",
    "ADV914": "`ImageReadMode` is deprecated only in torchvision's docs (its kind is issue #27's)",
    "ADV921": "v2 `ConvertImageDtype` is deprecated only in torchvision's docstrings (its kind is issue #27's)",
    "ADV922": "video datasets need TorchCodec: a dependency change, not an API deprecation",
}


def _example_findings():
    for rule in all_rules():
        for example in rule.invalid:
            example = example if isinstance(example, Example) else Example(example)
            result, _ = analyse(example.code.encode(), "example.py", [rule], settings_at(example.target or NEWEST))
            yield rule, example, [f for f in result.findings if f.rule == rule.code]


def test_every_deprecation_says_when_it_warns_and_every_removal_when_it_breaks():
    missing, stale = [], set(NO_RELEASE)
    for rule, _example, findings in _example_findings():
        for f in findings:
            lacks = (f.kind == "deprecated" and not (f.warns_from or f.breaks_in)) or (
                f.kind == "breaking" and not f.breaks_in
            )
            if lacks and rule.code not in NO_RELEASE:
                missing.append(f"{rule.code} {f.kind}: {f.message[:90]}")
            if lacks:
                stale.discard(rule.code)
    assert not missing, "\n".join(missing)
    assert not stale, f"these rules now carry their releases: drop them from NO_RELEASE: {sorted(stale)}"


def test_no_finding_with_a_release_lands_in_the_no_window_group():
    findings = [f for rule, _, found in _example_findings() if rule.code not in NO_RELEASE for f in found]
    path = hops(findings, OLDEST, NEWEST)
    placed = {e["where"] + e["rule"] for h in path for key in ("breaks", "warns", "already") for e in h[key]}
    windowed = [f for f in findings if f.kind != "compat" and (f.warns_from or f.breaks_in)]
    assert len(windowed) > 100 and all(f.location + f.rule in placed for f in windowed)


def _finding(rule, line, *, warns=None, breaks=None, kind="deprecated"):
    from advisor.core.findings import Finding

    return Finding(
        rule,
        "n",
        "warning",
        "m.py",
        line,
        1,
        line,
        2,
        f"{rule} msg",
        None,
        None,
        kind=kind,
        warns_from=warns,
        breaks_in=breaks,
    )


def test_what_already_warns_on_the_lowest_torch_is_not_said_to_start_later():
    path = hops([_finding("OLD", 1, warns="1.9"), _finding("NEW", 2, warns="2.12")], "2.4", "2.15")
    first = path[0]
    assert (first["from"], first["to"]) == ("2.4", "2.12")
    assert [e["rule"] for e in first["already"]] == ["OLD"] and [e["rule"] for e in first["warns"]] == ["NEW"]
