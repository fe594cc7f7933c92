from __future__ import annotations

from advisor.rule import CODE_ONLY, TEXT_GAPS, Applicability, Example, Rule, Severity, cst

from ._ranks import FACTORIES, bindings, rank_of_call
from ._shapes import receiver_ranks

ZERO_D = ("T", "H", "mT", "mH")  # deprecated on 0-D (the identity there)


class TransposeRank(Rule):
    """`x.T` on a tensor whose rank is not 2 (and `.H`/`.mT`/`.mH`/`.adjoint()` on a 0-D one), where the code
    states the rank.

    What it finds: `.T` on a tensor of 0, 1 or 3+ dimensions, and `.H`, `.mT`, `.mH` and
    `.adjoint()` on a 0-D tensor, when the rank is plain in the code: the receiver is a `torch`
    factory with a literal shape (`torch.zeros(2, 3, 4)`, `torch.ones((2, 3, 4))`,
    `torch.full((2, 3), v)`, `torch.arange(n)` and `linspace`/`logspace` (1-D), `torch.eye(n)` (2-D),
    `torch.tensor(<literal>)`), or a name bound once in the same function to one (no other
    binding, no in-place reshaping call such as `x.unsqueeze_(0)` on it). Everything else is left
    alone: the rank of a parameter or of a computed value is unknown.

    Why: UserWarning from C++ (TensorShape.cpp): "The use of `x.T` on tensors of dimension other
    than 2 to reverse their shape is deprecated and it will throw an error in a future release.
    Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1,
    -1))` to reverse the dimensions of a tensor." On 0-D tensors: "Tensor.T is deprecated on 0-D
    tensors. This function is the identity in these cases." (and the same for `H`, `mT`, `mH`,
    `adjoint()`).

    Example:
        x = torch.zeros(2, 3, 4)
        y = x.T
        # becomes
        y = x.permute(2, 1, 0)

    Fix safety: `x.T` on a rank-n tensor (n ≠ 2, n > 0) is `x.permute(n-1, ..., 0)`, the same view,
    in every torch 2.x: safe on a factory call, unsafe on a name (a call elsewhere could still change
    its rank in place). 0-D forms are not fixed (the identity: drop the attribute by hand).

    Verified: runtime on 2.13: `.T` warns on 0-D, 1-D and 3-D tensors and not on 2-D ones; `.H`,
    `.mT`, `.mH` and `.adjoint()` warn on 0-D (on 1-D they raise); `permute(2, 1, 0)` equals `.T`
    silently. The texts are in `libtorch_cpu` of the 2.0.0 to 2.15.0 wheels. Truth: K-139/*.

    Validation: none.
    """

    code = "ADV139"
    name = "transpose-rank"
    message = (
        "`.{attr}` on a {rank}-D tensor is deprecated (UserWarning from C++; a future release raises): "
        "use `.permute(...)` to reverse the dimensions, or `.mT` for batches of matrices"
    )
    zero_d = "`.{attr}` on a 0-D tensor is deprecated (UserWarning from C++): it is the identity there; drop it"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = (".T", ".H", ".mT", ".mH", ".adjoint()")
    targets = FACTORIES
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\nx = torch.zeros(2, 3)\ny = x.T\n",
        "import torch\ndef f(x):\n    return x.T\n",
        "import torch\ndef make():\n    t = torch.tensor(1.0)\n    return t\ndef use(t):\n    return t.T\n",  # another function's
        "import torch\nt = torch.ones(3)\ny = t.T\n",  # a name at module level is not followed
        "import torch\ndef f():\n    x = torch.zeros(2, 3, 4)\n    x = x.sum(0)\n    return x.T\n",
        "import torch\ndef f():\n    x = torch.arange(6)\n    x.unsqueeze_(0)\n    return x.T\n",
        "import torch\ny = torch.eye(3).T\nz = torch.tensor([[1, 2], [3, 4]]).T\n",
        "import torch\ny = torch.zeros(n, 3, 4).mT\n",
        "import numpy as np\ny = np.zeros((2, 3, 4)).T\n",
        "import torch\ny = torch.zeros(shape).T\n",
    ]
    invalid = [
        Example(
            "import torch\ny = torch.zeros(2, 3, 4).T\n",
            fixed="import torch\ny = torch.zeros(2, 3, 4).permute(2, 1, 0)\n",
            message="3-D tensor",
            line=2,
            column=5,
        ),
        Example(
            "import torch\ndef f():\n    x = torch.arange(5)\n    return x.T\n",
            fixed="import torch\ndef f():\n    x = torch.arange(5)\n    return x.permute(0)\n",
        ),
        Example("import torch\ndef f():\n    s = torch.tensor(1.0)\n    return s.mT, s.adjoint()\n", count=2),
        Example("import torch as th\nw = th.randn((4, 5, 6), dtype=th.float64).T\n"),
        Example("import torch\ndef f():\n    x: torch.Tensor = torch.ones(2, 3, 4)\n    return x.T\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A reference to a factory (Rule.may_match), and `.T` (`.H`, `.mT`, `.mH`, `.adjoint(`) in code or an import
        # that renames a factory (`receiver_ranks` then cannot tell).
        transposed = CODE_ONLY + rf"\.{TEXT_GAPS}(?:m?[TH]\b|adjoint{TEXT_GAPS}\()"
        # `ones as o`: `as` first (a literal, looked for at C speed), the name one space or tab before it; where more
        # is between (a line break, a comment), anything but a name or a bracket's end (`with f() as`, `except E as`).
        names = "|".join(rf"(?<=\b{n}[ \t]as)" for n in sorted({f.rpartition(".")[2] for f in FACTORIES}))
        renamed = CODE_ONLY + rf"as\b(?:{names}|(?<=[^\w)\]][ \t]as)|(?<=[\r\n\\]as))"
        return cls.text_gate_with(transposed, renamed)

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where the receiver of `.T` is a factory call that states a rank it warns on (not 2), or a name
        assigned one (0 for the others): `.T` on a matrix, or on a tensor of no stated rank, is in most files."""
        if not super().may_match(refs):
            return False
        stated = receiver_ranks(refs, FACTORIES)
        return stated is None or any(rank != 2 if attr == "T" else rank == 0 for attr, rank in stated)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._functions: list = []
        self._bound: dict[int, dict] = {}

    def visit_FunctionDef(self, node) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, node) -> None:
        self._functions.pop()
        self._bound.pop(id(node), None)

    def _rank(self, value) -> tuple[int | None, bool]:
        """The rank of `value` and whether it is a factory call itself (not a name)."""
        match = lambda f: self.match(f, FACTORIES)  # noqa: E731
        if isinstance(value, cst.Call):
            return rank_of_call(value, match), True
        if isinstance(value, cst.Name) and self._functions:
            function = self._functions[-1]
            bound = self._bound.get(id(function))
            if bound is None:
                bound = self._bound[id(function)] = bindings(function)
            values = bound.get(value.value, [])
            if len(values) == 1 and isinstance(values[0], cst.Call):
                return rank_of_call(values[0], match), False
        return None, False

    def visit_Attribute(self, node) -> None:
        attr = node.attr.value
        if attr not in ZERO_D:
            return
        rank, direct = self._rank(node.value)
        if rank is None or rank == 2 or (rank != 0 and attr != "T"):
            return
        if rank == 0:
            self.report(node, self.zero_d.format(attr=attr))
            return
        order = [cst.Arg(value=cst.Integer(str(d))) for d in range(rank - 1, -1, -1)]
        new = cst.Call(func=node.with_changes(attr=cst.Name("permute")), args=order)
        self.report(
            node,
            self.message.format(attr=attr, rank=rank),
            replacement=_commas(new),
            applicability=Applicability.SAFE if direct else Applicability.UNSAFE,
        )

    def visit_Call(self, node) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "adjoint" and not node.args:
            rank, _ = self._rank(func.value)
            if rank == 0:
                self.report(node, self.zero_d.format(attr="adjoint()"))


def _commas(call):
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = list(call.args)
    return call.with_changes(args=[a.with_changes(comma=space) for a in args[:-1]] + args[-1:])
