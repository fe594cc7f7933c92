"""The docs: the rule table in docs/rules.md is generated from the rules; links point at files that exist,
inside the repository; every rule has its `explain` text."""

import os
import re

from typer.testing import CliRunner

from advisor.analysis.registry import all_rules
from advisor.cli import app
from advisor.report.output.markdown_rules import rules_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
RULES_DOC = os.path.join(ROOT, "docs", "rules.md")  # holds the generated rule table
# What a reader of the repository sees first: the README, the contributor guide and docs/.
DOCS = [README, os.path.join(ROOT, "CONTRIBUTING.md")] + sorted(
    os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md")
)
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_OUTSIDE = re.compile(r"(?<![\w.])(/work/|/home/|/root/|/tmp/\S*\.md\b)|shared/research/")


def test_rule_table_is_current():
    text = open(RULES_DOC, encoding="utf-8").read()
    m = re.search(r"<!-- rules-table:start -->\n(.*?)<!-- rules-table:end -->", text, re.S)
    assert m, "docs/rules.md lacks the rules-table markers"
    assert m.group(1) == rules_table(all_rules()), "run: python -m tests.update_readme"


def _links(path):
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold commands and examples, not links
    for number, line in enumerate(text.splitlines(), 1):
        for target in _LINK.findall(line):
            yield number, target


def _bad_links(docs):
    bad = []
    for doc in docs:
        if not os.path.exists(doc):
            continue
        name = os.path.relpath(doc, ROOT)
        for number, target in _links(doc):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a URL or an anchor on the same page
            path = os.path.normpath(os.path.join(os.path.dirname(doc), target.split("#")[0]))
            if os.path.commonpath([path, ROOT]) != ROOT:
                bad.append(f"{name}:{number}: {target} is outside the repository")
            elif not os.path.exists(path):
                bad.append(f"{name}:{number}: {target} does not exist")
        for number, line in enumerate(open(doc, encoding="utf-8").read().splitlines(), 1):
            if _OUTSIDE.search(line):
                bad.append(f"{name}:{number}: cites a path outside the repository: {line.strip()[:100]}")
    return bad


def test_docs_link_and_cite_only_files_in_the_repository():
    bad = _bad_links(DOCS)
    assert not bad, "a reader has only the repository:\n" + "\n".join(bad)


def test_the_link_check_catches_a_missing_file_and_an_outside_path():
    doc = os.path.join(ROOT, "docs", "rules.md")  # a real doc, read through a fake one that links from docs/
    fake = os.path.join(ROOT, "docs", "_link_check_example.md")
    with open(fake, "w", encoding="utf-8") as f:
        f.write("[a](missing.md) [b](../../etc/passwd) [c](https://example.org) [d](#x) [e](rules.md)\n")
        f.write("facts: /work/shared/research/torch-2.12-facts.md\n")
    try:
        bad = _bad_links([fake, doc])
    finally:
        os.remove(fake)
    assert bad == [
        "docs/_link_check_example.md:1: missing.md does not exist",
        "docs/_link_check_example.md:1: ../../etc/passwd is outside the repository",
        "docs/_link_check_example.md:2: cites a path outside the repository: facts: /work/shared/research/torch-2.12-facts.md",
    ]


def test_every_rule_has_explain_docs():
    # In process (Typer's runner): one `python -m advisor` per rule cost minutes.
    runner = CliRunner()
    for rule in all_rules():
        result = runner.invoke(app, ["explain", rule.code])
        assert result.exit_code == 0, (rule.code, result.output)
        assert rule.code in result.output and "Fix safety" in result.output
