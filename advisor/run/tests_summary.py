"""Deprecations said once: a subsystem that tests use on purpose becomes one project-level finding.

A project that supports TorchScript tests it: `test_jit_*`, "assert we can script X",
hundreds of `torch.jit.script` calls. Each is the same deprecation with no drop-in
replacement, so per-line failures are noise; what the maintainer must hear once is
when the warning becomes visible and what to change. A rule opts in with
`said_once_in_tests` (its summary template). This step, run on the shaped result:

- folds the rule's sites in tests (test files: `test_*.py`, `*_test.py`, `conftest.py`, `testing.py`,
  files under `tests/`, `test/`, `testing/` below the project root; elsewhere, `test*`
  functions and `Test*` classes) into one finding at the first site, with the count and
  the files in its message and in `data["summary"]`, and every site (path, line, column; a
  notebook's cell too) in `data["summary"]["sites"]`: one line in text output, every site in
  JSON (`sites`) and SARIF (`relatedLocations`), so a consumer can locate each;
- ranks the sites that run at import time in library code first: severity error (the kind
  stays what the policy decided), and the message says that every user of the library sees
  the warning. Sites inside functions keep their severity.

Rules without `said_once_in_tests` are untouched: a test calling a deprecated API that
has a drop-in replacement keeps its per-site finding (and its fix).
"""

from __future__ import annotations

import os
from dataclasses import replace

from advisor.analysis.registry import entries
from advisor.core.findings import Finding, ScanResult, Severity

_TEST_DIRS = {"tests", "test", "testing", "unittests", "unit_tests"}
IMPORT_NOTE = " (runs when the module is imported: every user of the library sees this warning)"
_FILES_SHOWN = 5


def is_test_file(rel: str) -> bool:
    """`rel` (relative to the project root) is a test file by its name or directory."""
    parts = rel.replace("\\", "/").split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith(("_test.py", "_tests.py"))
        or name in ("conftest.py", "testing.py")
        or any(p in _TEST_DIRS for p in parts[:-1])
    )


def _rel(path: str, root: str) -> str:
    absolute, top = os.path.abspath(path), os.path.abspath(root)
    under = absolute.startswith(top) and absolute[len(top) : len(top) + 1] == os.sep
    # Under the root: what relpath gives, without its own two abspaths.
    rel = absolute[len(top) + 1 :] if under else os.path.relpath(absolute, top)
    return path if rel.startswith("..") else rel


def _site(f: Finding) -> dict:
    """Where one folded site is: as a finding says it, and for a notebook where its cell's line is in the file."""
    site = {"path": f.path, "line": f.line, "column": f.column}
    if f.cell:
        line, column, _, _ = f.file_region
        site.update(cell=f.cell, file_line=line, file_column=column)
    return site


def _summary(template: str, sites: list[Finding], root: str) -> Finding:
    first = min(sites, key=Finding.sort_key)
    files = sorted({_rel(f.path, root) for f in sites})
    shown = ", ".join(files[:_FILES_SHOWN]) + (
        f" and {len(files) - _FILES_SHOWN} more" if len(files) > _FILES_SHOWN else ""
    )
    message = template.format(count=len(sites), files=len(files), shown=shown)
    data = {
        "summary": {
            "count": len(sites),
            "files": files,
            "sites": [_site(f) for f in sorted(sites, key=Finding.sort_key)],
        },
        "scope": "test",
    }
    return replace(
        first,
        message=message,
        fix=None,
        replacement=None,
        data=data,
        snippet=f"{first.rule} in tests",
        end_line=first.line,
        end_column=first.column,
    )


def fold(result: ScanResult, root: str) -> None:
    """Fold the sites of `said_once_in_tests` rules in tests into one finding each; rank import-time sites first."""
    templates = {r.code: r.said_once_in_tests for r in entries() if r.said_once_in_tests}
    if not templates:
        return
    folded: dict[str, list[Finding]] = {}
    for r in result.results:
        if not any(f.rule in templates for f in r.findings):
            continue  # nothing to fold or rank (most files of a tree)
        test_file = is_test_file(_rel(r.path, root))
        kept = []
        for f in r.findings:
            scope = f.data.get("scope") if f.rule in templates and f.kind != "compat" else None
            if scope is None or "summary" in f.data:
                kept.append(f)
            elif test_file or scope == "test":
                folded.setdefault(f.rule, []).append(f)
            elif scope == "import" and not f.message.endswith(IMPORT_NOTE):
                kept.append(replace(f, severity=Severity.ERROR.value, message=f.message + IMPORT_NOTE))
            else:
                kept.append(f)
        r.findings = kept
    for code, sites in folded.items():
        first = min(sites, key=Finding.sort_key)
        holder = next(r for r in result.results if r.path == first.path)
        holder.findings = sorted([*holder.findings, _summary(templates[code], sites, root)], key=Finding.sort_key)
