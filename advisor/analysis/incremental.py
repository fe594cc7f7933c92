"""An editor's next analysis of a buffer: only the top-level statement the edit changed is analysed again.

A language server analyses the whole buffer after every pause in typing, though an edit almost always
stays inside one function or class. Given the buffer's last analysis (same rules, same settings), an
edit that lies inside one top-level `def`/`class`, below its first line, is analysed as a slice that keeps
that statement (advisor.analysis.slices: every other statement a stub, imports and module-level
assignments verbatim); the other statements' findings are kept, moved by the lines the edit added or
removed. Anything else is analysed whole, as a scan would: an edit of imports, module-level statements,
a statement's header or decorators, suppression comments, or one that changes the file's candidate rules,
its identifiers, or a rule's need for the whole module.

The result is the scan's (tests/server/test_incremental.py compares them over random edits).
"""

from __future__ import annotations

import ast
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Any, Sequence

from advisor.analysis import slices
from advisor.analysis.analyse import SourceError, analyse, analyse_slice, analyse_source, decode, guard_tree
from advisor.analysis.positions import statement_starts
from advisor.analysis.suppressions import Suppressions
from advisor.core.findings import FileResult, Finding
from advisor.core.settings import Settings
from advisor.core.textlines import common_ends, split_lines
from advisor.rule import Rule

_KEEP = 32  # buffers remembered (an editor's open files)
_DIRECTIVE = ("advisor", "noqa", "type: ignore")  # an edit touching a suppression comment: analysed whole


@dataclass(frozen=True)
class _Last:
    key: tuple  # the rules and settings it was analysed with
    matching: tuple[str, ...]  # the rules whose cheap check (`may_match`) the file passed
    lines: list[str]
    identifiers: frozenset[str]
    whole: bool  # some candidate rule needed the whole module
    result: FileResult | None


_memo: OrderedDict[str, _Last] = OrderedDict()
_lock = threading.Lock()
stats = {"whole": 0, "statement": 0}  # how each analysis went (tests, benchmarks/bench_server.py)


def forget(path: str | None = None) -> None:
    with _lock:
        if path is None:
            _memo.clear()
        else:
            _memo.pop(path, None)


def analyse_edit(data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings) -> FileResult:
    """`data` analysed as `path`, reusing the last analysis of `path` where the edit allows (module doc)."""
    key = (tuple(r.code for r in rules), settings)
    with _lock:
        last = _memo.get(path)
    done = None
    if last is not None and last.key == key and not path.endswith(".ipynb"):
        done = _statement_only(data, path, rules, settings, last)
    result, state = done if done is not None else _whole(data, path, rules, settings, key)
    with _lock:
        _memo[path] = state
        _memo.move_to_end(path)
        while len(_memo) > _KEEP:
            _memo.popitem(last=False)
    return result


def _whole(data: bytes, path: str, rules, settings, key) -> tuple[FileResult, _Last]:
    stats["whole"] += 1
    if path.endswith(".ipynb"):
        result = analyse(data, path, rules, settings, sliced=True)[0]
        return result, _Last(key, (), [], frozenset(), True, result)
    state: list[_Last] = []

    def seen(text: str, refs: Any) -> None:  # the analysis's own parse: what the next edit compares against
        matching = tuple(r.code for r in rules if r.may_match(refs))
        whole = _reads_whole(rules, refs)
        lines = split_lines(text, keepends=True)
        state.append(_Last(key, matching, lines, frozenset(refs.identifiers()), whole, None))

    result = analyse_source(data, path, rules, settings, sliced=True, seen=seen)[0]
    if not state or result.errors:
        return result, _Last(key, (), [], frozenset(), True, result)
    return result, replace(state[0], result=result)


def _reads_whole(rules, refs: Any) -> bool:
    """Whether a rule reads more of the file than an edited statement's slice holds: the whole module, or evidence
    from other statements (`Rule.kept_lines`)."""
    return any(r.needs_whole_module(refs) or r.kept_lines(refs) for r in rules)


def _changed(old: list[str], new: list[str]) -> tuple[int, int, int]:
    """(lines in common at the start, at the end, and the change in the number of lines)."""
    head, tail = common_ends(old, new)
    return head, tail, len(new) - len(old)


def _statement_only(data: bytes, path: str, rules, settings, last: _Last) -> tuple[FileResult, _Last] | None:
    if last.whole or last.result is None or last.result.errors:
        return None
    try:
        text, _ = decode(data)
        tree, refs = guard_tree(text, path)
    except SourceError:
        return None
    lines = split_lines(text, keepends=True)
    head, tail, delta = _changed(last.lines, lines)
    first, end = head + 1, len(lines) - tail  # the edited lines, 1-based, of the new text (end < first: none)
    edited = "".join(lines[head : len(lines) - tail]) + "".join(last.lines[head : len(last.lines) - tail])
    if any(d in edited for d in _DIRECTIVE):
        return None
    rules = [r for r in rules if r.may_match(refs)]  # as the scan: the same rules as last time, or analysed whole
    if tuple(r.code for r in rules) != last.matching:
        return None
    if _reads_whole(rules, refs):
        return None
    identifiers = frozenset(refs.identifiers())
    if any(r.reads_identifiers for r in rules) and identifiers != last.identifiers:
        return None
    spans = slices.top_level(tree)
    if spans is None:
        return None
    # The one def/class whose first line (decorators included) comes before the edit and whose last comes after.
    inside = [s for s in spans if isinstance(s[2], slices.SCOPES) and s[0] < first and max(end, first) <= s[1]]
    if len(inside) != 1:
        return None
    start, stop, node = inside[0]
    stats["statement"] += 1
    found = _analyse_statement(text, tree, refs, identifiers, node, path, rules, settings)
    if found is None:
        return None
    old_start, old_stop = start, stop - delta
    kept = [f for f in last.result.findings if not old_start <= f.line <= old_stop]
    moved = [f if f.line < old_start else replace(f, line=f.line + delta, end_line=f.end_line + delta) for f in kept]
    result = FileResult(path, findings=sorted(moved + found.findings, key=Finding.sort_key), errors=found.errors)
    return result, _Last(last.key, last.matching, lines, identifiers, False, result)


def _analyse_statement(text: str, tree: ast.Module, refs: Any, identifiers, node: ast.stmt, path: str, rules, settings):
    """The findings of one top-level statement, from a slice that keeps it (and what every slice keeps)."""
    part = slices.plan_for(text, tree, rules, refs, node)
    result = FileResult(path)
    try:
        args = (*part, statement_starts(tree), text, path, rules, settings, identifiers, Suppressions(text), result)
        analyse_slice(*args, alias_names=refs.alias_names())
    except SourceError:
        return None
    return result
