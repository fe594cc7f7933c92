"""Code actions: which quick fixes and "apply all safe fixes" a range gets, and, for a client that cannot
resolve an action's edit later, the edits themselves.

A client with `codeAction/resolve` support gets an action's edit when the user picks it. A client without it
needs every edit in the reply, and one fixer run per action (an analysis and a parse each) made a whole-document
request on a 673-line buffer with 457 findings take 297 s, holding the one analysis worker. So the edits come
from one analysis per request (`adapter.fix_each`), at most EAGER_MAX quick fixes (the first in the range;
"apply all safe fixes" covers the rest), and are kept for the buffer's version, for the next request.
"""

from __future__ import annotations

from typing import Any, Sequence

from lsprotocol import types

from advisor.server import adapter, convert

FIX_ALL = "source.fixAll.advisor"
EAGER_MAX = 10  # quick fixes whose edits one reply computes for a client without codeAction/resolve


def wants(only: Sequence[str] | None, kind: str) -> bool:
    return not only or any(kind == k or kind.startswith(k + ".") for k in only)


def offers(
    analysis: adapter.Analysis, settings: Any, lines: convert.Lines, params: types.CodeActionParams, version: int
) -> list[tuple[types.CodeAction, dict]]:
    """The actions for `params.range` of a buffer at `version`, each with the data that finds its edit."""
    uri, only = params.text_document.uri, params.context.only
    out: list[tuple[types.CodeAction, dict]] = []
    if wants(only, types.CodeActionKind.QuickFix):
        for issue in analysis.issues:
            # Unsafe fixes are offered only where the project's config allows them (`unsafe-fixes = true`).
            if issue.fix is None or (issue.fix == "unsafe" and not settings.unsafe_fixes):
                continue
            diag = convert.diagnostic(lines, issue)
            if not convert.overlaps(diag.range, params.range):
                continue
            safety = "safe fix" if issue.fix == "safe" else "unsafe fix: may change behaviour, review it"
            action = types.CodeAction(
                title=f"advisor: fix {issue.code} {issue.name} ({safety})",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diag],
                is_preferred=issue.fix == "safe",
            )
            out.append((action, {"uri": uri, "version": version, "key": issue.key}))
    if (wants(only, FIX_ALL) if only else True) and any(i.fix == "safe" for i in analysis.issues):
        action = types.CodeAction(title="advisor: apply all safe fixes", kind=FIX_ALL)
        out.append((action, {"uri": uri, "version": version, "all": True}))
    return out


def eager(offered: list[tuple[types.CodeAction, dict]]) -> list[tuple[types.CodeAction, dict]]:
    """The actions whose edits go in the reply: the first EAGER_MAX quick fixes, and "apply all safe fixes"."""
    quick = [o for o in offered if "key" in o[1]][:EAGER_MAX]
    return quick + [o for o in offered if o[1].get("all")]


class Edits:
    """Per buffer, the fixed texts of its current version: by finding key, and "all"; None: no edit."""

    def __init__(self) -> None:
        self._by_uri: dict[str, tuple[int, dict]] = {}

    def of(self, uri: str, version: int) -> dict:
        """What is known for `uri` at `version` (an older version's edits are dropped)."""
        known = self._by_uri.get(uri)
        if known is None or known[0] != version:
            known = self._by_uri[uri] = (version, {})
        return known[1]

    def forget(self, uri: str) -> None:
        self._by_uri.pop(uri, None)


def missing(known: dict, chosen: list[tuple[types.CodeAction, dict]]) -> tuple[list, bool]:
    """(finding keys whose edits are not known yet, whether "all" is wanted and not known)."""
    keys = [data["key"] for _, data in chosen if "key" in data and tuple(data["key"]) not in known]
    return keys, any(data.get("all") for _, data in chosen) and "all" not in known


def with_edits(chosen, known: dict, uri: str, version: int, text: str, encoding: str) -> list[types.CodeAction]:
    """The chosen actions that have an edit, with it."""
    out = []
    for action, data in chosen:
        new = known.get("all") if data.get("all") else known.get(tuple(data["key"]))
        if new is not None:
            action.edit = convert.workspace_edit(uri, version, text, new, encoding)
            out.append(action)
    return out
