"""One file's fix edits, from an analysis of it: what each fix changes, and what fixes change only together.

`advisor.fix.edits` puts them in the JSON report. The analysis is the scan's own where the worker that scanned the
file made them (`worker_edits`: the slice it analysed, or the whole file), else a second analysis of the file (a
slice that keeps the fixes' statements where that gives the same edits, advisor.fix.slice_edits).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from functools import lru_cache
from typing import Any, Sequence

from advisor.core.findings import Finding
from advisor.core.lazy import reraise_interrupt
from advisor.core.textlines import common_ends
from advisor.fix.statement_codes import same, statement_codes


def _position(lines: list[str], first: int, offset: int) -> tuple[int, int]:
    """(line, column), 1-based, of `offset` characters into the text from line index `first` on."""
    line = first
    while line < len(lines) and offset >= len(lines[line]):
        offset -= len(lines[line])
        line += 1
    return line + 1, offset + 1


@lru_cache(maxsize=2)
def _lines(text: str) -> list[str]:
    """`text`'s lines with their ends: a file's text is the `old` of each of its fixes' edits (read, never changed)."""
    return text.splitlines(keepends=True)


def text_edits(old: str, new: str) -> list[dict[str, Any]]:
    """The edits that turn `old` into `new`: one per changed run of lines, narrowed to the characters that
    change (1-based line and column; the end is exclusive)."""
    a, b = _lines(old), new.splitlines(keepends=True)
    # The lines before the first change and after the last are equal by construction: only the middle is diffed
    # (a fix changes a few lines of a file that may have thousands).
    short = min(len(a), len(b))
    head = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), short)
    tail = next(
        (i for i, (x, y) in enumerate(zip(reversed(a), reversed(b))) if x != y or i >= short - head), short - head
    )
    middle = difflib.SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    edits = []
    for tag, i1, i2, j1, j2 in middle.get_opcodes():
        if tag == "equal":
            continue
        i1, i2, j1, j2 = i1 + head, i2 + head, j1 + head, j2 + head
        before, after = "".join(a[i1:i2]), "".join(b[j1:j2])
        start, same_end = common_ends(before, after)
        end_before, end_after = len(before) - same_end, len(after) - same_end
        line, column = _position(a, i1, start)
        end_line, end_column = _position(a, i1, end_before)
        where = {"line": line, "column": column, "end_line": end_line, "end_column": end_column}
        edits.append({"range": where, "content": after[start:end_after]})
    return edits


def finding_key(f: Finding) -> tuple:
    """A finding as the scan placed it, for matching a fix's report to it (its line and column, not its end)."""
    return (f.rule, f.cell or 0, f.line, f.column, f.message)


class FixableFile:
    """One file's text and the text one set of its reports' fixes makes of it (a notebook's: the .ipynb JSON)."""

    def __init__(self, path: str, data: bytes, rules: list, settings: Any, lines: Sequence[int] = ()) -> None:
        """`lines`: those of the findings to fix, where a slice of the file that keeps them is enough to fix them
        (advisor.fix.slice_edits); empty: the whole file is analysed."""
        from advisor.analysis.analyse import analyse_source, decode
        from advisor.analysis import notebooks

        self.path, self.notebook = path, path.endswith(".ipynb")
        self._args = (path, data, rules, settings)
        self.slice: Any = None  # advisor.fix.slice_edits.Slice, where the analysis is of a slice
        self._whole: FixableFile | None = None
        if self.notebook:
            self.text, self.encoding = data.decode("utf-8"), "utf-8"
            self.nb = notebooks.read(data)
            self.virtual = notebooks.to_virtual(self.nb)
            _, self.analysed = analyse_source(self.virtual.source.encode("utf-8"), path, rules, settings)
        else:
            self.text, self.encoding = decode(data)
            if lines and self._analyse_slice(lines):
                return
            _, self.analysed = analyse_source(data, path, rules, settings)
        self._pieces: tuple[str, list[str], str] | None = None  # the analysed module's code, statement by statement

    @classmethod
    def analysed_by_scan(
        cls, path: str, data: bytes, rules: list, settings: Any, analysed: Any, source: str | None
    ) -> FixableFile:
        """A .py file as the scan analysed it: `analysed` is of the slice `source`, or of the whole file (None)."""
        from advisor.analysis.analyse import decode
        from advisor.fix import slice_edits

        file = cls.__new__(cls)
        file.path, file.notebook, file._args, file._whole = path, False, (path, data, rules, settings), None
        file.text, file.encoding = decode(data)
        file.analysed = analysed
        file.slice = None if source is None else slice_edits.Slice(analysed.module, source, file.text, analysed.starts)
        file._pieces = None
        return file

    def _analyse_slice(self, lines: Sequence[int]) -> bool:
        from advisor.analysis.analyse import SourceError
        from advisor.fix import slice_edits

        try:
            path, data, rules, settings = self._args
            sliced = slice_edits.analyse(data, path, rules, settings, lines)
        except SourceError:  # the slice does not parse: the whole file will say why, if it does not either
            return False
        if sliced is None:
            return False
        self.analysed, source = sliced
        self.slice = slice_edits.Slice(self.analysed.module, source, self.text, self.analysed.starts)
        return True

    def whole(self) -> FixableFile:
        """This file analysed whole (itself, where it was)."""
        if self.slice is None:
            return self
        if self._whole is None:
            self._whole = FixableFile(*self._args)
        return self._whole

    def items(self) -> list[tuple[Any, tuple]]:
        """(report, the key of its finding as the scan placed it) of each report with a replacement."""
        from advisor.analysis import notebooks

        if self.analysed is None:
            return []
        out = []
        for rep, finding in self.analysed.items:
            if rep.replacement is not None:
                placed = notebooks.place([finding], self.virtual.source)[0] if self.notebook else finding
                out.append((rep, finding_key(placed)))
        return out

    def keys_of(self, reports: list) -> list[tuple]:
        keys = {id(rep): key for rep, key in self.items()}
        return [keys[id(rep)] for rep in reports]

    def fixed(self, reports: list) -> str:
        from advisor.analysis import notebook_text, notebooks
        from advisor.fix.fixer import fixed_module

        assert self.analysed is not None  # asked only with its reports
        if self.slice is not None:
            try:
                fixed = fixed_module(self.analysed, reports, self.path, local=True)
                text = self.slice.splice(fixed) if fixed is not None else None
            except Exception as e:  # the slice is a short cut: where it fails, the whole file decides, as without it
                reraise_interrupt(e)
                text = None
            if text is not None:
                return text
            whole = self.whole()
            by_key = {key: rep for rep, key in whole.items()}
            return whole.fixed([by_key[key] for key in self.keys_of(reports)])  # KeyError: no edits (fix_edits)
        module = fixed_module(self.analysed, reports, self.path)
        new = self._spliced(module)
        if new is None:
            new = module.bytes.decode(self.encoding)
        if not self.notebook:
            return new
        # Only the edited cells' JSON strings change, as `advisor fix` writes them (advisor.fix.fixer).
        sources = notebooks.from_virtual(self.nb, self.virtual, new)
        return notebook_text.splice(self.text, notebook_text.scan(self.text), sources)

    def _spliced(self, new: Any) -> str | None:
        """`new`'s code made from the analysed module's text and the code of only what differs (a fix changes a few
        of a file's thousands of statements: advisor.fix.statement_codes); None where that cannot be sure to give
        `new.code`."""
        old = self.analysed.module  # type: ignore[union-attr]
        if self._pieces is None:
            from advisor.fix.slice_edits import pieces

            self._pieces = pieces(old, self.virtual.source if self.notebook else self.text, self.analysed.starts)  # type: ignore[union-attr]
        # The same header and footer lines, in a tuple or a list: advisor.fix.parking gives the footer back as a list
        ends = same(new.header, old.header) and same(new.footer, old.footer)
        if not (self._pieces and ends and new.has_trailing_newline):
            return None
        head, stmts, foot = self._pieces
        return head + "".join(statement_codes(old, stmts, new)) + foot


def edits_of(file: FixableFile, keys: set[tuple]) -> tuple[dict[tuple, list[dict]], dict[tuple, dict]]:
    """(own, shared) edits of the fixes of the findings `keys` (`key`), the whole file's analysis deciding where
    `file`'s slice misses one of them."""
    items = [(rep, key) for rep, key in file.items() if key in keys]
    if len(items) < len(keys):  # the slice did not find them all: the whole file does as the scan did
        file = file.whole()
        items = [(rep, key) for rep, key in file.items() if key in keys]
    own = {key: text_edits(file.text, file.fixed([rep])) for rep, key in items}
    return own, _shared(file, items, own)


def fix_rules(fixable: Sequence[Finding]) -> list:
    """The rules a file's fixes are made with: those that reported them (as the second analysis runs them)."""
    from advisor.analysis.registry import rule_by_code

    return [rule_by_code(code) for code in sorted({f.rule for f in fixable})]


def fixable(finding: Finding) -> bool:
    """Whether the JSON report gives `finding` its fix's edits (a .py file's or a notebook's fix with a replacement)."""
    return bool(finding.fix) and finding.replacement is not None and finding.path.endswith((".py", ".ipynb"))


def plain(own: dict[tuple, list[dict]], shared: dict[tuple, dict]) -> list:
    """(own, shared) as JSON data: a cache entry, or a worker's answer."""
    return [
        [[list(k), e] for k, e in own.items()],
        [[list(k), [list(w) for w in t["with"]], t["edits"]] for k, t in shared.items()],
    ]


def from_plain(entry: list) -> tuple[dict[tuple, list[dict]], dict[tuple, dict]]:
    own = {tuple(k): edits for k, edits in entry[0]}
    return own, {tuple(k): {"with": [tuple(w) for w in w_], "edits": e} for k, w_, e in entry[1]}


def _overlap(a: dict, b: dict) -> bool:
    ra, rb = a["range"], b["range"]
    start_a, end_a = (ra["line"], ra["column"]), (ra["end_line"], ra["end_column"])
    start_b, end_b = (rb["line"], rb["column"]), (rb["end_line"], rb["end_column"])
    return start_a < end_b and start_b < end_a or start_a == start_b


def _shared(file: FixableFile, items: list[tuple[Any, tuple]], own: dict[tuple, list[dict]]) -> dict[tuple, dict]:
    """{key: {"with": other keys, "edits": [...]}}: what fixes make only together, as `advisor fix` makes it in one
    pass: an import that several fixes use, left unused once all of them are made, is removed by none alone."""
    from advisor.fix.replace import imported_names

    analysed = file.analysed
    if analysed is None:  # nothing was parsed: no fix, so no import is shared
        return {}
    by_name: dict[tuple, list[tuple[Any, tuple]]] = defaultdict(list)
    for rep, key in items:
        for name in set(imported_names(analysed.module, analysed.resolver, rep.target_node)):
            by_name[name].append((rep, key))
    out: dict[tuple, dict] = {}
    for group in by_name.values():
        keys = [key for _, key in group]
        mine = [e for key in keys for e in own.get(key, [])]
        if len(group) < 2 or any(_overlap(a, b) for i, a in enumerate(mine) for b in mine[i + 1 :]):
            continue  # one fix alone, or fixes that `advisor fix` makes in different passes
        extra = [e for e in text_edits(file.text, file.fixed([rep for rep, _ in group])) if e not in mine]
        if extra and not any(_overlap(e, m) for e in extra for m in mine):
            last = max(keys, key=lambda k: (k[1], k[2], k[3]))  # the fix that comes last in the file carries them
            out[last] = {"with": [k for k in keys if k != last], "edits": extra}
    return out


class ScanEdits:
    """The JSON fix edits a scan's worker makes from its own analysis of a .py file (`add`: the analysis of a slice
    with its source, or of the whole file), rather than the main process analysing the file again for them.

    `answer`: [the keys of the fixable findings, their (own, shared) edits as `plain` data], or None where the main
    process makes them as before: no fix, fixes in two slices (they may share an import), or an error."""

    def __init__(self, path: str, data: bytes, settings: Any) -> None:
        self.path, self.data, self.settings = path, data, settings
        self.answer: list | None = None
        self._with_fixes = 0  # analyses (slices) that held a fixable finding

    def add(self, analysed: Any, source: str | None = None) -> None:
        found = [f for rep, f in analysed.items if rep.replacement is not None and fixable(f)]
        if not found:
            return
        self._with_fixes += 1
        if self._with_fixes > 1:  # a second slice with fixes: what they share is not seen from either
            self.answer = None
            return
        keys = {finding_key(f) for f in found}
        try:
            file = FixableFile.analysed_by_scan(self.path, self.data, fix_rules(found), self.settings, analysed, source)
            self.answer = [sorted(map(list, keys)), plain(*edits_of(file, keys))]
        except Exception:  # the main process tries again, and decides as it does for any file
            self.answer = None
