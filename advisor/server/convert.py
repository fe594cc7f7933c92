"""advisor's findings as LSP data: ranges in the client's units, diagnostics, edits, hover text.

Pure conversions, no protocol state: `lsp` calls them with what the client negotiated.
"""

from __future__ import annotations

import bisect
import difflib
import re
from dataclasses import replace

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from advisor.core.textlines import line_starts
from advisor.server import adapter

_NEWLINE = re.compile(r"\r\n|\r|\n")
SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}
# Editors strike deprecated APIs through and fade code that only runs on old torch (a compat fallback).
TAGS = {"deprecated": types.DiagnosticTag.Deprecated, "compat": types.DiagnosticTag.Unnecessary}


class Lines:
    """Code-point columns (advisor) <-> the client's units (UTF-16 unless negotiated)."""

    def __init__(self, text: str, encoding: str | None = None) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.codec = PositionCodec(encoding or types.PositionEncodingKind.Utf16)
        self._lines: list[str] | None = None

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            ends = self.starts[1:] + [len(self.text)]
            self._lines = [self.text[s:e] for s, e in zip(self.starts, ends)]
        return self._lines

    def position(self, line: int, column: int) -> types.Position:
        if line >= len(self.starts):
            return types.Position(line=len(self.starts) - 1, character=len(self.lines[-1]))
        text = self.lines[line]
        if text.isascii():
            return types.Position(line=line, character=column)
        return self.codec.position_to_client_units(self.lines, types.Position(line=line, character=column))

    def at_offset(self, offset: int) -> types.Position:
        line = bisect.bisect_right(self.starts, offset) - 1
        return self.position(line, offset - self.starts[line])

    def from_client(self, pos: types.Position) -> tuple[int, int]:
        if pos.line >= len(self.starts):
            return pos.line, pos.character
        if self.lines[pos.line].isascii():
            return pos.line, pos.character
        p = self.codec.position_from_client_units(self.lines, types.Position(line=pos.line, character=pos.character))
        return p.line, p.character


def to_range(lines: Lines, issue: adapter.Issue) -> types.Range:
    return types.Range(
        start=lines.position(issue.line, issue.column), end=lines.position(issue.end_line, issue.end_column)
    )


def message(issue: adapter.Issue) -> str:
    # As the text output words it: "... (warns from 2.13, breaks in 2.14)".
    when = []
    if issue.warns_from:
        when.append(f"warns from {issue.warns_from}")
    if issue.breaks_in:
        when.append(f"breaks in {issue.breaks_in}")
    return issue.message + (f" ({', '.join(when)})" if when else "")


def diagnostic(lines: Lines, issue: adapter.Issue) -> types.Diagnostic:
    return types.Diagnostic(
        range=to_range(lines, issue),
        message=message(issue),
        severity=SEVERITY.get(issue.severity, types.DiagnosticSeverity.Warning),
        code=issue.code,
        code_description=types.CodeDescription(href=issue.docs_url or adapter.docs_url(issue.code)),
        source="advisor",
        tags=[TAGS[issue.kind]] if issue.kind in TAGS else None,
        data={
            "name": issue.name,
            "kind": issue.kind,
            "fix": issue.fix,
            "warns_from": issue.warns_from,
            "breaks_in": issue.breaks_in,
            "validation": issue.validation,
            "key": issue.key,
        },
    )


def workspace_edit(
    uri: str, version: int | None, old: str, new: str, encoding: str | None = None
) -> types.WorkspaceEdit:
    """One edit turning `old` into `new`, as small as a common prefix and suffix make it."""
    start, end, text = changed_span(old, new)
    lines = Lines(old, encoding)
    edit = types.TextEdit(range=types.Range(start=lines.at_offset(start), end=lines.at_offset(end)), new_text=text)
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version), edits=[edit]
            )
        ]
    )


def overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p):
        return (p.line, p.character)

    return not (key(a.end) < key(b.start) or key(b.end) < key(a.start))


def hover_text(issue: adapter.Issue) -> str:
    info = adapter.rule_info(issue.code)
    # This finding's fix, as the policy decided it (target, lowest torch): the rule's usual one may differ.
    fix = f"fix: {issue.fix}" if issue.fix else "no automatic fix here"
    head = f"**{info.code} {info.name}** ({issue.severity}; since torch {info.since}; {fix})"
    parts = [head, message(issue), "---", info.doc]
    if info.validation:
        parts.append(
            f"**After upgrading**, run the `{info.validation}` validation check in the upgraded environment: "
            "`advisor scan --report advisor-report` then `advisor validate advisor-report`."
        )
    parts.append(f"[{info.code} in the rule docs]({info.url})")
    return "\n\n".join(parts)


def carry_over(old: str, issues: list[adapter.Issue], new: str) -> list[adapter.Issue]:
    """`issues` found in `old`, moved to `new`: those whose every line is unchanged there, at their new lines."""
    moved: dict[int, int] = {}
    matcher = difflib.SequenceMatcher(None, _NEWLINE.split(old), _NEWLINE.split(new), autojunk=False)
    for tag, i1, i2, j1, _ in matcher.get_opcodes():
        if tag == "equal":
            moved.update((i1 + k, j1 + k) for k in range(i2 - i1))
    return [
        replace(i, line=moved[i.line], end_line=moved[i.end_line])
        for i in issues
        if all(n in moved for n in range(i.line, i.end_line + 1))
        and moved[i.end_line] - moved[i.line] == i.end_line - i.line
    ]


_WHERE = re.compile(r"\(line (\d+), column (\d+)\)")


def error_diagnostic(lines: Lines, error: str) -> types.Diagnostic:
    """Why the buffer could not be analysed (a syntax error: at its line and column), as an error diagnostic."""
    m = _WHERE.search(error)
    line = min(int(m.group(1)) - 1, len(lines.starts) - 1) if m else 0
    text = lines.lines[line].rstrip("\r\n") if lines.lines else ""
    column = min(max(int(m.group(2)) - 1, 0), len(text)) if m else 0
    return types.Diagnostic(
        range=types.Range(start=lines.position(line, column), end=lines.position(line, len(text))),
        message=f"not analysed: {error}",
        severity=types.DiagnosticSeverity.Error,
        source="advisor",
    )


def changed_span(old: str, new: str) -> tuple[int, int, str]:
    """(start, end, replacement): the one edit of `old` that gives `new`, as small as a prefix/suffix match makes it."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    # Never split a \r\n pair: the edit's ends must be positions in both texts.
    if start > 0 and old[start - 1] == "\r" and start < len(old) and old[start] == "\n":
        start -= 1
    if end_old < len(old) and old[end_old] == "\n" and end_old > 0 and old[end_old - 1] == "\r":
        end_old += 1
        end_new += 1
    return start, end_old, new[start:end_new]
