from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    cst,
    expr,
    rewrite_reference,
)

RANGE = {"torch.range"}


def _int(node) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value.replace("_", ""), 0)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value.replace("_", ""), 0)
    return None


class TorchRange(ReferenceRule):
    """`torch.range` -> `torch.arange`, keeping the inclusive end and the float dtype.

    What it finds: calls of and references to `torch.range`.

    Why: UserWarning: "torch.range is deprecated and will be removed in a
    future release because its behavior is inconsistent with Python's range
    builtin. Instead, use torch.arange, which produces values in [start, end)."
    `torch.range` includes `end` and always returns the default float dtype
    (float32): `torch.range(0, 3)` is `tensor([0., 1., 2., 3.])`.

    Example:
        torch.range(0, 10)
        # becomes
        torch.arange(0, 11, dtype=torch.get_default_dtype())

    Fix safety: unsafe, and offered only when start, end and (positive) step are
    integer literals: then `end + 1` keeps the inclusive end exactly and
    `dtype=torch.get_default_dtype()` keeps the float result. (TorchFix
    rewrote to `torch.arange(0, 11)`, which returns int64.) With float or
    computed bounds the element count can differ by one through rounding, so
    those calls are reported without a fix.

    Validation: none.
    """

    code = "ADV718"
    name = "torch-range"
    message = "`torch.range` is deprecated (UserWarning); use `torch.arange` (half-open, and integer-typed for integer bounds)"
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("range",)
    names = RANGE

    valid = [
        "import torch\nx = torch.arange(0, 10)",
        "for i in range(10):\n    pass",
        "def f(torch):\n    return torch.range(0, 1)",
    ]
    invalid = [
        Example(
            "import torch\nx = torch.range(0, 10)\n",
            fixed="import torch\nx = torch.arange(0, 11, dtype=torch.get_default_dtype())\n",
        ),
        Example(
            "import torch\nx = torch.range(1, 10, 3, dtype=torch.int64)\n",
            fixed="import torch\nx = torch.arange(1, 11, 3, dtype=torch.int64)\n",
        ),
        Example("import torch\nx = torch.range(0, 1, 0.1)\n"),
        Example("from torch import range as trange\nx = trange(0, n)\n"),
    ]

    def on_call(self, node, old) -> None:
        self.report(node, replacement=self._rewrite(node))

    def _rewrite(self, node):
        positional = [a for a in node.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in node.args if a.keyword is not None}
        if (
            any(a.star for a in node.args)
            or not 2 <= len(positional) <= 3
            or set(keywords) - {"dtype", "device", "requires_grad", "layout"}
        ):
            return None
        values = [_int(a.value) for a in positional]
        if any(v is None for v in values) or (len(values) == 3 and values[2] <= 0):
            return None
        func, _ = rewrite_reference(self.ctx.resolver, node.func, "torch.arange")
        if not isinstance(node.func, cst.Attribute):
            return None  # `from torch import range`: keep it simple and report only
        base = self.ctx.code_for(func).rpartition(".")[0]  # the spelling of `torch` here
        parts = [self.ctx.code_for(positional[0].value), str(values[1] + 1)]
        if len(values) == 3:
            parts.append(self.ctx.code_for(positional[2].value))
        rest = [f"{k}={self.ctx.code_for(a.value)}" for k, a in keywords.items()]
        if "dtype" not in keywords:
            rest.insert(0, f"dtype={base}.get_default_dtype()")
        new = expr(f"{self.ctx.code_for(func)}({', '.join(parts + rest)})")
        return new.with_changes(lpar=node.lpar, rpar=node.rpar)
