from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, append_args, cst, get_arg, kwarg, string_value

from ._shapes import arg, starred

FUNCTIONS = ("torch.nn.functional.kl_div",)
MODULES = ("torch.nn.KLDivLoss", "torch.nn.modules.loss.KLDivLoss")


class KlDivMean(Rule):
    """`F.kl_div(input, target)` and `nn.KLDivLoss()` with `reduction="mean"` (the default): torch warns the
    meaning of "mean" will change to "batchmean".

    What it finds: calls of `torch.nn.functional.kl_div` and constructions of `torch.nn.KLDivLoss`
    (through aliases) that pass no `reduction=` or pass the literal `"mean"`. Left alone: the legacy
    `size_average=`/`reduce=` forms (they choose the reduction themselves, and warn about those
    arguments instead), a `reduction` held in a name, `*args`/`**kwargs`.

    Why: UserWarning (torch/nn/functional.py; the text is in the C++ libraries too): "reduction:
    'mean' divides the total loss by both the batch size and the support size. 'batchmean' divides
    only by the batch size, and aligns with the KL div math definition. 'mean' will be changed to
    behave the same as 'batchmean' in the next major release." For `KLDivLoss` it fires at each
    forward call; the finding is at the construction, where `reduction` is chosen.

    Example:
        loss = F.kl_div(log_p, q)
        # becomes (today's value, without the warning)
        loss = F.kl_div(log_p, q, reduction="none").mean()
        # or, the KL divergence as defined (a different value: divided by the batch size only)
        loss = F.kl_div(log_p, q, reduction="batchmean")

    Fix safety: safe for `F.kl_div`: `reduction="mean"` is computed as the mean of the elementwise
    loss, so `reduction="none"` then `.mean()` gives the same tensor (bit for bit on 2.13), in
    every torch 2.x. `nn.KLDivLoss` is not fixed: the mean would have to move to each forward
    call; choose `reduction="batchmean"` (the value changes) or `"sum"`/`"none"` by hand.

    Verified: runtime on 2.13: both forms warn, with or without an explicit "mean", and the fixed
    call is silent and equal. The text is in the 2.0.0 to 2.15.0 wheels. Truth: K-136/*.

    Validation: none.
    """

    code = "ADV136"
    name = "kl-div-mean"
    message = (
        '`{name}` with reduction "mean" (the default) warns (UserWarning) that "mean" will behave like '
        '"batchmean"; {advice}'
    )
    advice_function = 'use `reduction="none"` then `.mean()` (today\'s value) or `reduction="batchmean"`'
    advice_module = 'pass `reduction="batchmean"` (the KL definition; the value changes) or "sum"/"none"'
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = ("kl_div", "KLDivLoss")
    targets = FUNCTIONS + MODULES
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch.nn.functional as F\nl = F.kl_div(a, b, reduction='batchmean')\n",
        "import torch.nn.functional as F\nl = F.kl_div(a, b, reduction='none').mean()\n",
        "import torch.nn.functional as F\nl = F.kl_div(a, b, reduction=how)\n",
        "import torch.nn.functional as F\nl = F.kl_div(a, b, size_average=False)\n",
        "import torch.nn.functional as F\nl = F.kl_div(a, b, None, False)\n",
        "import torch\nc = torch.nn.KLDivLoss(reduction='sum')\n",
        "import torch.nn.functional as F\nl = F.kl_div(a, b, **kw)\n",
        "import mylib\nl = mylib.kl_div(a, b)\n",
    ]
    invalid = [
        Example(
            "import torch.nn.functional as F\nl = F.kl_div(a, b)\n",
            fixed='import torch.nn.functional as F\nl = F.kl_div(a, b, reduction="none").mean()\n',
            message="`torch.nn.functional.kl_div`",
            line=2,
            column=5,
        ),
        Example(
            "from torch.nn.functional import kl_div\nl = kl_div(a, b, reduction='mean', log_target=True)\n",
            fixed="from torch.nn.functional import kl_div\n"
            'l = kl_div(a, b, reduction="none", log_target=True).mean()\n',
        ),
        Example("import torch.nn as nn\nc = nn.KLDivLoss()\n", message="batchmean"),
        Example("import torch\nc = torch.nn.KLDivLoss(log_target=True, reduction='mean')\n"),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where a call of those names leaves the reduction to "mean" (most of torch's own choose one)."""
        if not super().may_match(refs):
            return False
        if not refs.renamed.isdisjoint(FUNCTIONS + MODULES):
            return True
        for name, first in (("kl_div", 2), ("KLDivLoss", 0)):  # where size_average, reduce and reduction sit
            for call in refs.calls.get(name, ()):
                if starred(call):
                    continue
                if arg(call, "size_average", first) is not None or arg(call, "reduce", first + 1) is not None:
                    continue
                given = arg(call, "reduction", first + 2)
                if given is None or (type(given).__name__ == "Constant" and given.value == "mean"):
                    return True
        return False

    def visit_Call(self, node) -> None:
        name = self.match(node.func, FUNCTIONS + MODULES)
        if name is None or any(a.star for a in node.args):
            return
        function = name in FUNCTIONS
        first = 2 if function else 0  # where size_average, reduce and reduction sit positionally
        if get_arg(node, "size_average", first) or get_arg(node, "reduce", first + 1):
            return
        given = get_arg(node, "reduction", first + 2)
        if given is not None and string_value(given.value) != "mean":
            return
        advice = self.advice_function if function else self.advice_module
        message = self.message.format(name=name, advice=advice)
        self.report(node, message, replacement=self._fixed(node, given) if function else None)

    def _fixed(self, node, given):
        if given is None:
            new = append_args(node, [kwarg("reduction", '"none"')])
        elif given.keyword is not None:
            new = node.deep_replace(given.value, cst.SimpleString('"none"'))
        else:
            return None
        return cst.Call(func=cst.Attribute(value=new, attr=cst.Name("mean")))
