from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, callee_targets, cst, rewrite_reference

from ._numerics import is_one, minus_one_call


class ExpMinusOne(Rule):
    """`torch.exp(x) - 1` loses precision for small `x`; `torch.expm1(x)` does not.

    What it finds: `torch.exp(x) - 1` with a literal one and `exp` called with one
    argument (TorchFix TOR107).

    Why: for |x| much smaller than 1, `exp(x)` is close to 1 and the subtraction
    cancels most significant digits. `torch.expm1` computes exp(x) - 1 directly
    (documented in `torch.expm1`). Nothing warns or breaks: this is advice.

    Example:
        y = torch.exp(x) - 1
        # becomes
        y = torch.expm1(x)

    Fix safety: unsafe: the result changes in the last bits (that is the point).

    Validation: none.
    """

    code = "ADV111"
    name = "exp-minus-one"
    message = "`torch.exp(x) - 1` loses precision for small x; `torch.expm1(x)` computes it accurately"
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("exp",)
    targets = ("torch.exp",)
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\ny = torch.expm1(x)",
        "import torch\ny = torch.exp(x) - 2",
        "import torch\ny = 1 - torch.exp(x)",
        "import math\ny = math.exp(x) - 1",
        "import torch\nf = lambda i: 2 * (i.exp() - 1)",  # a method of a local name
    ]
    invalid = [
        Example("import torch\ny = torch.exp(x) - 1\n", fixed="import torch\ny = torch.expm1(x)\n", line=2, column=5),
        Example(
            "import torch as th\ny = 2 * (th.exp(a + b) - 1.0)\n",
            fixed="import torch as th\ny = 2 * (th.expm1(a + b))\n",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A reference (Rule.may_match), and an `exp(...)` call with one subtracted
        return cls.text_gate_with(*minus_one_call("exp"))

    @classmethod
    def may_match(cls, refs) -> bool:
        # `torch.exp(x) - 1`: a literal one subtracted from a call that may be a target's (not `np.exp(x)`, `i.exp()`)
        if not super().may_match(refs):
            return False
        return bool(refs.renamed & set(cls.targets)) or any(
            callee_targets(refs, call.func, cls.targets) != set() for call in refs.minus_one.get("exp", ())
        )

    def visit_BinaryOperation(self, node) -> None:
        if not (isinstance(node.operator, cst.Subtract) and is_one(node.right) and isinstance(node.left, cst.Call)):
            return
        call = node.left
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return
        if self.match(call.func, self.targets) is None:
            return
        func, imports = rewrite_reference(self.ctx.resolver, call.func, "torch.expm1")
        replacement = call.with_changes(func=func, lpar=node.lpar, rpar=node.rpar)
        self.report(node, replacement=replacement, add_imports=imports)
