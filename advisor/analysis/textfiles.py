"""Dockerfiles, shell scripts and `.env` files: allocator settings and ROCm markers, by plain text.

These are not Python, so LibCST never sees them. A line-based scanner finds
assignments of the allocator-config variables (`export VAR=...`, `VAR=... cmd`,
`ENV VAR=...`, `ENV VAR value`, `VAR=...` in `.env`) and reports them under the
same codes as the Python rules (ADV801, ADV802, ADV803). Requirements files are
read only for ROCm markers (a rocm wheel index). The results are `FileResult`s
like any other, so scoping, suppressions (`# advisor: ignore[ADV802]`) and
outputs treat them alike; the report lists them under their own heading.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import re
from typing import TYPE_CHECKING, Sequence

from advisor.core.markers import find_markers
from advisor.core.reading import read_bytes
from advisor.core.textlines import split_lines
from advisor.core.findings import Applicability, FileError, FileResult, Finding, Window

if TYPE_CHECKING:
    from advisor.analysis.rule_index import AnyRule  # a rule's class, or its index entry

# Names this scanner reads (matched against the file's base name).
TEXT_FILE_PATTERNS = (
    "Dockerfile",
    "Dockerfile.*",
    "*.Dockerfile",
    "*.dockerfile",
    "Containerfile",
    "*.sh",
    "*.bash",
    "Makefile",  # make recipes start training jobs too (ADV154: `python -m torch.distributed.launch`)
    "makefile",
    "GNUmakefile",
    "*.mk",
    "*.env",
    ".env",
    ".env.*",
    "requirements*.txt",
    "constraints*.txt",
    "pyproject.toml",
    "setup.cfg",  # project metadata: read by `Rule.check_text` only (no markers)
)
_METADATA = ("pyproject.toml", "setup.cfg")
_VAR = r"(?P<var>PYTORCH_(?:CUDA_|HIP_)?ALLOC_CONF)"
_VALUE = r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]*)"
# `VAR=value` anywhere a shell word can start (not `$VAR`, not `${VAR:=...}`).
_ASSIGN = re.compile(r"(?:^|(?<=[\s;&|(]))" + _VAR + r"=" + _VALUE)
# Dockerfile's legacy `ENV VAR value` form.
_ENV_SPACE = re.compile(r"^\s*ENV\s+" + _VAR + r"\s+" + _VALUE)


# One regex for all patterns: discovery asks this of every file name in the tree.
_TEXT_NAME = re.compile("|".join(fnmatch.translate(p) for p in TEXT_FILE_PATTERNS))


def is_text_file(path: str) -> bool:
    return is_text_name(os.path.basename(path))


def is_text_name(name: str) -> bool:
    """`is_text_file` of a bare file name (a walk's): no path to split."""
    return _TEXT_NAME.match(name) is not None


def is_shell_script(path: str) -> bool:
    """A file named on the command line with a non-Python shebang (`#!/bin/bash`): pre-commit passes these as `shell`."""
    if path.endswith((".py", ".pyi", ".ipynb")):
        return False
    try:
        first = read_bytes(path, 200, head=True).split(b"\n", 1)[0]
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" not in first


def _assignments(text: str) -> list[tuple[int, int, str, str]]:
    """(line, column, variable, value) of every allocator-config assignment, comments skipped."""
    out = []
    for lineno, line in enumerate(split_lines(text), 1):
        if line.lstrip().startswith("#"):
            continue
        m = _ENV_SPACE.match(line)
        matches = [m] if m else list(_ASSIGN.finditer(line))
        for m in matches:
            value = m.group("value")
            if value[:1] in "\"'":
                value = value[1:-1]
            out.append((lineno, m.start("var") + 1, m.group("var"), value))
    return out


def scan_text(
    path: str,
    data: bytes,
    rules: Sequence[AnyRule],
    target: tuple[int, int] | None = None,
    lowest: tuple[int, int] | None = None,
) -> FileResult:
    """Markers, and the findings of the rules that read env assignments (`Rule.check_env`) or, given the
    target torch (and the project's lowest supported torch), the whole text (`Rule.check_text`), of one file."""
    result = FileResult(path)
    if b"\x00" in data:
        result.errors.append(FileError(path, "binary file (contains NUL bytes); not analysed"))
        return result
    metadata = os.path.basename(path) in _METADATA
    if not metadata:
        result.markers = find_markers(data)
    if os.path.basename(path).endswith(".txt"):
        return result  # requirements lists: markers only
    text = data.decode("utf-8", "replace")
    assignments = [] if metadata else _assignments(text)
    lines = split_lines(text)
    from advisor.analysis.suppressions import Suppressions  # lazy: a run without text files never needs it

    suppressions = Suppressions(text, python=False)
    for rule in rules:
        found: list[tuple[int, int, int, str, Window | None]] = [
            (line, column, len(var), message, None) for line, column, var, message in rule.check_env(assignments)
        ]
        if target is not None:
            found += list(rule.check_text(path, text, target, lowest))
        for line, column, length, message, window in found:
            if suppressions.is_suppressed(rule.code, line):
                result.suppressed += 1
                continue
            finding = _finding(rule, path, line, column, length, message, lines[line - 1], window, target)
            if finding is not None:
                result.findings.append(finding)
    result.findings.sort(key=Finding.sort_key)
    return result


def _finding(
    rule: AnyRule,
    path: str,
    line: int,
    column: int,
    length: int,
    message: str,
    snippet: str,
    window: Window | None = None,
    target: tuple[int, int] | None = None,
) -> Finding | None:
    from advisor.core import policy  # lazy: most runs meet no such finding

    if window is not None and target is not None:  # the policy decides, as for Python findings
        decision = policy.decide(window, rule.kind, rule.severity, Applicability.NONE, message, target, None)
        if decision is None:
            return None  # not reached on this target
        found = _finding(rule, path, line, column, length, decision.message, snippet)
        assert found is not None  # no window: always a finding
        return dataclasses.replace(
            found,
            severity=decision.severity.value,
            kind=decision.kind.value,
            warns_from=decision.warns_from,
            breaks_in=decision.breaks_in,
        )
    return Finding(
        rule=rule.code,
        name=rule.name,
        severity=rule.severity.value,
        path=path,
        line=line,
        column=column,
        end_line=line,
        end_column=column + length,
        message=message,
        fix=None,
        validation=rule.validation,
        snippet=snippet.strip()[:200],
        kind=policy.plain_kind(rule.kind, rule.severity).value,
    )
