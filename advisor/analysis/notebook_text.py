"""A notebook's own JSON text: where each code cell's source lies in it, and new sources spliced in.

`advisor fix` and `--add-noqa` change only the JSON string(s) of the cells they edit, so the
rest of the file keeps its bytes: layout, key order, indentation, a minified one-line form,
the final newline, no added cell ids. Re-serialising through nbformat would sort keys and
give cells of format 4.5 random ids (two `fix --diff` runs would differ).

Positions also let CI formats point at the line of the `.ipynb` file where a cell's line
is written (GitHub annotates lines of the JSON file, not of cells).
Only the path `cells[i].source` is walked by hand; every other value is skipped with the
json module's own C scanner, so a notebook full of outputs stays cheap.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


class NotebookTextError(ValueError):
    pass


@dataclass
class SourceSpan:
    """One cell's `source` value in the file: the value's [start, end) and, for a list, each string's."""

    start: int
    end: int
    items: list[tuple[int, int, str]] | None = None  # (start, end, decoded) of each string; None: one string
    text: str = ""  # the decoded source


@dataclass
class NotebookText:
    text: str
    cells: dict[int, SourceSpan] = field(default_factory=dict)  # cell index (0-based) -> its source

    def position(self, cell: int, line: int, column: int) -> tuple[int, int]:
        """(line, column) in the file, 1-based, of `column` on `line` of cell number `cell` (1-based).

        Falls back to the start of the cell's source, or to (1, 1), where the cell is unknown.
        """
        span = self.cells.get(cell - 1)
        if span is None:
            return 1, 1
        offset = _offset_in(self.text, span, line, column)
        file_line = self.text.count("\n", 0, offset) + 1
        return file_line, offset - (self.text.rfind("\n", 0, offset) + 1) + 1


def _skip_ws(text: str, i: int) -> int:
    return _WS.match(text, i).end()  # type: ignore[union-attr]  # `[ \t\n\r]*` matches anywhere


def _expect(text: str, i: int, char: str) -> int:
    if text[i : i + 1] != char:
        raise NotebookTextError(f"expected {char!r} at offset {i}")
    return i + 1


def _members(text: str, i: int):
    """(key, value start) for each member of the object at `i`; the caller must return the value's end."""
    i = _skip_ws(text, _expect(text, i, "{"))
    if text[i : i + 1] == "}":
        return i + 1
    while True:
        key, i = json.decoder.scanstring(text, _expect(text, i, '"'))  # type: ignore[attr-defined]  # not in typeshed
        i = _skip_ws(text, _expect(text, _skip_ws(text, i), ":"))
        i = _skip_ws(text, (yield key, i))
        if text[i : i + 1] == "}":
            return i + 1
        i = _skip_ws(text, _expect(text, i, ","))


def _value_end(text: str, i: int) -> int:
    try:
        return _DECODER.raw_decode(text, i)[1]
    except json.JSONDecodeError as e:
        raise NotebookTextError(str(e)) from None


def _walk_object(text: str, i: int, visit) -> int:
    """Walk the object at `i`, calling `visit(key, value start)` -> value end; return the object's end."""
    members = _members(text, i)
    try:
        key, at = next(members)
        while True:
            key, at = members.send(visit(key, at))
    except StopIteration as stop:
        return stop.value


def _source_span(text: str, i: int) -> SourceSpan:
    if text[i : i + 1] == '"':
        value, end = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]  # not in typeshed
        return SourceSpan(i, end, None, value)
    i0 = i
    i = _skip_ws(text, _expect(text, i, "["))
    items: list[tuple[int, int, str]] = []
    if text[i : i + 1] != "]":
        while True:
            value, end = json.decoder.scanstring(text, _expect(text, i, '"'))  # type: ignore[attr-defined]  # not in typeshed
            items.append((i, end, value))
            i = _skip_ws(text, end)
            if text[i : i + 1] == "]":
                break
            i = _skip_ws(text, _expect(text, i, ","))
    return SourceSpan(i0, i + 1, items, "".join(v for _, _, v in items))


def _cells(text: str, i: int, out: dict[int, SourceSpan]) -> int:
    i = _skip_ws(text, _expect(text, i, "["))
    index = 0
    if text[i : i + 1] == "]":
        return i + 1
    while True:

        def visit(key: str, at: int, index: int = index) -> int:  # bound now: `index` moves on
            if key == "source":
                out[index] = _source_span(text, at)  # a repeated key: the last wins, as in json.loads
                return out[index].end
            return _value_end(text, at)

        i = _skip_ws(text, _walk_object(text, i, visit))
        index += 1
        if text[i : i + 1] == "]":
            return i + 1
        i = _skip_ws(text, _expect(text, i, ","))


def scan(text: str) -> NotebookText:
    """Where each cell's source lies in the notebook's JSON `text` (format 4: a top-level `cells`)."""
    found: dict[int, SourceSpan] = {}

    def visit(key: str, at: int) -> int:
        if key == "cells" and text[at : at + 1] == "[":
            found.clear()
            return _cells(text, at, found)
        return _value_end(text, at)

    try:
        _walk_object(text, _skip_ws(text, 0), visit)
    except (ValueError, IndexError) as e:
        raise NotebookTextError(f"not a notebook's JSON: {e}") from None
    return NotebookText(text, found)


def _raw_offsets(text: str, start: int, end: int) -> list[int]:
    """For the JSON string literal text[start:end], the file offset of each decoded character."""
    offsets = []
    i = start + 1
    while i < end - 1:
        offsets.append(i)
        if text[i] == "\\":
            if text[i + 1] == "u":
                high = int(text[i + 2 : i + 6], 16)
                pair = 0xD800 <= high < 0xDC00 and text[i + 6 : i + 8] == "\\u"
                i += 12 if pair and 0xDC00 <= int(text[i + 8 : i + 12], 16) < 0xE000 else 6
            else:
                i += 2
        else:
            i += 1
    offsets.append(end - 1)  # the closing quote: "just past the last character"
    return offsets


def _offset_in(text: str, span: SourceSpan, line: int, column: int) -> int:
    """The file offset of the character at cell (line, column), clamped to that line's end."""
    source = span.text
    k = 0
    for _ in range(line - 1):
        k = source.find("\n", k) + 1
        if k == 0:
            return span.start
    line_end = source.find("\n", k)
    k = min(k + max(column - 1, 0), len(source) if line_end < 0 else line_end)
    strings = span.items if span.items is not None else [(span.start, span.end, source)]
    seen = 0
    for start, end, value in strings:
        if k < seen + len(value) or (start, end, value) == strings[-1]:
            return _raw_offsets(text, start, end)[min(k - seen, len(value))]
        seen += len(value)
    return span.start


def _encode_items(old: SourceSpan, new: str, text: str, ascii_only: bool) -> str:
    """A list of lines in the list's own layout; a line that did not change keeps its bytes."""
    import difflib

    lines = new.splitlines(keepends=True)  # how nbformat splits a source into lines
    items = old.items or []
    raw = [text[s:e] for s, e, _ in items]
    encoded: list[str] = []
    ops = difflib.SequenceMatcher(None, [v for _, _, v in items], lines, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            encoded += raw[i1:i2]
        else:
            encoded += [json.dumps(line, ensure_ascii=ascii_only) for line in lines[j1:j2]]
    if not items:
        return json.dumps(lines, ensure_ascii=ascii_only)
    lead = text[old.start + 1 : items[0][0]]
    trail = text[items[-1][1] : old.end - 1]
    if len(items) > 1:
        sep = text[items[0][1] : items[1][0]]
    else:
        spaced = text[old.start - 1] in " \t"  # json.dump's `"source": [` or a minified `"source":[`
        sep = "," + lead if "\n" in lead else ", " if spaced else ","
    return "[" + lead + sep.join(encoded) + trail + "]" if encoded else "[]"


def splice(text: str, where: NotebookText, sources: dict[int, str]) -> str:
    """`text` with the sources of the cells in `sources` (0-based index -> new source) replaced."""
    out, at = [], 0
    ascii_only = text.isascii()  # the file's own choice: nbformat writes non-ASCII as is, json.dump escapes it
    for index in sorted(sources):
        span = where.cells.get(index)
        if span is None:
            raise NotebookTextError(f"cell {index + 1} has no source in the file")
        if span.text == sources[index]:
            continue
        if span.items is None:
            value = json.dumps(sources[index], ensure_ascii=ascii_only)
        else:
            value = _encode_items(span, sources[index], text, ascii_only)
        out += [text[at : span.start], value]
        at = span.end
    out.append(text[at:])
    return "".join(out)


def locate(findings: list, text: str) -> list:
    """`findings` (by cell and line) with `file_region`: where they are written in the notebook's text."""
    from dataclasses import replace

    if not any(f.cell for f in findings):
        return list(findings)
    try:
        where = scan(text)
    except NotebookTextError:
        return list(findings)
    out = []
    for f in findings:
        if not f.cell:
            out.append(f)
            continue
        start = where.position(f.cell, f.line, f.column)
        end = where.position(f.cell, f.end_line, f.end_column)
        out.append(replace(f, data={**f.data, "file_region": [*start, *end]}))
    return out
