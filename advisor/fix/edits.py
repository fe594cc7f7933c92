"""Each JSON fix's complete edits: the node it replaces, and the imports it adds or leaves unused.

`fix.range` and `fix.replacement` are the replaced node alone; `advisor fix` also adds the imports a fix needs
and removes those it leaves unused. `fix.edits` holds every change one fix makes, computed by the fixer's own
edit step (advisor.fix.fixer.apply_reports), so a consumer that applies the edits of the fixes that do not
overlap, and scans again for the rest (as `advisor fix` does, pass after pass), gets `advisor fix`'s output.
"""

from __future__ import annotations

import difflib
import json
import os
from collections import defaultdict
from typing import Any, Sequence

from advisor.core.findings import Finding
from advisor.core.textlines import common_ends


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
    # The lines before the first change and after the last are equal by construction: only the middle is diffed
    # (a fix changes a few lines of a file that may have thousands).
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
        tail += 1
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


def _key(f: Finding) -> tuple:
    return (f.rule, f.cell or 0, f.line, f.column, f.message)


class _File:
    """One file's text and the text one set of its reports' fixes makes of it (a notebook's: the .ipynb JSON)."""

    def __init__(self, path: str, data: bytes, rules: list, settings: Any, lines: Sequence[int] = ()) -> None:
        """`lines`: those of the findings to fix, where a slice of the file that keeps them is enough to fix them
        (advisor.fix.slice_edits); empty: the whole file is analysed."""
        from advisor.analysis.analyse import analyse_source, decode
        from advisor.analysis import notebooks

        self.path, self.notebook = path, path.endswith(".ipynb")
        self._args = (path, data, rules, settings)
        self.slice: Any = None  # advisor.fix.slice_edits.Slice, where the analysis is of a slice
        self._whole: _File | None = None
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
        self.slice = slice_edits.Slice(self.analysed.module, source, self.text)
        return True

    def whole(self) -> _File:
        """This file analysed whole (itself, where it was)."""
        if self.slice is None:
            return self
        if self._whole is None:
            self._whole = _File(*self._args)
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
                out.append((rep, _key(placed)))
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
            except Exception:  # the slice is a short cut: where it fails, the whole file decides, as without it
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
        """`new`'s code made from the analysed module's text and the code of only the top-level statements that
        differ (a fix changes a few of a file's thousands); None where that cannot be sure to give `new.code`."""
        old = self.analysed.module  # type: ignore[union-attr]
        if self._pieces is None:
            from advisor.fix.slice_edits import pieces

            self._pieces = pieces(old, self.virtual.source if self.notebook else self.text)
        if not self._pieces or new.header != old.header or new.footer != old.footer or not new.has_trailing_newline:
            return None
        a, b = old.body, new.body
        first = 0
        while first < min(len(a), len(b)) and a[first] is b[first]:
            first += 1
        last = 0
        while last < min(len(a), len(b)) - first and a[len(a) - 1 - last] is b[len(b) - 1 - last]:
            last += 1
        head, stmts, foot = self._pieces
        middle = "".join(new.code_for_node(s) for s in b[first : len(b) - last])
        return head + "".join(stmts[:first]) + middle + "".join(stmts[len(a) - last :]) + foot


def _overlap(a: dict, b: dict) -> bool:
    ra, rb = a["range"], b["range"]
    start_a, end_a = (ra["line"], ra["column"]), (ra["end_line"], ra["end_column"])
    start_b, end_b = (rb["line"], rb["column"]), (rb["end_line"], rb["end_column"])
    return start_a < end_b and start_b < end_a or start_a == start_b


def _shared(file: _File, items: list[tuple[Any, tuple]], own: dict[tuple, list[dict]]) -> dict[tuple, dict]:
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


def fix_edits(findings: list[Finding], project: Any) -> tuple[dict[tuple, list[dict]], dict[tuple, dict]]:
    """({finding key: its fix's edits}, {finding key: the edits it makes together with others}) for the fixable
    findings of .py files and notebooks (a notebook's edits are in the .ipynb file's text).

    Only files with a fix are analysed again, with the rules that reported there, and only in the statements that
    hold the fixes where that gives the same edits (advisor.fix.slice_edits); the project's cache keeps each file's
    edits for the next run over the same file.
    """
    wanted: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if f.fix and f.replacement is not None and f.path.endswith((".py", ".ipynb")):
            wanted[f.path].append(f)
    own: dict[tuple, list[dict[str, Any]]] = {}
    shared: dict[tuple, dict] = {}
    store = _store(project) if wanted else None
    for path, fixable in wanted.items():
        try:
            mine, together = _file_edits(path, fixable, project, store)
        except Exception:  # unreadable now, or a notebook whose cells cannot be rewritten: no edits
            continue
        own.update(mine)
        shared.update(together)
    if store is not None:
        store.flush()
    return own, shared


def _store(project: Any) -> Any:
    from advisor.run.cache import EditsStore, run_key

    key = project.cache_dir and run_key(project.rules, project.settings)
    return EditsStore(project.cache_dir, key) if key else None


def _file_edits(path: str, fixable: list[Finding], project: Any, store: Any) -> tuple[dict, dict]:
    """One file's (own, shared) edits, from the cache when the file and its fixable findings are unchanged."""
    from advisor.analysis.registry import rule_by_code
    from advisor.fix.imports import layout_of
    from advisor.run.cache import content_hash
    from advisor.run.engine import read_file

    st = os.stat(path)
    content = store.content_hash(path, st) if store is not None else None
    data = None
    if content is None:
        data = read_file(path)
        content = content_hash(data)
    keys = {_key(f) for f in fixable}
    key_of = lambda content: content_hash(json.dumps([content, sorted(keys), layout_of(path)]).encode())  # noqa: E731
    digest = key_of(content)
    cached = store.get(path, digest) if store is not None else None
    if cached is not None:
        own = {tuple(k): edits for k, edits in cached[0]}
        return own, {tuple(k): {"with": [tuple(w) for w in w_], "edits": e} for k, w_, e in cached[1]}
    if data is None:  # the entry was for other findings: the file is read now
        data = read_file(path)
        content = content_hash(data)
        digest = key_of(content)
    rules = [rule_by_code(code) for code in sorted({f.rule for f in fixable})]
    file = _File(path, data, rules, project.settings, sorted({f.line for f in fixable}))
    items = [(rep, key) for rep, key in file.items() if key in keys]
    if len(items) < len(keys):  # the slice did not find them all: the whole file does as the scan did
        file = file.whole()
        items = [(rep, key) for rep, key in file.items() if key in keys]
    own = {key: text_edits(file.text, file.fixed([rep])) for rep, key in items}
    shared = _shared(file, items, own)
    if store is not None:
        entry = (
            [[list(k), e] for k, e in own.items()],
            [[list(k), [list(w) for w in t["with"]], t["edits"]] for k, t in shared.items()],
        )
        store.put(path, digest, entry, st, content)
    return own, shared


def with_edits(entries: list[dict[str, Any]], findings: list[Finding], project: Any) -> None:
    """Add `fix.edits` (and `fix.shared_edits`, where fixes share an edit) to the JSON `entries` of `findings`
    (same order); a .py file's fix without them gets its range's edit."""
    own, shared = fix_edits(findings, project) if project is not None else ({}, {})
    for entry, f in zip(entries, findings):
        if entry["fix"] is None:
            continue
        edits = own.get(_key(f))
        if edits is None and entry["fix"]["range"] is not None and not f.cell:  # a cell's range is not the file's
            edits = [{"range": entry["fix"]["range"], "content": entry["fix"]["replacement"]}]
        entry["fix"]["edits"] = edits or []
        together = shared.get(_key(f))
        if together is not None:
            others = [{"rule": k[0], "cell": k[1] or None, "line": k[2], "column": k[3]} for k in together["with"]]
            entry["fix"]["shared_edits"] = {"with": others, "edits": together["edits"]}
