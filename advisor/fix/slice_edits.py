"""The JSON fix edits from a slice of the file: LibCST parses only the statements that hold the fixes.

A file with a fixable finding is analysed again to compute its fixes' complete edits (advisor.fix.edits). Most
such files are large and hold one or two fixes, so the analysis reads one slice (advisor.analysis.slices): the
statements that hold the fixes whole, imports and module-level assignments as they are, every other statement a
stub on its own lines. A slice keeps every line's number and every kept statement's columns, so an edit of the
slice is an edit of the file at the same place, wherever the slice's text there is the file's.

`splice` makes that exact or gives up: each top-level statement a fix changed is written over the file's own
lines for it, only where the slice's text of what changes (from the start of its first line) is the file's;
added imports go next to imports, which a slice keeps as they are. Steps that read the whole module (LibCST's
scope analysis for an import removal, its placement where the file has no import block) are not taken on a
slice (`fixed_module(local=True)` gives None). Anything else: None, and the caller analyses the whole file.
"""

from __future__ import annotations

import difflib
from typing import Any, Sequence

from advisor.analysis import slices
from advisor.analysis.analyse import Analysed, analyse_slice, decode, guard_tree
from advisor.analysis.positions import code_lines, statement_starts
from advisor.analysis.suppressions import Suppressions
from advisor.core.findings import FileResult
from advisor.core.settings import Settings
from advisor.core.textlines import common_ends, split_lines
from advisor.fix.statement_codes import statement_codes
from advisor.rule import Rule


def analyse(
    data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings, lines: Sequence[int]
) -> tuple[Analysed, str] | None:
    """(The slice's analysis, the slice's source) for fixes of findings on `lines`; None: analyse it whole."""
    text, _ = decode(data)
    tree, refs = guard_tree(text, path)
    rules = [r for r in rules if r.may_match(refs)]
    source = slices.for_lines(text, tree, rules, refs, lines) if rules else None
    if source is None:
        return None
    starts = statement_starts(tree)
    identifiers, aliases = frozenset(refs.identifiers()), refs.alias_names()
    del tree
    refs.forget_calls()  # they hold the `ast` tree
    everything = slices.Owned([(1, len(split_lines(text)) + 1)])
    result = FileResult(path)
    args = (source, everything, starts, text, path, rules, settings, identifiers, Suppressions(text), result)
    analysed = analyse_slice(*args, kept=True, alias_names=aliases)
    return (analysed, source) if analysed is not None and not result.errors else None


class Slice:
    """A slice's source and the file's text, line by line, for `splice`."""

    def __init__(self, module: Any, source: str, text: str, starts: Any = None) -> None:
        self.module, self.text = module, text
        self.src_lines, self.lines = split_lines(source, keepends=True), split_lines(text, keepends=True)
        self.offsets = [0]  # where each of the file's lines starts in `text`
        for line in self.lines:
            self.offsets.append(self.offsets[-1] + len(line))
        parts = pieces(module, source, starts)
        self.exact = parts is not None and len(self.src_lines) == len(self.lines)
        head, self.codes, foot = parts or ("", [], "")
        self.ends = (head, foot)
        self.starts = [_count(head)]  # the line (0-based) where each statement's code starts, then the footer's
        for code in self.codes:
            self.starts.append(self.starts[-1] + _count(code))

    def region(self, first: int, last: int) -> str:
        """The file's text of lines [first, last), 0-based."""
        return self.text[self.offsets[first] : self.offsets[last]]

    def splice(self, new: Any) -> str | None:
        """The file's text with what turned the slice's module into `new`; None where that is not certain."""
        if (
            not self.exact
            or (_lines(new, new.header), _lines(new, new.footer)) != self.ends
            or not new.has_trailing_newline
        ):
            return None
        new_codes = statement_codes(self.module, self.codes, new)
        # Statements are matched by their code: a transform may rebuild a statement it leaves as it was.
        matcher = difflib.SequenceMatcher(None, self.codes, new_codes, autojunk=False)
        out = [self.region(0, self.starts[0])]
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                out.append(self.region(self.starts[i1], self.starts[i2]))
                continue
            gap = self._gap(i1, i2, "".join(new_codes[j1:j2]), j2 - j1)
            if gap is None:
                return None
            out.append(gap)
        out.append(self.region(self.starts[-1], len(self.lines)))
        return "".join(out)

    def _gap(self, first: int, last: int, code: str, added: int) -> str | None:
        """The file's text for old statements [first, last), which `added` statements of `code` replace."""
        a, b = self.starts[first], self.starts[last]
        if "".join(self.src_lines[a:b]) == self.region(a, b):  # the slice has these statements as the file does
            return code
        if last - first != 1 or added != 1:
            return None
        return self._within(first, code)

    def _within(self, i: int, new_code: str) -> str | None:
        """Statement `i`, a stub or thinned in the slice, with the one change that turned it into `new_code`,
        made in the file's text: where the slice's text of the change, from its first line's start, is the file's."""
        old_code = self.codes[i]
        p, s = common_ends(old_code, new_code)
        line = _count(old_code[:p]) - (0 if old_code[:p].endswith(("\n", "\r")) or not p else 1)
        line_start = len("".join(split_lines(old_code, keepends=True)[:line]))
        if line_start > p:  # the change starts inside a line break ("\r|\n")
            return None
        changed = old_code[line_start : len(old_code) - s]  # from the change's first line's start to its end
        at = self.starts[i] + line
        where = self.offsets[at]
        if self.text[where : where + len(changed)] != changed:
            return None
        whole = self.region(self.starts[i], self.starts[i + 1])
        cut = where - self.offsets[self.starts[i]]
        return whole[: cut + p - line_start] + new_code[p : len(new_code) - s] + whole[cut + len(changed) :]


def pieces(module: Any, text: str, starts: Any = None) -> tuple[str, list[str], str] | None:
    """(header, each top-level statement's code, footer) of `module`, when together they are `text` exactly.

    `starts` (positions.statement_starts of `text`): each statement's code is cut from `text` by lines, not
    generated (a module parsed from `text` generates it back; generating every statement cost a file's JSON
    edits most of their time). Without them, or where the lines do not add up, each statement is generated."""
    if not module.has_trailing_newline:
        return None
    head, foot = _lines(module, module.header), _lines(module, module.footer)
    stmts = _cut(module, text, starts, head, foot) if starts is not None else None
    if stmts is None:
        stmts = [module.code_for_node(s) for s in module.body]
    return (head, stmts, foot) if head + "".join(stmts) + foot == text else None


def _cut(module: Any, text: str, starts: Any, head: str, foot: str) -> list[str] | None:
    """Each top-level statement's code as `text`'s lines from its first leading line to the next statement's (a
    top-level statement's code is whole lines: it ends with its newline); None where the statements and `starts`
    do not line up, or the lines before the first and after the last are not the header's and footer's."""
    lined = code_lines(module.body, starts)
    if lined is None:
        return None
    lines = split_lines(text, keepends=True)
    bounds = [*(line for line, _ in lined), len(lines) - _count(foot) + 1]
    if bounds[0] != _count(head) + 1 or any(a >= b for a, b in zip(bounds, bounds[1:])):
        return None
    if "".join(lines[: bounds[0] - 1]) != head or "".join(lines[bounds[-1] - 1 :]) != foot:
        return None
    return ["".join(lines[a - 1 : b - 1]) for a, b in zip(bounds, bounds[1:])]


def _lines(module: Any, lines: Sequence[Any]) -> str:
    return "".join(module.code_for_node(line) for line in lines)


def _count(code: str) -> int:
    """Lines in `code` (a last line without a newline counts)."""
    return len(split_lines(code))
