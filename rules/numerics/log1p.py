from __future__ import annotations

from advisor.rule import ALSO_NEEDED, Applicability, Example, Rule, Severity, calls_to, cst, rewrite_reference

from ._numerics import bare, plus_one_call, plus_one_operand, sole


def _one(node) -> bool:
    return type(node).__name__ == "Constant" and type(node.value) in (int, float) and node.value == 1


class LogOnePlus(Rule):
    """`torch.log(1 + x)` loses precision for small `x`; `torch.log1p(x)` does not.

    What it finds: `torch.log(1 + x)` and `torch.log(x + 1)` with a literal one and no
    other argument (TorchFix TOR106).

    Why: for |x| much smaller than 1, `1 + x` rounds away most of `x` before the log
    is taken (in float32, `1 + 1e-8 == 1`). `torch.log1p` computes log(1 + x)
    without forming `1 + x` (documented in `torch.log1p`). Nothing warns or breaks:
    this is advice.

    Example:
        y = torch.log(1 + x)
        # becomes
        y = torch.log1p(x)

    Fix safety: unsafe. The result changes in the last bits (that is the point), and
    `x` must be a tensor: `torch.log(1 + 2.0)` fails with a Python float anyway, but a
    subclass overriding `__add__` or `__radd__` would no longer be called.

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV110"
    name = "log-one-plus"
    message = "`torch.log(1 + x)` loses precision for small x; `torch.log1p(x)` computes it accurately"
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("log",)
    targets = ("torch.log",)

    valid = [
        "import torch\ny = torch.log1p(x)",
        "import torch\ny = torch.log(2 + x)",
        "import torch\ny = torch.log(1 + x, out=o)",
        "import math\ny = math.log(1 + x)",
        "import numpy as np\ny = np.log(1 + x)",
    ]
    invalid = [
        Example("import torch\ny = torch.log(1 + x)\n", fixed="import torch\ny = torch.log1p(x)\n", line=2, column=5),
        Example("import torch as th\ny = th.log((x * 2) + 1.0)\n", fixed="import torch as th\ny = th.log1p(x * 2)\n"),
        Example("from torch import log\ny = log(x + 1)\n", fixed="import torch\n\ny = torch.log1p(x)\n"),
    ]

    @classmethod
    def text_gate(cls):
        # `calls_of` finds a call by its last name (`log(`), or by a name an import binds it to; given a sum with a
        # literal one
        return (), (), tuple(ALSO_NEEDED + p for p in plus_one_call("log")), ("log",), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        args = [c.args[0] for c in calls_to(refs, cls.targets) if sole(c)]  # `torch.log(1 + x)`: a sum with a one
        return any(
            type(a).__name__ == "BinOp" and type(a.op).__name__ == "Add" and (_one(a.left) or _one(a.right))
            for a in args
        )

    def visit_Call(self, node) -> None:
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return
        operand = plus_one_operand(node.args[0].value)
        if operand is None or self.match(node.func, self.targets) is None:
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.log1p")
        replacement = node.with_changes(func=func, args=[cst.Arg(value=bare(operand))])
        self.report(node, replacement=replacement, add_imports=imports)
