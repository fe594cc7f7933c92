from __future__ import annotations

from advisor.rule import (
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Kind,
    Rule,
    Severity,
    Window,
    cst,
    expr,
    rewrite_reference,
)

from ._linalg_args import linalg_args

METHODS = ("cholesky", "qr")
_WINDOW = Window(deprecated_in="1.9", removed_in="2.14")  # UserWarning up to 2.13, RuntimeError from 2.14
# Packages whose objects have their own `.cholesky()` / `.qr()` (lazy tensors, linear operators).
OTHER_LINALG = ("gpytorch", "linear_operator")


# No release window for a receiver that may not be a tensor: the removal applies only if it is one.
_UNKNOWN_RECEIVER = Window(since="2.0")


class TensorQrCholeskyMethod(Rule):
    """`x.cholesky()` / `x.qr()` on a tensor: removed in 2.14, use `torch.linalg`.

    What it finds: calls of the methods `.cholesky(...)` and `.qr(...)` in files
    that import torch, unless the receiver is a name or module imported from
    somewhere (`np.linalg.qr`, `scipy.linalg.cholesky`, `torch.linalg.qr`) or the
    file imports `gpytorch` / `linear_operator` (whose objects have a
    `.cholesky()` of their own). The receiver's type cannot be known statically,
    so a non-tensor object with such a method may still be flagged.

    Why: `Tensor.cholesky` and `Tensor.qr` raise RuntimeError from 2.14 ("This
    function was deprecated since version 1.9 and is now removed"); on 2.13 they
    warned UserWarning. Verified on the 2.13.0, 2.14.1 and 2.15.0 wheels:
    tests/truth R14-1/Tensor.cholesky, R14-2/Tensor.qr. The functions
    `torch.cholesky` / `torch.qr` are ADV206.

    Example:
        L = a.cholesky(upper=True)
        # becomes
        L = torch.linalg.cholesky(a, upper=True)

    Only a receiver that is certainly a tensor (the result of a `torch.*` call) is
    reported by its window (breaking from 2.14) and fixed; any other receiver is
    advice without a fix, since the receiver's type cannot be known statically
    (gpytorch's `LinearOperator.cholesky()` inside gpytorch's own package, found on
    the real repository, is not a tensor and must not be rewritten).

    Fix safety: unsafe, and offered only for a `torch.*` call's result. For a tensor the
    rewrite is the same as ADV206's (identical results on 2.13; `some=` becomes
    `mode=` for literals only; a non-literal `some` gets no fix).

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV757"
    statement_local = True  # the call and its receiver; the file's imports
    name = "tensor-qr-cholesky-method"
    message = (
        "`Tensor.{m}()` was removed in 2.14 (RuntimeError) if `{recv}` is a tensor; use `torch.linalg.{m}({recv}...)`"
    )
    severity = Severity.WARNING  # never error: the receiver's type is unknown
    since = "2.0"
    deprecated_in = "1.9"
    removed_in = "2.14"
    fix = Applicability.UNSAFE
    triggers = METHODS
    attribute_targets = METHODS
    valid = [
        "import torch\nL = torch.linalg.cholesky(a)\n",
        "import numpy as np\nimport torch\nq, r = np.linalg.qr(a)\n",
        "import torch\nimport scipy.linalg\nL = scipy.linalg.cholesky(a)\n",
        "import torch\nfrom gpytorch.lazy import lazify\nL = lazy_cov.cholesky()\n",
        "L = a.cholesky()\n",  # no torch in this file
    ]
    invalid = [
        Example(
            "import torch\nL = torch.rand(3, 3).cholesky()\n",
            fixed="import torch\nL = torch.linalg.cholesky(torch.rand(3, 3))\n",
            message="`Tensor.cholesky()` was removed in 2.14",
            line=2,
            column=5,
        ),
        Example(
            "import torch\nq, r = torch.ones(3, 3).qr(some=False)\n",
            fixed='import torch\nq, r = torch.linalg.qr(torch.ones(3, 3), mode="complete")\n',
        ),
        Example(
            "import torch\nL = torch.eye(3).cholesky(True)\n",
            fixed="import torch\nL = torch.linalg.cholesky(torch.eye(3), upper=True)\n",
        ),
        # Receiver of unknown type: advice, no fix (a LinearOperator has `.cholesky()` too).
        Example("import torch\nL = a.cholesky()\n", message="if `a` is a tensor"),
        Example("import torch\nL = model.cov.cholesky(True)\n"),
    ]

    @classmethod
    def text_gate(cls):
        # `.cholesky`/`.qr` (Rule.may_match's gate), and one of them called: an attribute only read is none of this
        # rule's (`aten.cholesky.default`, `torch.Tensor.qr` in a table)
        # (a name defined is not called: `def cholesky(`; each pattern starts with its literal, looked for at C speed)
        return cls.text_gate_with(
            *(CODE_ONLY + rf"{m}(?<![\w]{m})(?<!def {m}){TEXT_GAPS}\(" for m in ("cholesky", "qr"))
        )

    @classmethod
    def may_match(cls, refs) -> bool:
        # A method's call: `.cholesky(` or `.qr(` (References.calls has each call under its last name)
        return any(type(c.func).__name__ == "Attribute" for m in METHODS for c in refs.calls.get(m, ()))

    def visit_Call(self, node) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in METHODS:
            return
        receiver = func.value
        if isinstance(receiver, (cst.Name, cst.Attribute)) and any(
            not q.startswith("<") for q in self.qualnames(receiver)
        ):
            return  # a module or an imported object (np.linalg, scipy.linalg, torch.linalg, ...)
        if not self.imports_torch() or self._imports_other_linalg():
            return
        method = func.attr.value
        recv = self.ctx.code_for(receiver)
        message = self.message.format(m=method, recv=recv if len(recv) <= 30 else "the receiver")
        if not self._is_tensor(receiver):
            # Other libraries have `.cholesky()` / `.qr()` too (gpytorch's LinearOperator, inside its own
            # package where the import guard above cannot see it): advice to check, never a fix.
            self.report(node, message, kind=Kind.ADVICE, window=_UNKNOWN_RECEIVER)
            return
        pseudo = node.with_changes(args=[cst.Arg(receiver), *node.args])  # as the function form would be called
        args = linalg_args(pseudo, f"torch.{method}")
        if args is None:
            self.report(node, message, window=_WINDOW)
            return
        new_func, imports = rewrite_reference(self.ctx.resolver, expr("torch"), f"torch.linalg.{method}")
        self.report(
            node, message, replacement=node.with_changes(func=new_func, args=args), add_imports=imports, window=_WINDOW
        )

    def _is_tensor(self, receiver) -> bool:
        """The receiver is certainly a tensor: the result of a `torch.*` call (`torch.rand(3, 3).qr()`)."""
        return isinstance(receiver, cst.Call) and any(q.startswith("torch.") for q in self.qualnames(receiver.func))

    def _imports_other_linalg(self) -> bool:
        return any(q.split(".")[0] in OTHER_LINALG for q in self.ctx.resolver.module_imports())
