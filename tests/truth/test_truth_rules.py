"""The truth checks (tests/truth/checks.py) and the 2.14 / 2.15 rules back each other.

- every check's `rule` names a rule that exists;
- every rule about 2.14 / 2.15 (a window naming 2.14 or 2.15 on the class, a table
  entry or a declared per-report window, or one of the existing rules whose text §5 of
  the spec corrected) has at least one check against the real wheels;
- a check with no rule belongs to an item in docs/coverage-2.14-2.15.md (no static pattern).

Torch-free: it reads the check table, not the wheels.
"""

from __future__ import annotations


from advisor.analysis.registry import all_rules
from tests.truth.checks import CHECKS
from tests.conftest import REPO as ROOT

RULES = {r.code: r for r in all_rules()}
NEW = ("2.14", "2.15")
# Existing rules whose text or window changed for 2.14 / 2.15 (spec §5).
CORRECTED = {"ADV201", "ADV206", "ADV406", "ADV601", "ADV602", "ADV732", "ADV739", "ADV740"}


def _windows(rule) -> set[str]:
    found = {getattr(rule, f, None) for f in ("since", "deprecated_in", "removed_in", "undeprecated_in")}
    row = getattr(rule, "row", None)
    for entry in getattr(row, "entries", ()):
        found |= {entry.since, entry.deprecated_in, entry.removed_in, entry.undeprecated_in}
    return {v for v in found if v}


def rules_2_15() -> set[str]:
    return {code for code, r in RULES.items() if _windows(r) & set(NEW)} | CORRECTED


def test_every_check_names_an_existing_rule():
    unknown = {c.id: c.rule for c in CHECKS if c.rule is not None and c.rule not in RULES}
    assert not unknown, unknown


def test_every_2_14_2_15_rule_has_a_truth_check():
    backed = {c.rule for c in CHECKS}
    missing = sorted(rules_2_15() - backed)
    assert not missing, f"rules about 2.14/2.15 with no truth check: {missing}"
    assert len(rules_2_15()) >= 30  # the 24 new rules and the corrected ones


def test_checks_without_a_rule_are_in_the_coverage_table():
    table = (ROOT / "docs" / "coverage-2.14-2.15.md").read_text(encoding="utf-8")
    loose = [c.id for c in CHECKS if c.rule is None and c.id not in table and f"| {c.item} |" not in table]
    assert not loose, f"checks with no rule and no coverage-table line: {loose}"
