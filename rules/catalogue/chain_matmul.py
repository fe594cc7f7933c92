from __future__ import annotations

from advisor.rule import Applicability, Example, ReferenceRule, Severity, cst, rewrite_reference

OLD = {"torch.chain_matmul"}


class ChainMatmul(ReferenceRule):
    """`torch.chain_matmul(a, b, c)` -> `torch.linalg.multi_dot([a, b, c])`.

    What it finds: calls of and references to `torch.chain_matmul`.

    Why: UserWarning: "torch.chain_matmul is deprecated and will be removed in a
    future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a
    list of two or more tensors rather than multiple arguments."

    Example:
        y = torch.chain_matmul(a, b, c)
        # becomes
        y = torch.linalg.multi_dot([a, b, c])

    Fix safety: safe for two or more plain positional arguments (the matrices
    move into a list). Calls with `*args`, one argument or `out=` are reported
    without a fix: `multi_dot` needs at least two tensors.

    Validation: none.

    Window: a C++ warning: C++ text "torch.chain_matmul is deprecated and will be removed in a future PyTorch
    release." (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).
    """

    code = "ADV720"
    name = "chain-matmul"
    message = "`torch.chain_matmul` is deprecated (UserWarning); use `torch.linalg.multi_dot([...])`"
    severity = Severity.WARNING
    since = "2.0"
    window_exceptions = {
        "deprecated_in": 'a C++ warning: C++ text "torch.chain_matmul is deprecated and will be removed in a future PyTorch\nrelease." (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).',
    }
    deprecated_in = "2.0"  # its C++ warning string is in torch/lib/libtorch_cpu.dylib of the 2.0.0 and 2.15.0 wheels
    fix = Applicability.SAFE
    triggers = ("chain_matmul",)
    names = OLD

    valid = ["import torch\ny = torch.linalg.multi_dot([a, b])"]
    invalid = [
        Example(
            "import torch\ny = torch.chain_matmul(a, b, c)\n",
            fixed="import torch\ny = torch.linalg.multi_dot([a, b, c])\n",
        ),
        Example("import torch\ny = torch.chain_matmul(*mats)\n"),
    ]

    def on_call(self, node, old) -> None:
        args = node.args
        if len(args) < 2 or any(a.star or a.keyword is not None for a in args):
            self.report(node)
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.linalg.multi_dot")
        elements = [
            cst.Element(value=a.value, comma=a.comma if i < len(args) - 1 else cst.MaybeSentinel.DEFAULT)
            for i, a in enumerate(args)
        ]
        new = node.with_changes(func=func, args=[cst.Arg(value=cst.List(elements=elements))])
        self.report(node, replacement=new, add_imports=imports)
