"""Regenerate the rule table of docs/rules.md and each rule's page, docs/rules/<CODE>.md:
`python -m tests.update_readme`."""

import os
import re

from advisor.report.output.markdown_rules import rule_page, rules_table
from advisor.analysis.registry import all_rules
from tests.test_docs import RULE_PAGES, RULES_DOC


def main() -> None:
    text = open(RULES_DOC, encoding="utf-8").read()
    table = rules_table(all_rules())
    text = re.sub(
        r"(<!-- rules-table:start -->\n).*?(<!-- rules-table:end -->)",
        lambda m: m.group(1) + table + m.group(2),
        text,
        flags=re.S,
    )
    with open(RULES_DOC, "w", encoding="utf-8") as f:
        f.write(text)
    os.makedirs(RULE_PAGES, exist_ok=True)
    pages = {f"{rule.code}.md": rule_page(rule) for rule in all_rules()}
    for name in os.listdir(RULE_PAGES):
        if name not in pages:  # a rule that is gone
            os.remove(os.path.join(RULE_PAGES, name))
    for name, page in pages.items():
        with open(os.path.join(RULE_PAGES, name), "w", encoding="utf-8") as f:
            f.write(page)


if __name__ == "__main__":
    main()
