"""The parts of `ast` nodes that `advisor.syntax.references.collect` reads: dotted names, calls by the name
they call, the shapes some rules look for (a list index, `f(x) - 1`), and calls that import a module."""

from __future__ import annotations

import ast

# Calls that import a module by its string name and return it, lazy-import helpers included
# (`models, _ = optional_import("torchvision.models")` binds the first name); one list for this pass
# and advisor.syntax.names. A project adds its own: `[tool.advisor] lazy-import-helpers`.
IMPORTING_CALLS = ("importorskip", "import_module", "__import__", "optional_import", "lazy_import")
# Of those, the ones whose `name=` keyword is not an attribute of the module (`import_module(name, package)`);
# for the others, MONAI's `optional_import("torchvision", name="models")` binds `torchvision.models`.
FIRST_ARG_ONLY = ("importorskip", "import_module", "__import__")


def chain(node: ast.AST) -> list[str] | None:
    """The parts of a dotted name (`a.b.c`: a, b, c), or None for any other expression."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        parts.reverse()
        return parts
    return None


def is_one(node: ast.AST) -> bool:
    """A literal 1 or 1.0 (not `True`)."""
    return type(node) is ast.Constant and type(node.value) in (int, float) and node.value == 1  # type: ignore[attr-defined]


def record_call(call: ast.Call, calls: dict[str, list[ast.Call]], into: set[str] | None = None) -> None:
    func = call.func
    if type(func) is ast.Call and type(func.func) is ast.Name and func.func.id == "getattr" and len(func.args) == 2:
        name = func.args[1]  # `getattr(m, "f")(x)` calls `f`
        key = name.value if type(name) is ast.Constant and isinstance(name.value, str) else None
    else:
        key = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
    if key is None:
        return
    if into is not None:  # only the name, for the shape it was seen in
        into.add(key)
    else:
        calls.setdefault(key, []).append(call)


def slice_call(node: ast.AST) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "slice"  # type: ignore[attr-defined]


def index_evidence(node: ast.AST) -> bool:
    """Is `node` a sign of a list index (ADV130)? A subscript by a list, or a `slice(...)` put into a list."""
    if type(node) is ast.Subscript:
        index = node.slice  # type: ignore[attr-defined]
        if type(index) is ast.BinOp:
            return type(index.left) is ast.List or type(index.right) is ast.List
        return type(index) in (ast.List, ast.ListComp)
    if type(node) is ast.List:
        return any(slice_call(e) for e in node.elts)  # type: ignore[attr-defined]
    if type(node) is ast.ListComp:
        return slice_call(node.elt)  # type: ignore[attr-defined]
    args = node.args  # type: ignore[attr-defined]  # a Call: `idx.append(slice(a, b))`
    return bool(args) and slice_call(args[-1]) and type(node.func) is ast.Attribute  # type: ignore[attr-defined]


def getattr_chain(call: ast.Call, chains: list[list[str]]) -> None:
    func, args = call.func, call.args
    if type(func) is ast.Name and func.id == "getattr" and len(args) == 2 and not call.keywords:
        attr = args[1]
        if type(attr) is ast.Constant and isinstance(attr.value, str):
            parts = chain(args[0])
            if parts is not None:
                chains.append([*parts, attr.value])


def imported_module(call: ast.Call, calls: tuple[str, ...]) -> str | None:
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name in calls and call.args:
        first = call.args[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            attr = (
                next((k.value for k in call.keywords if k.arg == "name"), None) if name not in FIRST_ARG_ONLY else None
            )
            if isinstance(attr, ast.Constant) and isinstance(attr.value, str):  # `optional_import("m", name="a")`
                return f"{first.value}.{attr.value}"
            return first.value
    return None
