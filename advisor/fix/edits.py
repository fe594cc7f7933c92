"""Each JSON fix's complete edits: the node it replaces, and the imports it adds or leaves unused.

`fix.range` and `fix.replacement` are the replaced node alone; `advisor fix` also adds the imports a fix needs
and removes those it leaves unused. `fix.edits` holds every change one fix makes, computed by the fixer's own
edit step (advisor.fix.fixer.apply_reports), so a consumer that applies the edits of the fixes that do not
overlap, and scans again for the rest (as `advisor fix` does, pass after pass), gets `advisor fix`'s output.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from typing import Any

from advisor.core.findings import Finding


def _key(f: Finding) -> tuple[str, int, int, str]:
    return (f.rule, f.line, f.column, f.message)


def _position(lines: list[str], first: int, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of `offset` characters into the text from line index `first` on."""
    line = first
    while line < len(lines) and offset >= len(lines[line]):
        offset -= len(lines[line])
        line += 1
    return line + 1, offset + 1


def text_edits(old: str, new: str) -> list[dict[str, Any]]:
    """The edits that turn `old` into `new`: one per changed run of lines, narrowed to the characters that
    change (1-based line and column; the end is exclusive)."""
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    edits = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        before, after = "".join(a[i1:i2]), "".join(b[j1:j2])
        start = 0
        while start < min(len(before), len(after)) and before[start] == after[start]:
            start += 1
        end_before, end_after = len(before), len(after)
        while end_before > start and end_after > start and before[end_before - 1] == after[end_after - 1]:
            end_before, end_after = end_before - 1, end_after - 1
        line, column = _position(a, i1, start)
        end_line, end_column = _position(a, i1, end_before)
        where = {"line": line, "column": column, "end_line": end_line, "end_column": end_column}
        edits.append({"range": where, "content": after[start:end_after]})
    return edits


def fix_edits(findings: list[Finding], project: Any) -> dict[tuple, list[dict[str, Any]]]:
    """{finding key: its fix's edits} for the fixable findings of .py files (a notebook's cells have no file lines).

    Only files with a fix are analysed again, with the rules that reported there.
    """
    from advisor.analysis.analyse import analyse_source, decode
    from advisor.fix.fixer import apply_reports
    from advisor.run.engine import read_file
    from advisor.analysis.registry import rule_by_code

    wanted: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.fix and f.replacement is not None and not f.cell and f.path.endswith(".py"):
            wanted[f.path].append(f)
    out: dict[tuple, list[dict[str, Any]]] = {}
    for path, fixable in wanted.items():
        try:
            data = read_file(path)
            text, encoding = decode(data)
        except Exception:  # unreadable now: those fixes keep their range, without edits
            continue
        rules = [rule_by_code(code) for code in sorted({f.rule for f in fixable})]
        _, analysed = analyse_source(data, path, rules, project.settings)
        if analysed is None:
            continue
        keys = {_key(f) for f in fixable}
        for rep, finding in analysed.items:
            if _key(finding) in keys and rep.replacement is not None:
                new = apply_reports(analysed.module, analysed.resolver, [rep], path).decode(encoding)
                out[_key(finding)] = text_edits(text, new)
    return out


def with_edits(entries: list[dict[str, Any]], findings: list[Finding], project: Any) -> None:
    """Add `fix.edits` to the JSON `entries` of `findings` (same order); a fix without them gets its range's edit."""
    edits = fix_edits(findings, project) if project is not None else {}
    for entry, f in zip(entries, findings):
        if entry["fix"] is None:
            continue
        own = edits.get(_key(f))
        if own is None and entry["fix"]["range"] is not None:
            own = [{"range": entry["fix"]["range"], "content": entry["fix"]["replacement"]}]
        entry["fix"]["edits"] = own or []
