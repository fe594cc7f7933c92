"""What a list used as an index holds, and what it indexes, read from the function it is in (ADV130).

What torch does with a list index (`treatSequenceAsTuple` in torch/csrc/autograd/python_variable_indexing.cpp,
checked on 2.13): a list of fewer than 32 items is read as a tuple, with the warning, when one item is a
tensor, a sequence, a slice, None or Ellipsis; a list of ints (or bools) is advanced indexing and never warns.
Statically, an item is known to warn when it is written `slice(...)` (the builtin), `None`, `...` or
`Ellipsis` (WARN), or a list or tuple display (NESTED); names and calls are unknown (an int, or a tensor).

A name is followed only inside the function that uses it, only when a `slice(...)` is put into it
(None or `...` alone are not followed: `[None] * n` is a common placeholder, and the scan's
prefilter, `References.slice_list_indexed`, looks for slices), and only when every binding there is an
assignment (`=`, `+=` of a list) of something that is a list: a parameter, a loop variable, a `global`
or a `tuple(...)` anywhere makes it unknown. Items stored later (`idx[d] = slice(a, b)`,
`idx.append(None)`) count, but make the list "warns only when that statement ran" (not `always`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from advisor.rule import cst, nodes_of

WARN, NESTED, LIST = "warn", "nested", "list"  # strongest first
_RANK = {WARN: 0, NESTED: 1, LIST: 2}
MAX_ITEMS = 32  # torch reads a longer list as a tensor index, silently
# Subscripted values that are plainly not tensors: made by these libraries (NumPy warns about its own
# arrays itself, and NumPy >= 1.23 reads a nested list as a fancy index), or their accessors.
OTHER_MODULES = ("numpy", "jax", "tensorflow", "cupy", "pandas", "h5py", "zarr", "dask", "xarray", "scipy", "typing")
OTHER_MODULES += ("typing_extensions", "collections", "builtins")
OTHER_ATTRS = frozenset({"loc", "iloc", "at", "iat", "vindex", "oindex", "blocks", "shape"})
OTHER_METHODS = frozenset({"numpy", "tolist", "to_numpy", "values", "keys", "items", "split"})
OTHER_BUILTINS = frozenset({"list", "tuple", "dict", "set", "str", "bytes", "range", "sorted", "zip", "enumerate"})
OTHER_ANNOTATIONS = frozenset({"list", "tuple", "dict", "set", "str", "bytes", "int", "float", "List", "Dict"})
OTHER_ANNOTATIONS |= {"Tuple", "Sequence", "Mapping", "ndarray", "NDArray", "DataFrame", "Series", "ArrayLike"}


@dataclass(frozen=True)
class ListInfo:
    kind: str  # WARN, NESTED or LIST
    always: bool  # every value it can hold has a warning item (no branch, no later store, never empty)
    literal: bool  # one display of ints, `slice(...)`, None and `...` only, fewer than 32: torch reads tuple(it)


def _builtin(name: Any, qualnames: Callable[[Any], set[str]], spelled: str) -> bool:
    return isinstance(name, cst.Name) and name.value == spelled and not qualnames(name)


def item_kind(node: Any, qualnames: Callable[[Any], set[str]]) -> tuple[str, bool, bool]:
    """(kind, certain, literal) of one item of a list display; kind LIST for an item that may be an int."""
    if isinstance(node, cst.Ellipsis) or (isinstance(node, cst.Name) and node.value == "None"):
        return WARN, True, True
    if _builtin(node, qualnames, "Ellipsis"):
        return WARN, True, True
    if isinstance(node, cst.Call) and _builtin(node.func, qualnames, "slice"):
        return WARN, True, True
    if isinstance(node, (cst.List, cst.Tuple)):
        return NESTED, True, False
    if isinstance(node, cst.IfExp):
        body, orelse = item_kind(node.body, qualnames), item_kind(node.orelse, qualnames)
        kind = min(body[0], orelse[0], key=_RANK.__getitem__)
        return kind, body[0] == orelse[0] == kind and body[1] and orelse[1], False
    is_int = isinstance(node, cst.Integer) or (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    )
    return LIST, False, is_int


def _display(node: Any, qualnames: Callable[[Any], set[str]]) -> ListInfo:
    kinds = []
    literal = 0 < len(node.elements) < MAX_ITEMS
    for el in node.elements:
        if isinstance(el, cst.StarredElement):
            literal = False
            continue
        kind, certain, lit = item_kind(el.value, qualnames)
        kinds.append((kind, certain))
        literal = literal and lit
    kind = min((k for k, _ in kinds), key=_RANK.__getitem__, default=LIST)
    always = kind != LIST and any(k == kind and c for k, c in kinds) and len(node.elements) < MAX_ITEMS
    return ListInfo(kind, always, literal and kind == WARN)


def strongest(infos: list[ListInfo]) -> str:
    return min((i.kind for i in infos), key=_RANK.__getitem__)


def list_info(node: Any, qualnames: Callable[[Any], set[str]], name_info: Callable[[Any], Any]) -> ListInfo | None:
    """What the list expression `node` holds, or None when it is not provably a list."""
    if isinstance(node, cst.List):
        return _display(node, qualnames)
    if isinstance(node, cst.ListComp):
        kind, _, _ = item_kind(node.elt, qualnames)
        return ListInfo(kind, False, False)  # may be empty: `x[[]]` is an empty advanced index
    if isinstance(node, cst.Name):
        return name_info(node)
    if isinstance(node, cst.Call) and _builtin(node.func, qualnames, "list"):
        return ListInfo(LIST, False, False)
    if not isinstance(node, cst.BinaryOperation):
        return None
    left, right = node.left, node.right
    if isinstance(node.operator, cst.Add):
        parts = [list_info(left, qualnames, name_info), list_info(right, qualnames, name_info)]
        if None in parts:
            return None
        kind = strongest(parts)  # type: ignore[arg-type]
        return ListInfo(kind, any(p.always and p.kind == kind for p in parts), False)  # type: ignore[union-attr]
    if isinstance(node.operator, cst.Multiply):
        seq, times = (left, right) if isinstance(left, (cst.List, cst.Name)) else (right, left)
        info = list_info(seq, qualnames, name_info)
        if info is None or list_info(times, qualnames, name_info) is not None:
            return None
        count = int(times.value, 0) if isinstance(times, cst.Integer) else None
        always = info.always and count is not None and 0 < count * len(getattr(seq, "elements", ())) < MAX_ITEMS
        return ListInfo(info.kind, always, info.literal and always)
    return None


class Bindings:
    """The bindings of one function's (or lambda's) own names, and the items stored into them."""

    def __init__(self, scope: Any) -> None:
        self.values: dict[str, list[Any]] = {}  # name -> bound values (None: bound otherwise)
        self.augmented: dict[str, list[tuple[Any, Any]]] = {}  # name -> [(operator, value)]
        self.stored: dict[str, list[Any]] = {}  # name -> items stored into it
        self.annotations: dict[str, Any] = {}  # parameter -> its annotation
        params = getattr(scope, "params", None)
        if params is not None:
            every = [*params.posonly_params, *params.params, *params.kwonly_params]
            every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
            for p in every:
                self._unknown(p.name)
                if p.annotation is not None:
                    self.annotations[p.name.value] = p.annotation.annotation
        body = scope.body if not isinstance(scope, cst.Module) else scope
        self._collect(body)

    def _unknown(self, name: Any) -> None:
        if isinstance(name, cst.Name):
            self.values.setdefault(name.value, []).append(None)

    def _target(self, target: Any, value: Any) -> None:
        if isinstance(target, cst.Name):
            self.values.setdefault(target.value, []).append(value)
        elif isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.stored.setdefault(target.value.value, []).append(value)  # `idx[d] = slice(a, b)`
        elif isinstance(target, (cst.Tuple, cst.List, cst.StarredElement)):
            for n in _names(target):
                self._unknown(n)

    def _collect(self, root: Any) -> None:
        # nodes_of is the fast read-only walk (LibCST's `children` rebuilds them), in one search that does not
        # enter nested scopes: a def's body and parameters, a class's body, a lambda or a comprehension.
        comprehensions = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
        cut: dict[type, tuple[str, ...] | None] = {cst.FunctionDef: ("body", "params"), cst.ClassDef: ("body",)}
        cut.update((t, None) for t in (cst.Lambda, *comprehensions))
        kinds = (cst.Assign, cst.AnnAssign, cst.NamedExpr, cst.AugAssign, cst.For, cst.AsName, cst.Global, cst.Nonlocal)
        kinds += (cst.Del, cst.Import, cst.ImportFrom, cst.Call, cst.MatchAs, cst.MatchStar)
        if type(root) in cut and cut[type(root)] is None:
            return  # the scope is a lambda's or comprehension's own expression: nothing of it binds here
        found = nodes_of(root, cst.FunctionDef, cst.ClassDef, *kinds, skip=cut)
        for node in found:
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self._unknown(node.name)  # a def or class of this scope binds its name here
        for node in found:
            if not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self._binding(node)

    def _binding(self, node: Any) -> None:
        if isinstance(node, cst.Assign):
            for t in node.targets:
                self._target(t.target, node.value)
        elif isinstance(node, cst.AnnAssign) and node.value is not None:
            self._target(node.target, node.value)
        elif isinstance(node, cst.NamedExpr):
            self._target(node.target, node.value)
        elif isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name):
            self.augmented.setdefault(node.target.value, []).append((node.operator, node.value))
        elif isinstance(node, (cst.For, cst.CompFor)):
            for n in _names(node.target):
                self._unknown(n)
        elif isinstance(node, cst.AsName):
            for n in _names(node.name):
                self._unknown(n)
        elif isinstance(node, (cst.Global, cst.Nonlocal)):
            for item in node.names:
                self._unknown(item.name)
        elif isinstance(node, cst.Del):
            for n in _names(node.target):
                self._unknown(n)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                bound = alias.asname.name if alias.asname is not None else alias.name
                self._unknown(bound if isinstance(bound, cst.Name) else _head(bound))
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and isinstance(node.func.value, cst.Name)
        ):
            if node.func.attr.value in ("append", "insert") and node.args:
                self.stored.setdefault(node.func.value.value, []).append(node.args[-1].value)
        elif isinstance(node, (cst.MatchAs, cst.MatchStar)) and node.name is not None:
            self._unknown(node.name)


def _names(target: Any) -> list[Any]:
    return [n for n in _walk(target) if isinstance(n, cst.Name)]


def _walk(node: Any) -> list[Any]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if not isinstance(n, cst.Attribute):  # `a.b = ...` binds no name
            stack.extend(n.children)
    return out


def _head(node: Any) -> Any:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node


class Judge:
    """What the lists and subscripted values of one scope hold (its `Bindings`, built on first use)."""

    def __init__(self, scope: Any, qualnames: Callable[[Any], set[str]]) -> None:
        self.scope = scope  # a FunctionDef or Lambda; None: names are not followed (module level)
        self.qualnames = qualnames
        self._bindings: Bindings | None = None
        self._busy: set[str] = set()

    @property
    def bindings(self) -> Bindings | None:
        if self._bindings is None and self.scope is not None:
            self._bindings = Bindings(self.scope)
        return self._bindings

    def index(self, node: Any) -> ListInfo | None:
        return list_info(node, self.qualnames, self.name_info)

    def name_info(self, name: Any) -> ListInfo | None:
        b, n = self.bindings, name.value
        values = b.values.get(n) if b is not None else None
        if b is None or not values or None in values or n in self._busy:
            return None
        self._busy.add(n)
        try:
            infos = [self.index(v) for v in values]
            for op, v in b.augmented.get(n, ()):
                if isinstance(op, cst.AddAssign):
                    infos.append(self.index(v))
                elif not isinstance(op, cst.MultiplyAssign):
                    return None
        finally:
            self._busy.discard(n)
        if None in infos or not any(self._slices(v) for v in [*values, *b.stored.get(n, ())]):
            return None  # a name's list must hold a `slice(...)`: None or `...` alone is not followed
        stored = [item_kind(v, self.qualnames)[0] for v in b.stored.get(n, ())]
        kind = min([i.kind for i in infos] + stored, key=_RANK.__getitem__)  # type: ignore[union-attr]
        changed = bool(stored or b.augmented.get(n))
        always = not changed and all(i.always and i.kind == kind for i in infos)  # type: ignore[union-attr]
        return ListInfo(kind, always, always and len(infos) == 1 and infos[0].literal)  # type: ignore[union-attr]

    def _slices(self, node: Any) -> bool:
        return any(_builtin(c.func, self.qualnames, "slice") for c in nodes_of(node, cst.Call))

    def base(self, node: Any) -> str | None:
        """ "tensor", "other" (plainly not a tensor) or None (may be a tensor) for a subscripted value."""
        if isinstance(node, (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.SetComp, cst.DictComp)):
            return "other"
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer)):
            return "other"
        if isinstance(node, cst.Attribute):
            return "other" if node.attr.value in OTHER_ATTRS else _library(self.qualnames(node))
        if isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value in OTHER_METHODS:
                return "other"
            if isinstance(func, cst.Name) and func.value in OTHER_BUILTINS and not self.qualnames(func):
                return "other"
            return _library(self.qualnames(func))
        if isinstance(node, cst.Name):
            return self._name_base(node)
        return None

    def _name_base(self, name: Any) -> str | None:
        imported = {q for q in self.qualnames(name) if not q.startswith("<")}
        if imported:
            return _library(imported)
        b, n = self.bindings, name.value
        if b is None or not b.values.get(n) or n in self._busy:
            return None
        self._busy.add(n)
        try:
            kinds = {self.annotation(b.annotations.get(n)) if v is None else self.base(v) for v in b.values[n]}
        finally:
            self._busy.discard(n)
        return "other" if "other" in kinds else "tensor" if kinds == {"tensor"} else None

    def annotation(self, node: Any) -> str | None:
        if node is None:
            return None
        if isinstance(node, cst.Subscript):
            head = node.value.attr.value if isinstance(node.value, cst.Attribute) else getattr(node.value, "value", "")
            if head not in ("Optional", "Union"):
                return self.annotation(node.value)
            parts = [e.slice.value for e in node.slice if isinstance(e.slice, cst.Index)]
            return _either({self.annotation(p) for p in parts})
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            return _either({self.annotation(node.left), self.annotation(node.right)})
        if isinstance(node, cst.Name) and node.value == "None":
            return "none"
        if isinstance(node, (cst.Name, cst.Attribute)):
            quals = self.qualnames(node)
            if any(q.startswith("torch.") and q.endswith("Tensor") for q in quals):
                return "tensor"
            last = node.attr.value if isinstance(node, cst.Attribute) else node.value
            return "other" if last in OTHER_ANNOTATIONS else _library(quals)
        return None


def _either(kinds: set[str | None]) -> str | None:
    kinds.discard("none")
    return kinds.pop() if len(kinds) == 1 else None


def _library(quals: set[str]) -> str | None:
    if any(q == "torch" or q.startswith("torch.") for q in quals):
        return "tensor"
    if any(q.split(".")[0] in OTHER_MODULES for q in quals):
        return "other"
    return None
