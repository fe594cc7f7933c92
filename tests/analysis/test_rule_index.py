"""The rule index (rules/_index.py): what start-up reads of every rule instead of importing it (issue #35, item 9).

It is generated from the rules (`python -m advisor.analysis.rule_index`), never edited by hand: these tests fail
when it says otherwise than the rules, and show that a run imports a rule's module only when a file needs it.
"""

import importlib
import os
import subprocess
import sys

import pytest

from advisor.analysis import registry
from advisor.analysis.rule_index import COLUMNS, RuleEntry, index_path, mismatch, render, rule_modules

pytestmark = pytest.mark.torch_free


def test_the_committed_index_is_what_the_rules_generate():
    with open(index_path(), encoding="utf-8") as f:
        committed = f.read()
    assert committed == render(registry.all_rules()), "rules/_index.py is stale: python -m advisor.analysis.rule_index"


def test_every_entry_answers_as_its_class():
    rules = registry.all_rules()
    assert [e.code for e in registry.entries()] == [r.code for r in rules]
    for entry, rule in zip(registry.entries(), rules):
        assert entry.load() is rule and mismatch(rule, entry) is None
        # each attribute reads its own column; the text gate is a method, as on the rule's class
        read = [getattr(entry, name)() if name == "text_gate" else getattr(entry, name) for name in COLUMNS]
        assert read == list(entry)
        assert entry.text_gate() == rule.text_gate()
        assert getattr(importlib.import_module(entry.module), entry.cls) is rule  # where a run alone finds it
        assert entry.summary() == rule.summary()  # what the index does not hold, the class answers


def test_the_index_lists_every_rule_module():
    package = registry.rules_package()
    walked = {r.__module__ for r in registry.all_rules()}
    assert rule_modules(package.__path__[0], package.__name__) == walked


def test_selection_reads_the_index_and_names_every_rule():
    every = registry.select_entries(["ALL"])
    assert [e.code for e in every] == [r.code for r in registry.all_rules()]
    assert all(isinstance(e, RuleEntry) for e in every)
    default = {e.code for e in registry.select_entries()}
    assert default == {r.code for r in registry.all_rules() if r.default_enabled}
    with pytest.raises(registry.RuleSelectionError):
        registry.check_codes(["ADV0999"])


def test_a_rule_module_the_index_does_not_name_makes_the_run_read_every_rule(monkeypatch):
    package = registry.rules_package()
    listed = rule_modules(package.__path__[0], package.__name__)
    monkeypatch.setattr(registry, "rule_modules", lambda folder, name: listed | {f"{name}.capture.new_rule"})
    registry.entries.cache_clear()
    try:
        fallback = registry.entries()
        assert [e.code for e in fallback] == [r.code for r in registry.all_rules()]
        assert [e.triggers for e in fallback] == [r.triggers for r in registry.all_rules()]
    finally:
        registry.entries.cache_clear()


def test_a_row_that_says_otherwise_than_its_class_is_stale():
    rule = registry.rule_by_code("ADV101")
    entry = registry.entry_by_code("ADV101")
    wrong = RuleEntry((*entry[:9], ("elsewhere",), *entry[10:]))
    assert wrong.code == "ADV101" and wrong.triggers == ("elsewhere",)
    assert "ADV101 triggers" in mismatch(rule, wrong)


# The CLI run as `python -m advisor`, then the modules it imported (`-X importtime` does not list the rule modules:
# the editable install maps `advisor.rules` onto rules/).
_RUN = """import runpy, sys
sys.argv = ["advisor", "scan", sys.argv[1], "--no-cache", "--exit-zero"]
try:
    runpy.run_module("advisor", run_name="__main__")
finally:
    print("\\n".join(sorted(sys.modules)), file=sys.stderr)
"""


def _imported(tmp_path, text: str) -> set[str]:
    target = tmp_path / "clean.py"
    target.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return set(proc.stderr.splitlines())


def _rule_modules(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.startswith("advisor.rules.") and not m.rpartition(".")[2].startswith("_"))


def test_a_file_no_trigger_matches_imports_no_rule_module(tmp_path):
    modules = _imported(tmp_path, "import torch\n\nx = torch.ones(3)\n")
    assert not [m for m in _rule_modules(modules) if m.count(".") >= 3]  # family packages only
    assert "advisor.rule" not in modules and not [m for m in modules if m.split(".")[0] == "libcst"]


def test_a_file_a_rule_matches_imports_that_rule_only(tmp_path):
    modules = _imported(tmp_path, "import torch\nwith torch.cuda.amp.autocast():\n    pass\n")
    loaded = [m for m in _rule_modules(modules) if m.count(".") >= 3]
    assert "advisor.rules.catalogue.amp_autocast" in loaded and len(loaded) < len(registry.entries()) // 4
