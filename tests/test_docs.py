"""The README's rule table is generated from the rules; fail when it is stale."""

import os
import re

from advisor.report.output.markdown_rules import rules_table
from advisor.analysis.registry import all_rules

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def test_readme_rule_table_is_current():
    text = open(README, encoding="utf-8").read()
    m = re.search(r"<!-- rules-table:start -->\n(.*?)<!-- rules-table:end -->", text, re.S)
    assert m, "README lacks the rules-table markers"
    assert m.group(1) == rules_table(all_rules()), "run: python -m tests.update_readme"


def test_every_rule_has_explain_docs(cli):
    for rule in all_rules():
        proc = cli("explain", rule.code)
        assert proc.returncode == 0
        assert rule.code in proc.stdout and "Fix safety" in proc.stdout
