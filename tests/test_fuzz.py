"""Property-based tests: generated programs never crash a scan; fixes always parse and are idempotent.

CI runs a fixed, derandomized number of examples (profile "ci"); `HYPOTHESIS_PROFILE=long pytest tests/test_fuzz.py`
runs many more locally.
"""

from __future__ import annotations

import ast
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.analysis.analyse import analyse
from advisor.fix.fixer import fix_bytes
from advisor.analysis.registry import select_rules
from advisor.core.settings import settings_at

settings.register_profile(
    "ci", max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.register_profile("long", max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

RULES = select_rules()
EXAMPLES = [e.code for r in RULES for e in r.examples()]


def _findings(code: str):
    result, _ = analyse(code.encode(), "fuzz.py", RULES, settings_at("2.13"))
    return result


@pytest.mark.parametrize("seed_count", [1])
def test_generated_programs_never_crash(seed_count):
    hypothesmith = pytest.importorskip("hypothesmith")

    @settings(max_examples=settings().max_examples // 2 or 1)
    @given(hypothesmith.from_node())
    def check(code):
        result = _findings(code)  # must not raise; errors are data
        for e in result.errors:
            assert e.message
        out = fix_bytes(code.encode(), "fuzz.py", RULES, settings_at("2.13", unsafe_fixes=True))
        if out.changed:
            ast.parse(out.fixed)

    check()


# Mutations of our own INVALID examples: comments, parentheses, line continuations, aliases.
def _mutate(code: str, how: str) -> str:
    lines = code.splitlines()
    if how == "comments":
        return (
            "\n".join(
                f"{ln}  # note" if ln.strip() and not ln.rstrip().endswith((":", "\\")) and '"""' not in ln else ln
                for ln in lines
            )
            + "\n"
        )
    if how == "blank-lines":
        return (
            "\n\n".join(lines) + "\n"
            if all('"""' not in ln and not ln.startswith((" ", "\t")) for ln in lines)
            else code
        )
    if how == "header":
        return "# -*- coding: utf-8 -*-\n'''module docstring'''\nimport os\n" + code
    if how == "wrapped":  # the whole thing inside an `if True:` block
        return "if True:\n" + "".join(f"    {ln}\n" if ln.strip() else "\n" for ln in lines)
    return code


@given(st.sampled_from(EXAMPLES), st.sampled_from(["comments", "blank-lines", "header", "wrapped"]))
def test_findings_are_stable_under_mutation(code, how):
    mutated = _mutate(code, how)
    try:
        ast.parse(mutated)
    except SyntaxError:
        return  # the mutation does not apply to this example
    before = sorted(f.rule for f in _findings(code).findings)
    after = sorted(f.rule for f in _findings(mutated).findings)
    assert after == before, mutated


@given(st.sampled_from(EXAMPLES), st.sampled_from(["comments", "header", "wrapped"]))
def test_fixes_parse_and_are_idempotent(code, how):
    mutated = _mutate(code, how)
    try:
        ast.parse(mutated)
    except SyntaxError:
        return
    first = fix_bytes(mutated.encode(), "fuzz.py", RULES, settings_at("2.13", unsafe_fixes=True))
    assert first.error is None, first.error
    ast.parse(first.fixed)
    second = fix_bytes(first.fixed, "fuzz.py", RULES, settings_at("2.13", unsafe_fixes=True))
    assert second.fixed == first.fixed
