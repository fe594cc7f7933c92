"""The family's cheap checks: from the `ast` calls a file's `References` holds (`refs.calls`, by the last part of
what each calls), could a rule of this family report anything here? Each answers True wherever the rule could,
so a file is parsed with LibCST only for a call of the shape the rule reports, not for a word it contains.

Each mirrors its rule's own test on the LibCST call (the same arguments read the same way), less what needs
names resolved: a call of `np.zeros` counts as one of `torch.zeros`.
"""

from __future__ import annotations

import ast
from typing import Iterable

from advisor.rule import callee_targets

from ._ranks import FILLED, ONE_D, SHAPED


def starred(call: ast.Call) -> bool:
    """Does the call pass `*args` or `**kwargs`?"""
    return any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords)


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def arg(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    """As `advisor.rule.get_arg`: the `name=` keyword, or the positional argument at `position` (before any `*`)."""
    given = _keyword(call, name)
    if given is not None or position is None:
        return given
    for i, a in enumerate(call.args):
        if type(a) is ast.Starred:
            return None
        if i == position:
            return a
    return None


def number(node: ast.expr) -> bool:
    """A number literal as LibCST has it (`cst.Integer` or `cst.Float`): not `True`, not `1j`."""
    return type(node) is ast.Constant and type(node.value) in (int, float)


def _int(node: ast.expr) -> bool:
    return type(node) is ast.Constant and type(node.value) is int


def lacks_keyword(calls: list[ast.Call], keyword: str) -> bool:
    """Does one of `calls` pass no `keyword=` (or `keyword=None`) and no `**kwargs`?"""
    for call in calls:
        if any(k.arg is None for k in call.keywords):
            continue
        given = _keyword(call, keyword)
        if given is None or (type(given) is ast.Constant and given.value is None):
            return True
    return False


# -- ranks (ADV139), as `_ranks.rank_of_call` reads them --------------------------------------------------------


def _depth(node: ast.expr) -> int | None:
    if type(node) is ast.UnaryOp:
        node = node.operand
    if type(node) is ast.Constant and type(node.value) in (int, float, bool):
        return 0
    if type(node) in (ast.List, ast.Tuple) and node.elts:  # type: ignore[attr-defined]
        if any(type(e) is ast.Starred for e in node.elts):  # type: ignore[attr-defined]
            return None
        depths = {_depth(e) for e in node.elts}  # type: ignore[attr-defined]
        if len(depths) == 1 and None not in depths:
            return depths.pop() + 1  # type: ignore[operator]
    return None


def _sequence_rank(seq: ast.expr | None) -> int | None:
    if type(seq) in (ast.Tuple, ast.List) and all(_int(e) for e in seq.elts):  # type: ignore[union-attr]
        return len(seq.elts)  # type: ignore[union-attr]
    return None


def rank(short: str, call: ast.Call) -> int | None:
    """The rank of the tensor `torch.<short>(...)` makes, where the call states it."""
    if any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    if short in SHAPED:
        size = _keyword(call, "size")
        if size is None and len(call.args) == 1 and type(call.args[0]) in (ast.Tuple, ast.List):
            size = call.args[0]
        if size is not None:
            return _sequence_rank(size)
        return len(call.args) if call.args and all(_int(a) for a in call.args) else None
    if short in FILLED:
        return _sequence_rank(arg(call, "size", 0))
    if short in ONE_D:
        return 1
    if short == "eye":
        return 2
    data = arg(call, "data", 0)
    return _depth(data) if data is not None else None


def _callee(call: ast.Call) -> str | None:
    """The last part of what `call` calls (`torch.zeros` -> "zeros"; `getattr(torch, "zeros")` too)."""
    func = call.func
    if type(func) is ast.Attribute:
        return func.attr  # type: ignore[attr-defined]
    if type(func) is ast.Name:
        return func.id  # type: ignore[attr-defined]
    if type(func) is ast.Call and type(func.func) is ast.Name and func.func.id == "getattr" and len(func.args) == 2:
        name = func.args[1]
        return name.value if type(name) is ast.Constant and isinstance(name.value, str) else None
    return None


def _def_spans(refs) -> list[tuple[int, int]]:
    """The lines of each function (its decorators too), the shortest first: the first that holds a line is the
    innermost function there."""
    spans = [
        (min([d.lineno, *(x.lineno for x in d.decorator_list)]), d.end_lineno) for ds in refs.defs.values() for d in ds
    ]
    return sorted(spans, key=lambda s: s[1] - s[0])


def receiver_ranks(refs, factories: Iterable[str]) -> list[tuple[str, int]] | None:
    """(attribute, rank) for each `.T`/`.H`/`.mT`/`.mH` (and `.adjoint()`, as "adjoint") whose receiver is a
    factory call that states a rank, or a name assigned one in the function it is in; None where an import
    renames a factory (any call could be one)."""
    if not refs.renamed.isdisjoint(factories):
        return None
    shorts = {q.rpartition(".")[2] for q in factories}
    pairs = list(refs.transposed)
    for call in refs.calls.get("adjoint", ()):
        if type(call.func) is ast.Attribute and type(call.func.value) in (ast.Name, ast.Call) and not call.args:
            pairs.append(("adjoint", call.func.value))
    found = []
    factories = frozenset(factories)
    spans: list[tuple[int, int]] | None = None
    for attr, receiver in pairs:
        if type(receiver) is ast.Call:
            calls = [receiver]
        else:  # the rule follows a name in the function it is in (its bindings there, nested functions' too)
            calls = refs.assigned.get(receiver.id, ())
            if calls:
                spans = _def_spans(refs) if spans is None else spans
                span = next((s for s in spans if s[0] <= receiver.lineno <= s[1]), None)
                calls = [c for c in calls if span is not None and span[0] <= c.lineno <= span[1]]
        for call in calls:
            if callee_targets(refs, call.func, factories) == set():  # `np.ones(...)`, a local `ones`
                continue
            short = _callee(call)
            r = rank(short, call) if short in shorts else None
            if r is not None:
                found.append((attr, r))
    return found
