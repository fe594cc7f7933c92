"""Where a rule's documentation is read: `docs-url` in `[tool.advisor]`, a URL template with `{code}`.

The default names the rule's page in the repository, `docs/rules/<CODE>.md`, which `python -m
tests.update_readme` writes from the rule's docstring (tests/test_docs.py fails when one is stale or
missing); GitHub renders it. A fork, a mirror or an internal docs site sets its own template:

    [tool.advisor]
    docs-url = "https://docs.example.org/advisor/rules/{code}.html"

The editor's link (LSP `codeDescription.href`), SARIF's `helpUri` and the report's rule links all come
from here.
"""

from __future__ import annotations

from typing import Any

REPOSITORY_URL = "https://github.com/torch-upgrade-advisor/torch-upgrade-advisor"  # = [project.urls] in pyproject.toml
DEFAULT_DOCS_URL = REPOSITORY_URL + "/blob/main/docs/rules/{code}.md"
RULES_INDEX_URL = REPOSITORY_URL + "/blob/main/docs/rules.md"  # the table of every rule


def parse_docs_url(value: Any) -> str:
    """A `docs-url` value: an http(s) URL template that names the rule with `{code}` (`{name}` may be used too)."""
    if not isinstance(value, str) or not value.startswith(("https://", "http://")):
        raise ValueError(f"expected an http(s) URL, got {value!r}")
    if "{code}" not in value:
        raise ValueError(f"expected a template with {{code}} in it (the rule's code), got {value!r}")
    try:
        value.format(code="ADV000", name="rule-name")
    except (KeyError, IndexError, ValueError) as e:
        raise ValueError(f"{value!r} is not a template of {{code}} and {{name}} ({e})") from None
    return value


def rule_docs_url(code: str, name: str = "", template: str | None = None) -> str:
    """The documentation URL of rule `code` (named `name`) under `template` (default: the repository's page)."""
    return (template or DEFAULT_DOCS_URL).format(code=code, name=name)
