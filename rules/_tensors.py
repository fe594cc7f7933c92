"""Values known to be torch tensors, for rules about Tensor methods (ADV150, ADV151).

A method name such as `.rename(...)` or `.resize(...)` is shared with pandas, PIL and many
others, so such a rule reports a call only when its receiver is certainly a tensor:

- the result of a torch factory call (`torch.zeros(2, 3).rename(None)`);
- a name bound, in the current function (or module) scope, to such a call (`x = torch.randn(4)`),
  as `rules._bound.BoundNames` tracks it: any other assignment to the name forgets it;
- a parameter of the current function annotated `torch.Tensor` (however imported).

Anything else (an attribute, a parameter without that annotation, a name from an enclosing
function) is unknown and never reported.

`in_probe()` says whether the walk is in the body of a `try` that catches AttributeError or
TypeError (or everything): `try: x = x.rename(None) except AttributeError: pass` is written for
both old and new torch, and is left alone like a version gate (advisor.analysis.compat marks
the other shape, an old API in the handler).
"""

from __future__ import annotations

from typing import Any

from advisor.rule import cst

from ._bound import BoundNames

# torch functions that always return a tensor (the common ways code makes one).
FACTORIES = tuple(
    f"torch.{f}"
    for f in (
        "zeros ones empty full rand randn randint randperm tensor as_tensor from_numpy arange linspace "
        "logspace eye zeros_like ones_like empty_like full_like rand_like randn_like randint_like stack cat "
        "Tensor FloatTensor LongTensor"
    ).split()
)
_LEAVES = frozenset(f.rpartition(".")[2] for f in FACTORIES)  # checked before resolving a callee's name
TENSOR_TYPES = ("torch.Tensor",)
_PROBE_ERRORS = {"AttributeError", "TypeError", "Exception", "BaseException"}


class KnownTensors(BoundNames):
    bound_calls = FACTORIES

    @classmethod
    def may_know_tensors(cls, refs: Any) -> bool:
        """Can any value of the module be known a tensor: does it name a factory or `torch.Tensor` (no string)?"""
        return refs.refers_to_any((*FACTORIES, *TENSOR_TYPES), strings=False)

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._probing: list[bool] = []  # one per enclosing try body or except handler, innermost last

    def visit_Try(self, node: Any) -> None:
        self._probing.append(any(_catches_probe(h.type) for h in node.handlers))

    def leave_Try(self, node: Any) -> None:
        self._probing.pop()

    def visit_ExceptHandler(self, node: Any) -> None:
        self._probing.append(False)

    def leave_ExceptHandler(self, node: Any) -> None:
        self._probing.pop()

    def in_probe(self) -> bool:
        return bool(self._probing) and self._probing[-1]

    def visit_FunctionDef(self, node: Any) -> None:
        super().visit_FunctionDef(node)
        params = node.params
        for p in (*params.posonly_params, *params.params, *params.kwonly_params):
            if p.annotation is not None and self.match(p.annotation.annotation, TENSOR_TYPES):
                self._frames[-1][p.name.value] = ("torch.Tensor", p)

    def visit_Assign(self, node: Any) -> None:
        """Bound after the value is read (`leave_Assign`): in `x = x.rename(None)` the call's `x` is the old one."""

    def leave_Assign(self, node: Any) -> None:
        super().visit_Assign(node)

    def bound_call(self, value: Any) -> str | None:
        return self.match(value.func, FACTORIES) if _factory_leaf(value) else None

    def is_tensor(self, node: Any) -> bool:
        """`node` certainly evaluates to a torch tensor."""
        if isinstance(node, cst.Call):
            return _factory_leaf(node) and self.match(node.func, FACTORIES) is not None
        return self.bound(node) is not None


def _catches_probe(caught: Any) -> bool:
    """An `except` clause that catches AttributeError or TypeError (a bare `except:` too)."""
    if caught is None:
        return True
    names = [e.value for e in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
    return any(isinstance(n, cst.Name) and n.value in _PROBE_ERRORS for n in names)


def _factory_leaf(node: Any) -> bool:
    """A call whose callee is spelled `...zeros(...)` / `randn(...)` (a factory's name, before resolving it)."""
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else None
    return name in _LEAVES
