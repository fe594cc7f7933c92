"""Shared base of the companion-library rules (ADV91x torchvision, ADV95x torchaudio).

`CompanionRefs` flags references to removed or deprecated APIs of a companion library,
one finding per failing site: an import of a removed module or name is reported at the
import (the names it binds are then not reported again); otherwise the outermost dotted
reference (`torchaudio.info(...)` with `import torchaudio`). An entry of `apis` that names
a module covers everything under it. Names resolve through imports and scopes, so another
library's `io.StreamReader` or a local `info()` is never flagged.

Windows are in the companion library's versions (`library` says which): `since`,
`deprecated_in`, `removed_in`, `undeprecated_in` as in the phase-2 contract. A rule whose
entries have different windows passes each entry's window in the finding's `data`.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from advisor.rule import Applicability, Rule, Window, cst, dotted_name, nodes_of


def lookup(table: dict, quals: set[str]) -> tuple[str, str] | None:
    """(table key, qualname) for the first qualname that is a key or lies under one."""
    for q in sorted(quals):
        parts = q.split(".")
        for i in range(len(parts), 0, -1):
            key = ".".join(parts[:i])
            if key in table:
                return key, q
    return None


class CompanionRefs(Rule):
    undeprecated_in: ClassVar[str | None] = None
    # qualified name (a module covers what is under it) -> message
    apis: ClassVar[dict[str, str]] = {}
    # per-entry windows where they differ from the class's: key -> {"deprecated_in": ..., "removed_in": ...}
    entry_windows: ClassVar[dict[str, dict]] = {}  # per-entry overrides (not `windows()`, the policy's list)
    # qualnames under an `apis` key that another rule reports (and fixes)
    exclude: ClassVar[frozenset[str]] = frozenset()

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._seen: set = set()

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        pool = refs.imports | refs.qualnames
        return lookup(cls.apis, pool) is not None

    @classmethod
    def text_gate(cls) -> Any:
        # A reference to an entry or to something under it (the text gate follows a dotted name from the entry's last
        # part), an import naming one, or a string constant that is one or starts with one (`qualnames` has strings).
        keys = "|".join(re.escape(k) for k in sorted(cls.apis))
        return tuple(sorted(cls.apis)), (), (rf"[\"'](?:{keys})[.\"']",), (), ()

    @classmethod
    def metadata(cls) -> dict[str, Any]:
        return {**super().metadata(), "undeprecated_in": cls.undeprecated_in}

    def found(self, node: Any, key: str, qualname: str) -> None:
        """Report one site. Rules override this for fixes."""
        if qualname in self.exclude:
            return
        facts = self.facts(key)
        self.report(node, self.apis[key].format(name=qualname), data=facts, window=Window(**facts["window"]))

    def facts(self, key: str) -> dict:
        window = {
            "since": self.since,
            "deprecated_in": self.deprecated_in,
            "removed_in": self.removed_in,
            "undeprecated_in": self.undeprecated_in,
            **self.entry_windows.get(key, {}),
        }
        return {"library": self.library, "api": key, "window": window}

    def visit_Import(self, node: Any) -> None:
        self._seen.update(nodes_of(node, cst.Attribute, cst.Name))
        for alias in node.names:
            hit = lookup(self.apis, {dotted_name(alias.name)})
            if hit:
                self.found(alias, *hit)

    def visit_ImportFrom(self, node: Any) -> None:
        self._seen.update(nodes_of(node, cst.Attribute, cst.Name))
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module)
        if isinstance(node.names, cst.ImportStar):
            hit = lookup(self.apis, {module})
            if hit:
                self.found(node, *hit)
            return
        whole = lookup(self.apis, {module})  # the module itself is gone: one finding for the statement
        if whole:
            self.found(node.module, *whole)
        for alias in node.names:
            hit = lookup(self.apis, {f"{module}.{dotted_name(alias.name)}"})
            if hit and (whole is None or hit[0] != whole[0]):
                self.found(alias, *hit)

    def visit_Attribute(self, node: Any) -> None:
        self._reference(node)

    def visit_Name(self, node: Any) -> None:
        self._reference(node)

    def _reference(self, node: Any) -> None:
        if node in self._seen:
            return
        hit = lookup(self.apis, self.qualnames(node))
        if hit is None:
            return
        base = node
        while isinstance(base, cst.Attribute):
            base = base.value
            self._seen.add(base)
        # A base bound by a flagged import was reported at the import.
        if isinstance(base, cst.Name) and lookup(self.apis, self.qualnames(base)):
            return
        self.found(node, *hit)


class NoopCalls(Rule):
    """Base: calls of `noops` (qualname -> message) that do nothing; a call that is a statement is deleted."""

    noops: ClassVar[dict[str, str]] = {}
    # qualnames whose deletion is only behaviour-preserving from a later version than `since`: unsafe fix
    unsafe_noops: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.targets = tuple(cls.noops)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._statements: dict = {}  # call node -> (statement line, replacement)

    def visit_Module(self, node: Any) -> None:
        self._bodies(node.body)

    def visit_IndentedBlock(self, node: Any) -> None:
        self._bodies(node.body)

    def _bodies(self, body: Any) -> None:
        for line in body:
            if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
                continue
            stmt = line.body[0]
            if isinstance(stmt, cst.Expr) and isinstance(stmt.value, cst.Call):
                keep = (
                    len(body) == 1
                    or line.trailing_whitespace.comment is not None
                    or any(ll.comment is not None for ll in line.leading_lines)
                )
                new = line.with_changes(body=[cst.Pass()]) if keep else cst.FlattenSentinel([])
                self._statements[stmt.value] = (line, new)

    def visit_Call(self, node: Any) -> None:
        qualname = self.match(node.func, self.noops)
        if qualname is None:
            return
        if node in self._statements:
            line, new = self._statements[node]
            unsafe = Applicability.UNSAFE if qualname in self.unsafe_noops else None
            self.report(node, self.noops[qualname], replacement=new, fix_node=line, applicability=unsafe)
        else:
            self.report(node, self.noops[qualname])
