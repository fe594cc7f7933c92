"""Every rule's embedded VALID/INVALID examples, run automatically (Fixit style)."""

from __future__ import annotations

import ast

import pytest

from advisor.analysis.analyse import analyse
from advisor.run.device import apply_scope, find_markers
from advisor.run.engine import ScanResult
from advisor.fix.fixer import fix_bytes
from advisor.analysis.prefilter import Prefilter
from advisor.analysis.registry import all_rules
from advisor.core.versions import NEWEST
from advisor.core.settings import settings_at

RULES = all_rules()


def _cases(kind):
    return list(_iter_cases(kind))


def _iter_cases(kind):
    for rule in RULES:
        items = rule.valid if kind == "valid" else rule.examples()
        for i, example in enumerate(items):
            yield pytest.param(rule, example, id=f"{rule.code}-{kind}-{i}")


def _findings(rule, code, target=NEWEST):
    """The rule's findings on `code` as a one-file project (device scoping included, as in a scan)."""
    result, _ = analyse(code.encode(), "example.py", [rule], settings_at(target))
    assert not result.errors, result.errors
    result.markers = find_markers(code.encode())
    apply_scope(ScanResult(results=[result]), override=None)
    return [f for f in result.findings if f.rule == rule.code]


@pytest.mark.parametrize("rule,code", _cases("valid"))
def test_valid_examples_are_clean(rule, code):
    assert _findings(rule, code) == []


@pytest.mark.parametrize("rule,example", _cases("invalid"))
def test_invalid_examples_are_found(rule, example):
    target = example.target or NEWEST
    # The prefilter must let the file through, or the rule would never run on it.
    assert rule in Prefilter([rule]).candidates(example.code.encode()), "triggers miss this example"
    found = _findings(rule, example.code, target)
    assert len(found) == example.count, [f"{f.line}:{f.column} {f.message}" for f in found]
    for f in found:
        assert f.line >= 1 and f.column >= 1
        assert f.validation == rule.validation
    # Stated expectations hold for the first finding (in position order), as Fixit's `Invalid` does.
    first = found[0] if found else None
    if example.message is not None:
        assert example.message in first.message, first.message
    if example.line is not None:
        assert first.line == example.line, f"{first.line}:{first.column} {first.message}"
    if example.column is not None:
        assert first.column == example.column, f"{first.line}:{first.column} {first.message}"


@pytest.mark.parametrize("rule,example", [p for p in _cases("invalid") if p.values[1].fixed is not None])
def test_fixes_give_the_declared_output(rule, example):
    target = example.target or NEWEST
    first = fix_bytes(example.code.encode(), "example.py", [rule], settings_at(target, unsafe_fixes=True))
    assert first.error is None
    assert first.fixed.decode() == example.fixed
    ast.parse(first.fixed)
    second = fix_bytes(first.fixed, "example.py", [rule], settings_at(target, unsafe_fixes=True))
    assert second.fixed == first.fixed, "fix is not idempotent"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_is_documented(rule):
    doc = rule.doc()
    assert rule.name and rule.message and rule.triggers
    assert rule.valid and rule.invalid, "every rule needs VALID and INVALID examples"
    assert "Fix safety:" in doc, "the docstring needs a 'Fix safety' paragraph"
    assert "Why" in doc
    if rule.validation:
        assert rule.validation in doc
    # A rule that offers a fix must show one fixed example.
    if rule.fix.value != "none":
        assert any(e.fixed is not None for e in rule.examples()), "a fixable rule needs an example with `fixed=`"


def test_unknown_validation_check_is_refused_at_registration():
    from advisor.rule import CHECKS, Rule

    assert all(rule.validation in CHECKS for rule in RULES if rule.validation)
    with pytest.raises(TypeError, match="unknown validation check 'no_such_check'"):

        class Misspelt(Rule):
            validation = "no_such_check"
