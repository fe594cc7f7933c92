"""The docs: the rule table in docs/rules.md is generated from the rules; links point at files that exist,
inside the repository; every rule has its `explain` text."""

import os
import re

from typer.testing import CliRunner

from advisor.analysis.registry import all_rules
from advisor.cli import app
from advisor.core.docs_url import DEFAULT_DOCS_URL, REPOSITORY_URL, rule_docs_url
from advisor.core.settings import Settings
from advisor.report.output.markdown_rules import rule_page, rules_table

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
RULES_DOC = os.path.join(ROOT, "docs", "rules.md")  # holds the generated rule table
RULE_PAGES = os.path.join(ROOT, "docs", "rules")  # docs/rules/<CODE>.md, generated from each rule's docstring
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


def test_every_rule_has_its_page_and_no_page_is_stale():
    pages = {f"{rule.code}.md": rule_page(rule) for rule in all_rules()}
    assert sorted(os.listdir(RULE_PAGES)) == sorted(pages), "run: python -m tests.update_readme"
    for name, page in pages.items():
        with open(os.path.join(RULE_PAGES, name), encoding="utf-8") as f:
            assert f.read() == page, f"docs/rules/{name} is stale; run: python -m tests.update_readme"
    assert not _bad_links(os.path.join(RULE_PAGES, name) for name in pages)


def test_each_rules_docs_link_names_its_page_in_this_repository():
    """The editor's link, SARIF's helpUri and the report's rule links: by default the rule's page here."""
    base = REPOSITORY_URL + "/blob/main/"
    for rule in all_rules():
        url = rule_docs_url(rule.code, rule.name, Settings().docs_url)
        assert url.startswith(base), url
        assert os.path.isfile(os.path.join(ROOT, url[len(base) :])), url
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        assert f'Repository = "{REPOSITORY_URL}"' in f.read()  # one repository, named the same in both places
    assert Settings().docs_url == DEFAULT_DOCS_URL


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


def test_docs_url_in_the_config_sets_every_rule_link(tmp_path):
    import pytest

    from advisor.core.config import ConfigError
    from advisor.core.findings import ScanResult
    from advisor.report.output.sarif import as_dict

    settings = Settings.from_toml({"docs-url": "https://docs.example.org/{code}/{name}.html"})
    rule = next(iter(all_rules()))
    (descriptor,) = as_dict(ScanResult(), [rule], settings.docs_url)["runs"][0]["tool"]["driver"]["rules"]
    assert descriptor["helpUri"] == f"https://docs.example.org/{rule.code}/{rule.name}.html"
    for bad in ("docs/{code}.md", "https://docs.example.org/", "https://x.org/{code}{0}", "javascript:{code}"):
        with pytest.raises(ConfigError, match="docs-url"):
            Settings.from_toml({"docs-url": bad})
