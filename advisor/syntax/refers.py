"""Does one statement, or one node, refer to a rule's targets? The per-statement form of what
`advisor.syntax.references.collect` records for a whole module (slices and fragments keep the statements that do)."""

from __future__ import annotations

import ast

from advisor.syntax import ast_parts
from advisor.syntax.references import References, children_into, name_bases


def refers_within(node: ast.AST, refs: References, targets: frozenset[str], attributes: frozenset[str]) -> bool:
    """Does the statement `node` refer to one of `targets` (as `collect` would record it: a dotted name through the
    file's imports, a string, `getattr(m, "name")`, an import), or use one of `attributes`?"""
    stack = [node]  # ast.walk, without its generator and the fields that hold no name (as collect)
    while stack:
        sub = stack.pop()
        t = type(sub)
        children_into(sub, stack)
        if t in _REFERRING and refers_at(sub, refs, targets, attributes):
            return True
    return False


def refers_at(node: ast.AST, refs: References, targets: frozenset[str], attributes: frozenset[str]) -> bool:
    """Does `node` itself (not its children) refer to one of `targets`, or use one of `attributes`?"""
    t = type(node)
    if t is ast.Attribute:
        if node.attr in attributes:  # type: ignore[attr-defined]
            return True
        parts = ast_parts.chain(node)
    elif t is ast.Name:
        parts = [node.id]  # type: ignore[attr-defined]
    elif t is ast.Constant:
        return type(node.value) is str and node.value in targets  # type: ignore[attr-defined]
    elif t is ast.Call:
        found: list[list[str]] = []
        ast_parts.getattr_chain(node, found)  # type: ignore[arg-type]
        parts = found[0] if found else None
    elif t is ast.Import or t is ast.ImportFrom:
        return _imports_any(node, targets)  # type: ignore[arg-type]
    else:
        return False
    if parts is None:
        return False
    rest = "".join(f".{p}" for p in parts[1:])
    return any(base + rest in targets for base in name_bases(parts[0], refs.bindings, refs.stars))


_REFERRING = frozenset({ast.Attribute, ast.Name, ast.Constant, ast.Call, ast.Import, ast.ImportFrom})


def _imports_any(node: ast.Import | ast.ImportFrom, targets: frozenset[str]) -> bool:
    """Does the import name one of `targets`, or something inside one (`import m.gone.sub`)?"""
    if type(node) is ast.Import:
        names = [a.name for a in node.names]
    elif node.level == 0 and node.module:  # type: ignore[union-attr]
        names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]  # type: ignore[union-attr]
    else:
        return False
    return any(name in targets or any(name.startswith(t + ".") for t in targets) for name in names)
