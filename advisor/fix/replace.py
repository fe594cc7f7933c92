"""The fixer's edit step, cheap on large files: the replacement and the imports a fix may leave unused.

`replaced` rebuilds only the replaced nodes' ancestors (found through the analysis' one walk's parents), not
every node of the module. LibCST's RemoveImportsVisitor runs a scope analysis of the whole module, seconds per
call on a large file; `classify` tells from the file's `ast` which imports a fix surely leaves used (never asked
about: the visitor would keep them) and which it surely leaves unused (`remove_alone` hands the visitor only
their own statement). Anything less certain still goes to the visitor over the whole module, so the edits
are the same.
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Iterable, NamedTuple, Sequence

from advisor.core.lazy import cst
from advisor.fix import parking, unimport
from advisor.fix.name_uses import Span, Uses, char_position, inside, uses_of
from advisor.fix.unimport import Removal
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of


def imported_names(module: Any, resolver: Any, node: Any) -> list[Removal]:
    """(module, name, asname) of each import a replaced node referred to: RemoveImportsVisitor's terms.

    `from a.b import c [as d]` gives ("a.b", "c", "d"); `import a.b as c` gives ("a.b", None, "c").
    RemoveImportsVisitor removes one only where nothing else uses it any more.
    """
    aliased = _plain_import_aliases(module)
    out: list[Removal] = []
    for n in nodes_of(node, cst.Name):
        for q in resolver.qualnames(n):
            if q.startswith(("<", ".")):
                continue
            if aliased.get(n.value) == q:
                out.append((q, None, n.value))
            elif "." in q:
                mod, _, name = q.rpartition(".")
                out.append((mod, name, n.value if n.value != name else None))
    return out


def _plain_import_aliases(module: Any) -> dict[str, str]:
    """{alias: dotted module} of the module-level `import a.b as alias` statements."""
    out: dict[str, str] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for imp in stmt.body:
                if isinstance(imp, cst.Import):
                    for alias in imp.names:
                        if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                            out[alias.asname.name.value] = cst.Module([]).code_for_node(alias.name)
    return out


def replaced(module: Any, mapping: dict[Any, Any], parents: dict[int, Any] | None) -> Any:
    """`module` with each key node of `mapping` swapped for its value (nodes by identity)."""
    path: set[int] | None = {id(module)}
    for node in mapping:
        path = _ancestors(node, module, parents or {}, path) if path is not None else None
    return module.visit(_replacer(mapping, path))


def _ancestors(node: Any, module: Any, parents: dict[int, Any], into: set[int]) -> set[int] | None:
    """`into` with the ids of `node`'s ancestors; None when the walk's parents do not reach the module."""
    parent = parents.get(id(node))
    while parent is not None and parent is not module:
        into.add(id(parent))
        parent = parents.get(id(parent))
    return into if parent is module else None


def _replacer(mapping: dict[Any, Any], path: set[int] | None) -> Any:
    """A transformer swapping nodes by identity, entering only the nodes on their way down (`path`; None: every
    node)."""
    return _replacer_class()(mapping, path)


@functools.lru_cache(maxsize=1)
def _replacer_class() -> Any:
    """Made on first use: subclassing LibCST's transformer at import would load LibCST with this module; and made once
    (a class made per call is a cycle, its closure's nodes with it, that only the collector frees)."""

    class Replacer(cst.CSTTransformer):  # type: ignore[misc]
        def __init__(self, mapping: dict[Any, Any], path: set[int] | None) -> None:
            super().__init__()
            self.mapping, self.path = mapping, path

        def on_visit(self, node: Any) -> bool:
            return self.path is None or id(node) in self.path  # False: the subtree is kept as it is

        def on_leave(self, original_node: Any, updated_node: Any) -> Any:
            new = self.mapping.get(original_node)
            return updated_node if new is None else new

    return Replacer


class Classified(NamedTuple):
    used: set[Removal]
    unused: set[Removal]
    local: set[Removal]
    inside: set[Removal]  # local ones that nothing reads any more: their edit needs no scope analysis


def classify(
    text: str,
    removals: Iterable[Removal],
    spans: list[Span],
    replacements: Iterable[Any],
    memo: dict[Any, Any],
    starts: Sequence[int] | None = None,
) -> Classified:
    """(surely used, surely unused, local, inside): the removals that stay used, and those nothing uses any more, once the
    nodes at `spans` are replaced by `replacements`, as the file's `ast` shows it. Either needs the file's only
    import of that name, at module scope, and no other binding of it there; or no such import at all, which
    leaves nothing to remove (counted as used). Used: a load of the name at module
    scope outside `spans`, in no function, class or comprehension that binds it too. Unused: no `Name` of it
    outside `spans` or in `replacements`, and no string that holds it (an annotation or `__all__` LibCST would
    read). Local: the file's only import of that name, in a function or class, the name declared global nowhere
    and in no such string: what uses it is in the top-level statement around it, which RemoveImportsVisitor can
    decide alone (`remove_alone`); inside: a local one with no `Name` of it left, as for unused ones. Any other
    removal is none of these, and goes to RemoveImportsVisitor.

    `memo` keeps the file's pass over its `ast` for the next fix of the same file (JSON edits: one per fix); `starts`
    (the file's top-level statements' first lines, where known) lets it parse only the statements that name one."""
    wanted = set(removals)
    if not wanted:
        return Classified(set(), set(), set(), set())
    names = frozenset(asname or name or mod for mod, name, asname in wanted)
    if names not in memo:
        memo[names] = uses_of(text, names, starts)
    uses, lines = memo[names]
    if uses is None:
        return Classified(set(), set(), set(), set())
    new = list(replacements)
    known = all(isinstance(r, cst.CSTNode) for r in new)  # a sentinel (a removal, a flattening): unsure
    new_names = {name for r in new for name in _names_read(r)} if known else set()
    found = Classified(set(), set(), set(), set())
    used, unused, local = found.used, found.unused, found.local
    for removal in wanted:
        mod, name, asname = removal
        bound = asname or name or mod
        if not uses.imports.get(removal) and (name is None or name not in uses.relative_names):
            used.add(removal)  # no such import anywhere (the name came from `import a.b as c` in a function)
            continue
        if uses.imports.get(removal, 0) != 1:
            continue
        if removal in uses.nested_imports:
            if bound not in uses.globals and bound not in uses.in_strings and name not in uses.relative_names:
                outside = _outside(uses, lines, bound, spans)
                if known and bound not in new_names and not outside:
                    found.inside.add(removal)
                    continue
                # What still reads it: the loads outside the fix, and those inside a replaced node whose replacement
                # keeps reading the name there (it brings no lambda or comprehension of its own).
                kept = [s for s, r in zip(spans, new) if known and bound in _names_read(r) and not _scoped(r)]
                reads = outside + _within(uses, lines, bound, kept) if kept else outside
                (used if _read_in_own_scope(uses, removal, reads) else local).add(removal)
            continue
        if uses.module_binds.get(bound, 0) != 1 or bound in uses.globals:
            continue  # bound again at module scope, or from a function: which binding a load reads is unsure
        if name is not None and name in uses.relative_names:
            continue  # `from .x import name`: LibCST may match it to the same module
        outside = _outside(uses, lines, bound, spans)
        if any(isinstance(n.ctx, ast.Load) and n in uses.loads for n in outside):
            used.add(removal)
        elif known and not outside and bound not in new_names and bound not in uses.in_strings:
            unused.add(removal)
    return found


def _scoped(node: Any) -> bool:
    """Does a replacement hold a scope of its own (where a name it reads may be another binding)?"""
    return any(True for _ in nodes_of(node, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))


def _read_in_own_scope(uses: Uses, removal: Removal, names: list[ast.Name]) -> bool:
    """Does one of `names` (those the fixed code still has) load the name after the import, in the function or class
    it is in and in no scope nested there? Then it reads the import: the visitor's scope analysis keeps it too (it
    reads a scope's loads in order: one before the import, in a loop too, is not a use). A load in a nested scope is
    left to the visitor."""
    if removal not in uses.nested_in:
        return False
    scope, at = uses.nested_in[removal]
    left = {id(n) for n in names}
    return any(
        id(n) in left and scopes and scopes[-1] is scope and (n.lineno, n.col_offset) > at for n, scopes in uses.reads
    )


def _within(uses: Uses, lines: list[str], bound: str, spans: list[Span]) -> list[ast.Name]:
    """The `Name`s of `bound` inside these spans."""
    return [n for n in uses.every.get(bound, ()) if inside(char_position(lines, n), spans)]


def _outside(uses: Uses, lines: list[str], bound: str, spans: list[Span]) -> list[ast.Name]:
    """The `Name`s of `bound` outside the replaced spans."""
    return [n for n in uses.every.get(bound, ()) if not inside(char_position(lines, n), spans)]


def _names_read(node: Any) -> set[str]:
    """The names `node` may read: its `Name`s, less an attribute's name and a keyword argument's."""
    not_read = {id(n.attr) for n in nodes_of(node, cst.Attribute)}
    not_read |= {id(a.keyword) for a in nodes_of(node, cst.Arg) if a.keyword is not None}
    return {n.value for n in nodes_of(node, cst.Name) if id(n) not in not_read}


def remove_alone(
    module: Any, removals: set[Removal], nested: set[Removal] | None = None, inside: set[Removal] | None = None
) -> Any | None:
    """`module` with these imports removed as RemoveImportsVisitor removes them: each unused one from its own import
    statement, or, for those of `inside` (an import in a function or class that nothing reads any more), from the
    top-level statement around it, as the visitor would edit them (advisor.fix.unimport, without the visitor); for
    those of `nested` (an import in a function or class: `classify`'s local ones), the visitor over the top-level
    statement around it, where all that can use it is. None when one of them is in no statement of the module's own
    body (then the caller runs the visitor over the whole module)."""
    parked = parking.park(module)
    body = list(parked.body)
    found: dict[int, list[Removal]] = {}
    for removal in removals:
        enclosed = (nested and removal in nested) or (inside and removal in inside)
        holds = _holds_import if enclosed else _imports
        index = next((i for i, stmt in enumerate(body) if holds(stmt, removal)), None)
        if index is None:
            return None
        found.setdefault(index, []).append(removal)
    for index in sorted(found, reverse=True):
        alone = parked.with_changes(body=[body[index]])
        if nested and not nested.isdisjoint(found[index]):
            alone = _visitor(alone, found[index])
        else:  # a name nothing uses: the visitor's edit, without its scope analysis
            alone = unimport.remove(alone, found[index])
        body[index : index + 1] = list(alone.body)
    return parking.unpark(parked.with_changes(body=body))


def _visitor(module: Any, removals: list[Removal]) -> Any:
    """LibCST's RemoveImportsVisitor over `module`, asked about `removals`."""
    from libcst.codemod import CodemodContext  # ~0.3 CPU-s to import (its matchers): only where it must decide
    from libcst.codemod.visitors import RemoveImportsVisitor

    context = CodemodContext()
    for mod, name, asname in sorted(removals, key=str):
        RemoveImportsVisitor.remove_unused_import(context, mod, name, asname)
    return RemoveImportsVisitor(context).transform_module(module)


def _imports(stmt: Any, removal: Removal) -> bool:
    """Whether `stmt`, a statement of the module's body, is a simple statement line that imports `removal`."""
    return isinstance(stmt, cst.SimpleStatementLine) and any(_names(small, removal) for small in stmt.body)


def _holds_import(stmt: Any, removal: Removal) -> bool:
    """Whether `stmt`, a statement of the module's body, holds an import of `removal` anywhere inside."""
    return any(_names(small, removal) for small in nodes_of(stmt, cst.Import, cst.ImportFrom))


def _names(small: Any, removal: Removal) -> bool:
    """Whether the import statement `small` imports `removal`."""
    mod, name, asname = removal
    if isinstance(small, cst.ImportFrom) and name is not None and not small.relative and small.module:
        if isinstance(small.names, cst.ImportStar) or dotted_name(small.module) != mod:
            return False
        return any(a.evaluated_name == name and a.evaluated_alias == asname for a in small.names)
    if isinstance(small, cst.Import) and name is None:
        return any(a.evaluated_name == mod and a.evaluated_alias == asname for a in small.names)
    return False
