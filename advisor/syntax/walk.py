"""A read-only traversal of a LibCST tree, ~4x faster than `Module.visit`.

LibCST's own visitor rebuilds every node on the way back up, even for a
read-only `CSTVisitor`. Scanning never changes the tree, so we walk the
dataclass fields directly, with an explicit stack (no recursion limit).

Visitors are duck-typed like `libcst.BatchableCSTVisitor`: `get_visitors()`
returns `visit_<Node>`, `leave_<Node>`, `visit_<Node>_<field>` and
`leave_<Node>_<field>` methods. A `visit_<Node>` returning False skips the
node's children (for every visitor in the batch). Optional `before_visit` /
`after_leave` hooks see every node.

`on_error(fn, node, exc)`, when given, receives what a visitor method raises, and the walk goes
on (an error in one rule loses that rule's view of one node, never the file). Without it the
exception propagates. Try blocks cost nothing until they catch (CPython 3.11+).
"""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from typing import Any, Callable, Iterable

from advisor.core.lazy import cst

_FIELDS: dict[type, tuple[str, ...]] = {}
_IS_NODE: dict[type, bool] = {}  # isinstance() against LibCST's ABC is slow; cache per type

_ENTER, _LEAVE, _ENTER_FIELD, _LEAVE_FIELD = range(4)

# Tokens and whitespace: leaves (or trees of leaves) that most walks have no visitor for. They are about
# half of a LibCST tree's nodes; a walk with no visitor for one of these classes does not enter it.
_TOKEN_NAMES = frozenset(
    {
        "Comma", "Dot", "Colon", "Semicolon", "AssignEqual", "LeftParen", "RightParen", "LeftSquareBracket",
        "RightSquareBracket", "LeftCurlyBrace", "RightCurlyBrace", "ImportStar", "Asynchronous", "Newline",
        "EmptyLine", "TrailingWhitespace", "Comment", "SimpleWhitespace", "ParenthesizedWhitespace",
    }
)  # fmt: skip
_OPERATOR_BASES = ("BaseBinaryOp", "BaseBooleanOp", "BaseCompOp", "BaseUnaryOp", "BaseAugOp")


def _is_token(t: type) -> bool:
    return t.__name__ in _TOKEN_NAMES or issubclass(t, tuple(getattr(cst, b) for b in _OPERATOR_BASES))


# Walks (and `nodes_of` searches) that started at a whole module: the analysis makes one per file,
# tests/analysis/test_one_walk.py counts them.
MODULE_WALKS = [0]


def _is_node_class(t: type) -> bool:
    node = _IS_NODE.get(t)
    if node is None:
        node = _IS_NODE[t] = issubclass(t, cst.CSTNode)
    return node


def _fields(cls: type) -> tuple[str, ...]:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


# The fields that hold only tokens and whitespace, by name, in every LibCST node class that has them (from LibCST's
# own annotations: tests/analysis/test_walk_fields.py). A walk that enters no token reads none of them: two
# fields in three of a LibCST node, each a `getattr` and a test for nothing.
_TOKEN_FIELDS = frozenset(
    {
        "asynchronous", "colon", "comma", "comment", "dot", "empty_lines", "equal", "first_colon", "first_line",
        "footer", "header", "last_line", "lbrace", "lbracket", "leading_lines", "leading_whitespace",
        "lines_after_decorators", "lpar", "newline", "operator", "rbrace", "rbracket", "relative", "rpar",
        "second_colon", "semicolon", "separator", "trailing_comma", "trailing_whitespace",
    }
)  # fmt: skip
_NODE_FIELDS: dict[type, tuple[str, ...]] = {}


def _node_fields(cls: type) -> tuple[str, ...]:
    """`cls`'s fields less those that hold only tokens and whitespace."""
    names = _NODE_FIELDS.get(cls)
    if names is None:
        names = _NODE_FIELDS[cls] = tuple(
            f for f in _fields(cls) if f not in _TOKEN_FIELDS and not f.startswith("whitespace")
        )
    return names


def _enters_tokens(names: Iterable[str]) -> bool:
    """Does a walk subscribed to `names` (node classes, `Class_field`) enter a token or whitespace?"""
    return any(_is_token(c) for c in (getattr(cst, n, None) for n in names) if isinstance(c, type))


def _dispatch(visitors: Iterable[Any]) -> tuple[dict[str, list], dict[str, list], dict[str, set[str]]]:
    """The visitors' methods by node class (`visit`, `leave`), and the fields each node class has hooks on."""
    visit: dict[str, list] = defaultdict(list)
    leave: dict[str, list] = defaultdict(list)
    field_hooks: dict[str, set[str]] = defaultdict(set)
    for v in visitors:
        for name, fn in v.get_visitors().items():
            kind, _, rest = name.partition("_")
            (visit if kind == "visit" else leave)[rest].append(fn)
            if "_" in rest:
                cls, _, field = rest.partition("_")
                field_hooks[cls].add(field)
    return visit, leave, field_hooks


class _Ways:
    """One walk's way through each node class: its visitors' hooks and the fields it enters, worked out on first
    sight of the class (`plans`: one lookup a node), and which classes it enters at all (`entered`)."""

    def __init__(self, visitors: Iterable[Any]) -> None:
        self.visit, self.leave, self.field_hooks = _dispatch(visitors)
        self.subscribed = set(self.visit) | set(self.leave)
        self.fields_of = _fields if _enters_tokens(self.subscribed) else _node_fields
        # class -> (visit hooks, leave hooks, hooked fields, the fields last first: the stack pops them in order)
        self.plans: dict[type, tuple[tuple, tuple, set[str] | None, tuple[str, ...]]] = {}
        self.entered: dict[type, bool] = {}  # class -> entered (a node, and not a token no one watches)

    def plan_of(self, t: type) -> tuple[tuple, tuple, set[str] | None, tuple[str, ...]]:
        name, hooked = t.__name__, self.field_hooks.get(t.__name__)
        fields = tuple(reversed(_fields(t) if hooked else self.fields_of(t)))
        plan = self.plans[t] = (tuple(self.visit.get(name, ())), tuple(self.leave.get(name, ())), hooked, fields)
        return plan

    def enters(self, t: type) -> bool:
        known = self.entered[t] = _is_node_class(t) and not (_is_token(t) and t.__name__ not in self.subscribed)
        return known


def walk(
    root: Any,
    visitors: Iterable[Any],
    before_visit: Callable[[Any], bool] | None = None,
    after_leave: Callable[[Any], None] | None = None,
    parents: dict[int, Any] | None = None,
    on_error: Callable[[Any, Any, Exception], None] | None = None,
) -> None:
    """`parents`, when given, receives id(child) -> parent for every node entered (advisor.analysis.facts).
    `before_visit(node)` before a node's visitors; where it returns True, `after_leave(node)` after its leavers."""
    if type(root) is cst.Module:
        MODULE_WALKS[0] += 1

    ways = _Ways(visitors)
    plans, plan_of, entered, enters = ways.plans, ways.plan_of, ways.entered, ways.enters
    stack: list[tuple[int, Any, Any]] = [(_ENTER, root, None)]
    push = stack.append
    while stack:
        kind, node, field = stack.pop()
        if kind == _ENTER:
            visits, leaves, hooked, fields = plans.get(type(node)) or plan_of(type(node))
            scoped = before_visit is not None and before_visit(node)
            descend = True
            for fn in visits:
                try:
                    if fn(node) is False:
                        descend = False
                except Exception as e:
                    if on_error is None:
                        raise
                    on_error(fn, node, e)
            if scoped or leaves:  # a node no one leaves goes on the stack once
                push((_LEAVE, node, scoped))
            if not descend:
                continue
            for name in fields:
                if hooked and name in hooked:
                    push((_LEAVE_FIELD, node, name))
                value = getattr(node, name)
                t = type(value)
                known = entered.get(t)
                if known is None:
                    known = enters(t)
                if known:
                    push((_ENTER, value, None))
                    if parents is not None:
                        parents[id(value)] = node
                elif t is list or t is tuple:
                    for child in reversed(value):
                        known = entered.get(type(child))
                        if known is None:
                            known = enters(type(child))
                        if known:
                            push((_ENTER, child, None))
                            if parents is not None:
                                parents[id(child)] = node
                if hooked and name in hooked:
                    push((_ENTER_FIELD, node, name))
        elif kind == _LEAVE:
            for fn in plans[type(node)][1]:
                try:
                    fn(node)
                except Exception as e:
                    if on_error is None:
                        raise
                    on_error(fn, node, e)
            if field:  # its before_visit said so (the field slot holds that, for a _LEAVE)
                after_leave(node)  # type: ignore[misc]
        elif kind == _ENTER_FIELD:
            # (field hooks are rare: one helper call each is cheap)
            _call(ways.visit.get(f"{type(node).__name__}_{field}", ()), node, on_error)
        else:
            _call(ways.leave.get(f"{type(node).__name__}_{field}", ()), node, on_error)


def _call(fns: Iterable[Callable[[Any], Any]], node: Any, on_error: Callable | None) -> None:
    for fn in fns:
        try:
            fn(node)
        except Exception as e:
            if on_error is None:
                raise
            on_error(fn, node, e)


def nodes_of(root: Any, *types: type, skip: dict[type, tuple[str, ...] | None] | None = None) -> list[Any]:
    """Every node of `types` in `root`'s subtree, `root` included (order unspecified).

    `skip`: node class -> the fields not searched below such a node (None: none of them), for a search that
    knows where its nodes cannot be (no statement inside an expression) or must not be looked for (a nested
    scope). The order of what is found is the same as without it, less what is skipped."""
    if type(root) is cst.Module:
        MODULE_WALKS[0] += 1
    # Per node class, as in `walk` (`isinstance` against LibCST's ABCs is slow): is it one of `types`, and is it
    # entered at all. Tokens and whitespace hold only tokens and whitespace: entered only when one is looked for.
    wanted: dict[type, bool] = {}
    entered: dict[type, bool] = {}
    tokens = _finds_tokens(types)

    def enters(t: type) -> bool:
        known = entered[t] = _is_node_class(t) and (tokens or not _is_token(t))
        return known

    found = []
    stack = [root]
    while stack:
        node = stack.pop()
        t = type(node)
        hit = wanted.get(t)
        if hit is None:
            hit = wanted[t] = issubclass(t, types)
        if hit:
            found.append(node)
        fields = _fields(t) if tokens else _node_fields(t)
        if skip is not None and t in skip:
            cut = skip[t]
            if cut is None:
                continue
            fields = tuple(f for f in fields if f not in cut)
        for name in fields:
            value = getattr(node, name)
            vt = type(value)
            inside = entered.get(vt)
            if inside is None:
                inside = enters(vt)
            if inside:
                stack.append(value)
            elif vt is list or vt is tuple:
                for v in value:
                    inside = entered.get(type(v))
                    if inside is None:
                        inside = enters(type(v))
                    if inside:
                        stack.append(v)
    return found


@functools.lru_cache(maxsize=None)
def _finds_tokens(types: tuple[type, ...]) -> bool:
    """Can a node of one of `types` be a token or whitespace (`Comment`, `CSTNode`, a base of `Comma`)?"""
    import libcst

    classes = [c for c in vars(libcst).values() if isinstance(c, type) and issubclass(c, cst.CSTNode)]
    return any(issubclass(c, t) for c in classes if _is_token(c) for t in types)
