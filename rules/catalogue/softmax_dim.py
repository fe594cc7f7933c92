from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, get_arg, has_star_args

FUNCS = {  # qualified name -> position of `dim`
    "torch.nn.functional.softmax": 1,
    "torch.nn.functional.log_softmax": 1,
    "torch.nn.functional.softmin": 1,
    "torch.nn.Softmax": 0,
    "torch.nn.LogSoftmax": 0,
    "torch.nn.Softmin": 0,
}


class SoftmaxWithoutDim(Rule):
    """`F.softmax` / `log_softmax` / `softmin` (and the `nn` modules) without `dim`.

    What it finds: calls of `torch.nn.functional.softmax`, `log_softmax`,
    `softmin`, and constructions of `nn.Softmax`, `nn.LogSoftmax`, `nn.Softmin`,
    that pass no `dim`.

    Why: UserWarning: "Implicit dimension choice for softmax has been
    deprecated. Change the call to include dim=X as an argument." The implicit
    dim depends on the input's number of dimensions (0 for 0-D, 1-D and 3-D
    inputs, 1 otherwise), which is rarely what was meant.

    Example:
        p = F.softmax(logits)
        # becomes
        p = F.softmax(logits, dim=-1)

    Fix safety: no automatic fix: only you know which dimension you meant.

    Validation: none.
    """

    code = "ADV717"
    name = "softmax-without-dim"
    message = "`{old}` without `dim` relies on a deprecated implicit dimension (UserWarning); pass `dim=` explicitly"
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.NONE
    triggers = ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin")
    targets = tuple(FUNCS)

    valid = [
        "import torch.nn.functional as F\np = F.softmax(x, dim=-1)",
        "import torch.nn.functional as F\np = F.softmax(x, 1)",
        "import torch\nm = torch.nn.Softmax(dim=1)",
        "import torch\np = torch.softmax(x, 0)",
    ]
    invalid = [
        Example("import torch.nn.functional as F\np = F.softmax(logits)\n"),
        Example("from torch.nn.functional import log_softmax\nlp = log_softmax(x, dtype=torch.float32)\n"),
        Example("import torch.nn as nn\nm = nn.Softmax()\n"),
    ]

    def visit_Call(self, node) -> None:
        old = self.match(node.func, FUNCS)
        if old is None or has_star_args(node) or any(a.star == "**" for a in node.args):
            return
        if get_arg(node, "dim", FUNCS[old]) is None:
            self.report(node, self.message.format(old=old))
