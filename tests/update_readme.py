"""Regenerate the rule table of docs/rules.md: `python -m tests.update_readme`."""

import re

from advisor.report.output.markdown_rules import rules_table
from advisor.analysis.registry import all_rules
from tests.test_docs import RULES_DOC


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


if __name__ == "__main__":
    main()
