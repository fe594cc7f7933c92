"""Imports known to be unused, taken out as LibCST's RemoveImportsVisitor takes them out, without its machinery.

The visitor decides with a scope analysis which of the imports it is asked about nothing uses, then edits their
statements. Where the fixer already knows (advisor.fix.replace.classify: an import statement on its own, or a name
nothing in the file reads any more), only the edit is needed: the same edit, byte for byte (`leave_Import`,
`leave_ImportFrom` and the comment handling below are the visitor's, libcst 1.x), and neither the scope analysis nor
the import of `libcst.codemod` (0.3 CPU-s a process, its matchers) is paid for.
tests/fix/test_unimport.py holds the two to the same output.
"""

from __future__ import annotations

from typing import Any, Iterable

from advisor.core.lazy import cst
from advisor.syntax.names import dotted_name

Removal = tuple[str, "str | None", "str | None"]  # (module, name, asname): RemoveImportsVisitor's terms


def remove(node: Any, removals: Iterable[Removal]) -> Any:
    """`node` (a module, or a statement in one) with the imports of `removals` taken out: each an absolute import
    that nothing uses."""
    return node.visit(_Unimport(removals))


class _Unimport(cst.CSTTransformer):
    def __init__(self, removals: Iterable[Removal]) -> None:
        super().__init__()
        removals = list(removals)
        self.modules = {(module, asname) for module, name, asname in removals if name is None}
        self.objects = {(module, name, asname) for module, name, asname in removals if name is not None}

    def leave_Import(self, original: Any, updated: Any) -> Any:
        keep = [a for a in original.names if (a.evaluated_name, a.evaluated_alias) not in self.modules]
        if len(keep) == len(original.names):
            return updated
        if not keep:
            return cst.RemoveFromParent()
        if keep[-1] is not original.names[-1]:  # the last kept name loses its comma
            keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=keep)

    def leave_ImportFrom(self, original: Any, updated: Any) -> Any:
        names = original.names
        if isinstance(names, cst.ImportStar) or original.relative or original.module is None:
            return updated
        module = dotted_name(original.module)
        updates: dict[str, Any] = {}
        keep: list[Any] = []
        for alias in names:
            if (module, alias.evaluated_name, alias.evaluated_alias) not in self.objects:
                keep.append(alias)
                continue
            # The visitor hands a removed name's trailing comments to the name before it, or to the `(`.
            comma = alias.comma
            if isinstance(comma, cst.Comma):
                if keep:
                    prev = keep[-1]
                    if isinstance(prev.comma, cst.Comma):
                        after = _merge_whitespace_after(prev.comma.whitespace_after, comma.whitespace_after)
                        prev = prev.with_deep_changes(prev.comma, whitespace_after=after)
                    else:
                        prev = prev.with_changes(comma=comma)
                    keep[-1] = prev
                elif isinstance(updated.lpar, cst.LeftParen):
                    after = _merge_whitespace_after(updated.lpar.whitespace_after, comma.whitespace_after)
                    updates["lpar"] = updated.lpar.with_changes(whitespace_after=after)
        if keep == list(names):
            return updated
        if not keep:
            return cst.RemoveFromParent()
        if keep[-1] != names[-1]:
            keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=keep, **updates)


def _merge_whitespace_after(left: Any, right: Any) -> Any:
    if not isinstance(right, cst.ParenthesizedWhitespace):
        return left
    if not isinstance(left, cst.ParenthesizedWhitespace):
        return right
    return left.with_changes(empty_lines=tuple(line for line in right.empty_lines if line.comment is not None))
