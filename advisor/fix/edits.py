"""Each JSON fix's complete edits: the node it replaces, and the imports it adds or leaves unused.

`fix.range` and `fix.replacement` are the replaced node alone; `advisor fix` also adds the imports a fix needs
and removes those it leaves unused. `fix.edits` holds every change one fix makes, computed by the fixer's own
edit step (advisor.fix.fixer.apply_reports), so a consumer that applies the edits of the fixes that do not
overlap, and scans again for the rest (as `advisor fix` does, pass after pass), gets `advisor fix`'s output.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from typing import Any

from advisor.core.findings import Finding
from advisor.core.lazy import reraise_interrupt
from advisor.fix.file_edits import FixableFile, edits_of, finding_key, fix_rules, fixable, from_plain, plain


def fix_edits(
    findings: list[Finding], project: Any, made: dict[str, list] | None = None
) -> tuple[dict[tuple, list[dict]], dict[tuple, dict]]:
    """({finding key: its fix's edits}, {finding key: the edits it makes together with others}) for the fixable
    findings of .py files and notebooks (a notebook's edits are in the .ipynb file's text).

    Only files with a fix are analysed again, with the rules that reported there, and only in the statements that
    hold the fixes where that gives the same edits (advisor.fix.slice_edits); the project's cache keeps each file's
    edits for the next run over the same file. `made`: {path: `ScanEdits.answer`}, the edits the scan's workers
    made from their own analysis, used where they are of the same findings.
    """
    wanted: dict[str, list[Finding]] = defaultdict(list)
    for f in findings:
        if fixable(f):
            wanted[f.path].append(f)
    own: dict[tuple, list[dict[str, Any]]] = {}
    shared: dict[tuple, dict] = {}
    store = _store(project) if wanted else None
    for path, found in wanted.items():
        try:
            mine, together = _file_edits(path, found, project, store, (made or {}).get(path))
        except Exception as e:  # unreadable now, or a notebook whose cells cannot be rewritten: no edits
            reraise_interrupt(e)
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


def _file_edits(path: str, fixable: list[Finding], project: Any, store: Any, made: list | None) -> tuple[dict, dict]:
    """One file's (own, shared) edits: from the cache when the file and its fixable findings are unchanged, else
    from the scan's worker (`made`) when it made them for these findings, else from an analysis made here."""
    from advisor.fix.imports import layout_of
    from advisor.run.cache import content_hash
    from advisor.run.loading import read_file

    keys = {finding_key(f) for f in fixable}
    mine = from_plain(made[1]) if made is not None and {tuple(k) for k in made[0]} == keys else None
    if store is None:
        return mine or _analysed(path, read_file(path), fixable, project, keys)
    st = os.stat(path)
    content = store.content_hash(path, st)
    data = None
    if content is None:
        data = read_file(path)
        content = content_hash(data)
    key_of = lambda content: content_hash(json.dumps([content, sorted(keys), layout_of(path)]).encode())  # noqa: E731
    digest = key_of(content)
    cached = store.get(path, digest)
    if cached is not None:
        return from_plain(cached)
    if mine is None:
        if data is None:  # the entry was for other findings: the file is read now
            data = read_file(path)
            content = content_hash(data)
            digest = key_of(content)
        mine = _analysed(path, data, fixable, project, keys)
    store.put(path, digest, plain(*mine), st, content)
    return mine


def _analysed(path: str, data: bytes, fixable: list[Finding], project: Any, keys: set[tuple]) -> tuple[dict, dict]:
    """The edits from an analysis of the file made here, with the rules that reported there."""
    return edits_of(
        FixableFile(path, data, fix_rules(fixable), project.settings, sorted({f.line for f in fixable})), keys
    )


def with_edits(
    entries: list[dict[str, Any]], findings: list[Finding], project: Any, made: dict[str, list] | None = None
) -> None:
    """Add `fix.edits` (and `fix.shared_edits`, where fixes share an edit) to the JSON `entries` of `findings`
    (same order); a .py file's fix without them gets its range's edit. `made`: see `fix_edits`."""
    own, shared = fix_edits(findings, project, made) if project is not None else ({}, {})
    for entry, f in zip(entries, findings):
        if entry["fix"] is None:
            continue
        edits = own.get(finding_key(f))
        if edits is None and entry["fix"]["range"] is not None and not f.cell:  # a cell's range is not the file's
            edits = [{"range": entry["fix"]["range"], "content": entry["fix"]["replacement"]}]
        entry["fix"]["edits"] = edits or []
        together = shared.get(finding_key(f))
        if together is not None:
            others = [{"rule": k[0], "cell": k[1] or None, "line": k[2], "column": k[3]} for k in together["with"]]
            entry["fix"]["shared_edits"] = {"with": others, "edits": together["edits"]}
