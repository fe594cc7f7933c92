from __future__ import annotations

from advisor.rule import Applicability, Example, ReferenceRule, Severity, cst, rewrite_reference

OLD = {"torch._aminmax"}
POSITIONAL = ("dim", "keepdim")  # `_aminmax(x, dim, keepdim)`: in `aminmax` both are keyword-only


class PrivateAminmax(ReferenceRule):
    """`torch._aminmax(x)` -> `torch.aminmax(x)`.

    What it finds: calls of `torch._aminmax`, through aliases and imports. A reference that is
    not called (a table of overrides, `getattr` checks) is left alone: it does not warn.

    Why: UserWarning from C++ (aten/src/ATen/native/ReduceOps.cpp, once per process): "_aminmax
    is deprecated as of PyTorch 1.11 and will be removed in a future release. Use aminmax instead.
    This warning will only appear once per process."

    Example:
        lo, hi = torch._aminmax(x, 1, True)
        # becomes
        lo, hi = torch.aminmax(x, dim=1, keepdim=True)

    Fix safety: safe: `torch.aminmax` exists in every torch 2.x and returns the same two tensors
    (a named tuple, which unpacks and indexes like the tuple `_aminmax` returns); its `dim` and
    `keepdim` are keyword-only, so positional ones become keywords. `*args` is reported without
    a fix.

    Verified: runtime on 2.13 and 2.15: `_aminmax(x)`, `(x, 1)` and `(x, 1, True)` warn, and
    `aminmax` gives equal results silently. The text is in the 2.0.0 to 2.15.0 wheels
    (docs/evidence/torch-cxx-texts.json). Truth: K-140/*.

    Window: a C++ warning: C++ text "_aminmax is deprecated as of PyTorch 1.11 and will be removed in a future
    release" (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).

    Validation: none.
    """

    code = "ADV140"
    name = "private-aminmax"
    message = "`torch._aminmax` is deprecated (UserWarning from C++); use `torch.aminmax(x, dim=..., keepdim=...)`"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    window_exceptions = {
        "deprecated_in": 'a C++ warning: C++ text "_aminmax is deprecated as of PyTorch 1.11 and will be removed in a future\nrelease" (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).'
    }
    triggers = ("_aminmax",)
    names = OLD

    valid = [
        "import torch\nlo, hi = torch.aminmax(x, dim=1)\n",
        "import torch\nOVERRIDES = {torch._aminmax: lambda x: -1}\n",
        "import mylib\nlo, hi = mylib._aminmax(x)\n",
    ]
    invalid = [
        Example(
            "import torch\nlo, hi = torch._aminmax(x)\n",
            fixed="import torch\nlo, hi = torch.aminmax(x)\n",
            line=2,
            column=10,
        ),
        Example(
            "import torch\nlo, hi = torch._aminmax(x, 1, True)\n",
            fixed="import torch\nlo, hi = torch.aminmax(x, dim=1, keepdim=True)\n",
        ),
        Example(
            "from torch import _aminmax\nr = _aminmax(x, dim=0)\n",
            fixed="import torch\n\nr = torch.aminmax(x, dim=0)\n",
        ),
        Example("import torch\nr = torch._aminmax(*args)\n"),
    ]

    def on_reference(self, node, old) -> None:
        """Only a call warns."""

    def on_call(self, node, old) -> None:
        args = node.args
        if any(a.star for a in args) or len(args) > 1 + len(POSITIONAL):
            self.report(node)
            return
        new_args = []
        for i, arg in enumerate(args):
            if i and arg.keyword is None:
                arg = arg.with_changes(
                    keyword=cst.Name(POSITIONAL[i - 1]),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                    ),
                )
            new_args.append(arg)
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.aminmax")
        self.report(node, replacement=node.with_changes(func=func, args=new_args), add_imports=imports)
