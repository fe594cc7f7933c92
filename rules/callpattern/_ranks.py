"""The rank of a tensor where the code states it (ADV139): a factory with a literal shape, or a name bound once,
in the same function, to one. Anything else is unknown (None): precision first."""

from __future__ import annotations

from typing import Any, Callable

from advisor.rule import cst, get_arg, nodes_of

SHAPED = ("zeros", "ones", "empty", "rand", "randn")  # torch.zeros(2, 3) / torch.zeros((2, 3)) / size=(2, 3)
FILLED = ("full",)  # torch.full((2, 3), v)
ONE_D = ("arange", "linspace", "logspace")
FACTORIES = tuple(f"torch.{n}" for n in (*SHAPED, *FILLED, *ONE_D, "eye", "tensor"))
# In-place methods that change a tensor's rank: a name they are called on has no known rank.
RESHAPING = {"unsqueeze_", "squeeze_", "resize_", "resize_as_", "set_", "as_strided_", "t_", "transpose_"}


def _ints(node: Any) -> bool:
    return isinstance(node, cst.Integer)


def _literal_depth(node: Any) -> int | None:
    """The rank of `torch.tensor(<literal>)`: 0 for a number, 1 + the items' for a list or tuple of equal ones."""
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    if isinstance(node, (cst.Integer, cst.Float)) or (isinstance(node, cst.Name) and node.value in ("True", "False")):
        return 0
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        if any(isinstance(e, cst.StarredElement) for e in node.elements):
            return None
        depths = {_literal_depth(e.value) for e in node.elements}
        if len(depths) == 1 and None not in depths:
            return depths.pop() + 1
    return None


def _shape_rank(call: Any) -> int | None:
    size = get_arg(call, "size")
    given = [a for a in call.args if a.keyword is None]
    if size is None and len(given) == 1 and isinstance(given[0].value, (cst.Tuple, cst.List)):
        size = given[0]
    if size is not None:
        seq = size.value
        if isinstance(seq, (cst.Tuple, cst.List)) and all(_ints(e.value) for e in seq.elements):
            return len(seq.elements)
        return None
    if given and all(not a.star and _ints(a.value) for a in given):
        return len(given)
    return None


def rank_of_call(call: Any, match: Callable[[Any], str | None]) -> int | None:
    name = match(call.func)
    if name is None or any(a.star for a in call.args):
        return None
    short = name.rpartition(".")[2]
    if short in SHAPED:
        return _shape_rank(call)
    if short in FILLED:
        size = get_arg(call, "size", 0)
        seq = size.value if size is not None else None
        ok = isinstance(seq, (cst.Tuple, cst.List)) and all(_ints(e.value) for e in seq.elements)
        return len(seq.elements) if ok else None
    if short in ONE_D:
        return 1
    if short == "eye":
        return 2
    data = get_arg(call, "data", 0)
    return _literal_depth(data.value) if data is not None else None


def bindings(function: Any) -> dict[str, list[Any]]:
    """name -> the values bound to it in `function` (None for a binding whose value is not a plain `name = value`)."""
    found: dict[str, list[Any]] = {}
    for node in nodes_of(
        function,
        cst.Assign,
        cst.AnnAssign,
        cst.AugAssign,
        cst.For,
        cst.AsName,
        cst.NamedExpr,
        cst.CompFor,
        cst.Param,
        cst.Global,
        cst.Nonlocal,
        cst.Del,
        cst.FunctionDef,
        cst.ClassDef,
        cst.Call,
    ):
        if isinstance(node, cst.Assign):
            plain = len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name)
            for t in node.targets:
                for n in nodes_of(t.target, cst.Name):
                    found.setdefault(n.value, []).append(node.value if plain else None)
        elif isinstance(node, cst.AnnAssign):
            for n in nodes_of(node.target, cst.Name):
                found.setdefault(n.value, []).append(node.value)
        elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            if node is not function:
                found.setdefault(node.name.value, []).append(None)
        elif isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in RESHAPING and isinstance(func.value, cst.Name):
                found.setdefault(func.value.value, []).append(None)
        else:
            target = getattr(node, "target", None) or getattr(node, "name", None) or node
            for n in nodes_of(target, cst.Name):
                found.setdefault(n.value, []).append(None)
    return found
