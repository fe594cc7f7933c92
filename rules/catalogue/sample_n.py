from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst, expr


class DistributionSampleN(Rule):
    """`Distribution.sample_n(n)` -> `.sample((n,))`.

    What it finds: calls of a `.sample_n(n)` method in files that import torch.

    Why: it warns in every release the catalogue covers, with two texts: a UserWarning
    "sample_n will be deprecated. Use .sample((n,)) instead" in 2.0-2.3, and from 2.4 a
    FutureWarning "`sample_n(n)` will be deprecated. Use `sample((n,))` instead."
    (checked: `torch/distributions/distribution.py` of the 2.0.0-2.3.0 wheels calls
    `warnings.warn(..., UserWarning)`; 2.4.0-2.15.0 decorate it with
    `@deprecated(..., category=FutureWarning)`).

    Example:
        x = dist.sample_n(10)
        # becomes
        x = dist.sample((10,))

    Fix safety: safe: `sample_n(n)` is `sample(torch.Size((n,)))`. The rule
    cannot see the object's type, so it only reports in files importing torch.

    Validation: none.
    """

    code = "ADV737"
    name = "distribution-sample-n"
    message = "`sample_n(n)` is deprecated (UserWarning before 2.4, FutureWarning from 2.4); use `sample((n,))`"
    severity = Severity.WARNING
    since = "2.0"
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = ("sample_n",)
    attribute_targets = ("sample_n",)

    valid = ["import torch\nx = d.sample((3,))", "x = d.sample_n(3)  # no torch here"]
    invalid = [
        Example("import torch\nx = normal.sample_n(10)\n", fixed="import torch\nx = normal.sample((10,))\n"),
    ]

    def visit_Call(self, node) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "sample_n" and self.imports_torch()):
            return
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            n = self.ctx.code_for(node.args[0].value)
            new = node.with_changes(
                func=func.with_changes(attr=cst.Name("sample")), args=[cst.Arg(value=expr(f"({n},)"))]
            )
            self.report(node, replacement=new)
        else:
            self.report(node)
