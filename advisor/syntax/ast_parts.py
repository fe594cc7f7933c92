"""The parts of `ast` nodes that `advisor.syntax.references.collect` reads: dotted names, calls by the name
they call, the shapes some rules look for (a list index, `f(x) - 1`), and calls that import a module."""

from __future__ import annotations

import ast
from typing import Any

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


def record_call(
    call: ast.Call, calls: dict[str, list[ast.Call]], into: dict[str, list[ast.Call]] | None = None
) -> None:
    func = call.func
    if type(func) is ast.Call and type(func.func) is ast.Name and func.func.id == "getattr" and len(func.args) == 2:
        name = func.args[1]  # `getattr(m, "f")(x)` calls `f`
        key = name.value if type(name) is ast.Constant and isinstance(name.value, str) else None
    else:
        key = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
    if key is None:
        return
    (calls if into is None else into).setdefault(key, []).append(call)  # `into`: only for the shape it was seen in


def slice_call(node: ast.AST) -> bool:
    return type(node) is ast.Call and type(node.func) is ast.Name and node.func.id == "slice"  # type: ignore[attr-defined]


LISTY = (ast.List, ast.ListComp, ast.BinOp)  # what may make a list: a display, a comprehension, a sum or product


def warning_list(index: ast.AST, names: set[str]) -> bool:
    """May the subscript index `index` be a list ADV130 reports: a display or comprehension (or a sum or product of
    them) holding an item torch reads as a tuple's (a slice, None, `...`, a sequence; rules/callpattern/
    _index_lists.py, `list_info`)? A list of ints or names is advanced indexing. The names in it go into `names`:
    the rule follows them to the lists bound to them (`References.slice_list_indexed`)."""
    t = type(index)
    if t is ast.List:
        return any(_warning_item(e) for e in index.elts)  # type: ignore[attr-defined]
    if t is ast.ListComp:
        return _warning_item(index.elt)  # type: ignore[attr-defined]
    if t is ast.BinOp:  # `[slice(None)] * n`, `head + [None]`: both sides, for their names
        left = warning_list(index.left, names)  # type: ignore[attr-defined]
        return warning_list(index.right, names) or left  # type: ignore[attr-defined]
    if t is ast.Name:
        names.add(index.id)  # type: ignore[attr-defined]
    return False


def _warning_item(node: ast.AST) -> bool:
    """An item that `item_kind` (_index_lists.py) does not read as a possible int."""
    t = type(node)
    if t is ast.Constant:
        return node.value is None or node.value is Ellipsis  # type: ignore[attr-defined]
    if t is ast.IfExp:
        return _warning_item(node.body) or _warning_item(node.orelse)  # type: ignore[attr-defined]
    return t is ast.List or t is ast.Tuple or slice_call(node) or (t is ast.Name and node.id == "Ellipsis")  # type: ignore[attr-defined]


def holds_slice(node: ast.AST) -> bool:
    """Is a `slice(...)` call anywhere in `node`?"""
    return any(slice_call(n) for n in ast.walk(node))


def list_value(node: ast.Assign | ast.AnnAssign, values: dict[str, list[ast.expr]]) -> None:
    """A list bound to a name (`idx = [slice(None)] * n`, `idx = list(shape)`) or a value stored into one
    (`idx[d] = slice(a, b)`), by that name, for `slice_list_indexed` (ADV130 follows a name only where
    every value bound to it is a list: `idx = slice(a, b)` is no list)."""
    value: Any = node.value
    listy = _may_be_list(value, True)
    targets: list[Any] = node.targets if type(node) is ast.Assign else [node.target]  # type: ignore[union-attr]
    for t in targets:
        stored = type(t) is ast.Subscript
        if stored:
            t = t.value
        if type(t) is ast.Name and (stored or listy):
            values.setdefault(t.id, []).append(value)


def _may_be_list(value: Any, whole: bool) -> bool:
    """May ADV130 read the `ast` value as a list (`list_info` in rules/callpattern/_index_lists.py: a display, a
    comprehension, `list(...)`, a sum of lists, a list times a number; a name only inside a sum or product)? Not a
    sum with a tuple in it (`shape[:-1] + (slice(None),)`)."""
    t = type(value)
    if t is ast.List or t is ast.ListComp:
        return True
    if t is ast.Call:
        return type(value.func) is ast.Name and value.func.id == "list"
    if t is ast.Name:
        return not whole
    if t is not ast.BinOp:
        return False
    op, left, right = type(value.op), value.left, value.right
    if op is ast.Add:
        return _may_be_list(left, False) and _may_be_list(right, False)
    return op is ast.Mult and _may_be_list(left if type(left) in (ast.List, ast.Name) else right, False)


def slice_list_indexed(names: set[str], values: dict[str, list[ast.expr]], calls: dict[str, list[ast.Call]]) -> bool:
    """Does a value bound or stored (`list_value`), appended or inserted to one of the index `names` hold a
    `slice(...)`? (`calls`: by the last name they call, as `References.calls`.)"""
    if not names or "slice" not in calls:
        return False
    held = [v for n in names for v in values.get(n, ())]
    for call in (*calls.get("append", ()), *calls.get("insert", ())):
        func = call.func
        if type(func) is ast.Attribute and type(func.value) is ast.Name and func.value.id in names:
            held += [*call.args, *(k.value for k in call.keywords)]
    return any(holds_slice(v) for v in held)


def record_import(node: ast.Import | ast.ImportFrom, refs: Any, aliases: dict[str, set[str]], stars: list[str]) -> None:
    """The names an import binds (aliases), the modules it names (into `References` `refs`), and `from m import *`
    modules."""
    if isinstance(node, ast.Import):
        for a in node.names:
            if a.asname:
                aliases.setdefault(a.asname, set()).add(a.name)
                if a.asname != a.name.rsplit(".", 1)[-1]:
                    refs.renamed.add(a.name)
                    refs.asnames.setdefault(a.asname, set()).add(a.name)
            else:
                head = a.name.split(".")[0]
                aliases.setdefault(head, set()).add(head)
            refs.imports.add(a.name)
    elif node.level and any(a.name == "*" for a in node.names):
        stars.append("." * node.level + (node.module or ""))  # `from .evo_norm import *`: as names.NameResolver
    elif node.level == 0 and node.module:
        for a in node.names:
            if a.name == "*":
                stars.append(node.module)
                continue
            q = f"{node.module}.{a.name}"
            aliases.setdefault(a.asname or a.name, set()).add(q)
            if a.asname and a.asname != a.name:
                refs.renamed.add(q)
                refs.asnames.setdefault(a.asname, set()).add(q)
            refs.imports.add(q)


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
