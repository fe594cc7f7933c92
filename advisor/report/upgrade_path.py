"""The upgrade path: from the lowest supported torch to the target, one hop per release where something changes.

A hop ends at a release where some finding starts warning (`warns_from`) or
breaking (`breaks_in`), plus the target itself. For each hop the report lists
what breaks there, what starts warning there, which of those can be fixed
before the hop (the fix is safe on the lowest supported torch: the policy
already decided that, `Finding.fix == "safe"`), and which validation scripts to
run after it. A finding that already warns on the lowest supported torch is listed
on the first hop as such (never as "starts warning" at a later release). Findings
with no release window land on the last hop, the target.
Pure data in, pure data out: the templates render it.
"""

from __future__ import annotations

from typing import Any, Iterable

from advisor.core.findings import Applicability, Finding, Kind
from advisor.core.versions import parse_version


def _entry(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "where": f.location, "message": f.message, "fix": f.fix, "validation": f.validation}


def hops(findings: Iterable[Finding], lowest: str, target: str) -> list[dict[str, Any]]:
    """[{"from", "to", "breaks", "warns", "already", "review", "fix_before", "checks"}, ...] from `lowest` to `target`."""
    low, high = parse_version(lowest), parse_version(target)
    findings = [f for f in findings if f.kind != Kind.COMPAT.value]
    stops = {high}
    for f in findings:
        for release in (f.warns_from, f.breaks_in):
            if release and low < parse_version(release) <= high:
                stops.add(parse_version(release))

    def hop_of(f: Finding) -> tuple[int, int]:
        """The first hop where `f` matters: where it breaks, else where it starts warning, else the target."""
        for release in (f.breaks_in, f.warns_from):
            if release and parse_version(release) <= high:
                return max(parse_version(release), min(stops))  # already true at the lowest: the first hop
        return high

    out, start = [], low
    for stop in sorted(stops):
        here = [f for f in findings if hop_of(f) == stop]
        breaks = [f for f in here if f.breaks_in and parse_version(f.breaks_in) <= stop]
        warned = [f for f in here if f not in breaks and f.warns_from]
        already = [f for f in warned if parse_version(f.warns_from or "") <= low]  # warns on the lowest torch already
        warns = [f for f in warned if f not in already]
        review = [f for f in here if f not in breaks and not f.warns_from]  # no window: true at the target
        out.append(
            {
                "from": f"{start[0]}.{start[1]}",
                "to": f"{stop[0]}.{stop[1]}",
                "breaks": [_entry(f) for f in breaks],
                "warns": [_entry(f) for f in warns],
                "already": [_entry(f) for f in already],
                "review": [_entry(f) for f in review],
                "fix_before": [_entry(f) for f in here if f.fix == Applicability.SAFE.value],
                "checks": sorted({f.validation for f in here if f.validation}),
            }
        )
        start = stop
    return [h for h in out if h["breaks"] or h["warns"] or h["already"] or h["review"] or h["to"] == target]
