"""SARIF 2.1.0, the format GitHub code scanning reads: rules with help, results with fixes."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, TextIO
from urllib.parse import quote

from advisor import __version__
from advisor.core.findings import ScanResult
from advisor.analysis.registry import rule_by_code
from advisor.core.docs_url import RULES_INDEX_URL, rule_docs_url

if TYPE_CHECKING:
    from advisor.rule import Rule

_LEVELS = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> str:
    """`path` as a relative URI reference: `%`, `#`, `?`, `:`, spaces and non-ASCII percent-encoded
    (a name's undecodable bytes too, as the bytes they were), so a file name cannot add a query,
    a fragment or a scheme."""
    name = path.replace(os.sep, "/")
    if name.startswith("//"):  # would read as an authority (a host)
        name = "/" + name.lstrip("/")
    return quote(os.fsencode(name), safe="/")


def _fix(f) -> dict[str, Any]:
    """A finding's fix as a SARIF fix: one replacement of its own range (not the finding's)."""
    start_line, start_column, end_line, end_column = f.data["fix_range"]
    region = {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}
    replacement = {"deletedRegion": region, "insertedContent": {"text": f.replacement}}
    return {
        "description": {"text": f"{f.fix} fix for {f.rule}"},
        "artifactChanges": [{"artifactLocation": {"uri": _uri(f.path)}, "replacements": [replacement]}],
    }


def _related(i: int, site: dict[str, Any], count: int) -> dict[str, Any]:
    line, column = site.get("file_line", site["line"]), site.get("file_column", site["column"])
    text = f"site {i + 1} of {count}" + (f" (cell {site['cell']}, line {site['line']})" if site.get("cell") else "")
    return {
        "id": i,
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(site["path"])},
            "region": {"startLine": line, "startColumn": column},
        },
        "message": {"text": text},
    }


def as_dict(result: ScanResult, rules: list[type[Rule]], docs_url: str | None = None) -> dict[str, Any]:
    """`docs_url`: the project's `docs-url` template (advisor.core.docs_url), each rule's `helpUri`."""
    used = sorted({f.rule for f in result.findings} | {r.code for r in rules})
    descriptors = []
    for code in used:
        rule = rule_by_code(code)
        descriptors.append(
            {
                "id": code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary()},
                "fullDescription": {"text": rule.doc()},
                "help": {"text": rule.doc(), "markdown": rule.doc()},
                "helpUri": rule_docs_url(code, rule.name, docs_url),
                "defaultConfiguration": {"level": _LEVELS[rule.severity.value]},
                "properties": {"since": rule.since, "fix": rule.fix.value, "validation": rule.validation},
            }
        )
    index = {d["id"]: i for i, d in enumerate(descriptors)}
    results = []
    for f in result.findings:
        line, column, end_line, end_column = f.file_region  # a notebook's: in the .ipynb JSON text
        region = {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
        location: dict[str, Any] = {"physicalLocation": {"artifactLocation": {"uri": _uri(f.path)}, "region": region}}
        entry: dict[str, Any] = {
            "ruleId": f.rule,
            "ruleIndex": index[f.rule],
            "level": _LEVELS[f.severity],
            "message": {
                "text": f"cell {f.cell}, line {f.line}, column {f.column}: {f.message}" if f.cell else f.message
            },
            "locations": [location],
            "properties": {
                "validation": f.validation,
                "fixApplicability": f.fix,
                "kind": f.kind,
                "warnsFrom": f.warns_from,
                "breaksIn": f.breaks_in,
            },
        }
        if f.cell:  # SARIF has no cells: the cell is a logical location, and its line a property
            location["logicalLocations"] = [{"name": f"cell {f.cell}", "kind": "module"}]
            entry["properties"].update(
                cell=f.cell, cellLine=f.line, cellColumn=f.column, cellEndLine=f.end_line, cellEndColumn=f.end_column
            )
        if f.sites:  # a folded finding: every site it stands for, so that each can be located
            entry["relatedLocations"] = [_related(i, site, len(f.sites)) for i, site in enumerate(f.sites)]
        if f.fix and f.replacement is not None and f.data.get("fix_range") and not f.cell:  # SARIF has no cells
            entry["fixes"] = [_fix(f)]
        results.append(entry)
    notifications = [
        {
            "level": "error",
            "message": {"text": e.message},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(e.path)}}}],
        }
        for e in result.errors
    ]
    return {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "torch-upgrade-advisor",
                        "version": __version__,
                        "informationUri": RULES_INDEX_URL,
                        "rules": descriptors,
                    }
                },
                "results": results,
                "invocations": [{"executionSuccessful": True, "toolExecutionNotifications": notifications}],
            }
        ],
    }


def render(result: ScanResult, stream: TextIO, rules: list[type], docs_url: str | None = None) -> None:
    json.dump(as_dict(result, rules, docs_url), stream, indent=2)
    stream.write("\n")
