from __future__ import annotations

from advisor.rule import Example, Rule, Severity, get_arg

TARGETS = ("torch.cross",)


class CrossWithoutDim(Rule):
    """`torch.cross(a, b)` without `dim` relies on a deprecated default dimension.

    What it finds: calls of `torch.cross` with no `dim` (neither the third positional
    argument nor `dim=`), through aliases and imports. `torch.linalg.cross` and
    `Tensor.cross` are not matched.

    Why: UserWarning from C++: "Using torch.cross without specifying the dim arg is
    deprecated. Please either pass the dim explicitly or simply use torch.linalg.cross.
    The default value of dim will change to agree with that of linalg.cross in a future
    release." Today the default is the first dimension of size 3; `linalg.cross` uses
    `dim=-1`, so for a (3, 3) input the two differ.

    Example:
        c = torch.cross(a, b)
        # say which dimension
        c = torch.cross(a, b, dim=1)

    Fix safety: no automatic fix: the dimension the call uses today depends on the
    shapes (the first of size 3), which a static rule cannot see.

    Verified: the text is in `libtorch_cpu` of the 2.2.0 to 2.15.0 wheels and not in
    2.0.0's or 2.1.0's (strings of the binary); runtime on 2.13
    (`warnings.simplefilter("always")`). Truth: K-792/cross-without-dim.

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV792"
    statement_local = True  # the call's own arguments
    name = "cross-without-dim"
    message = (
        "`torch.cross` without `dim` is deprecated (UserWarning): its default (the first dimension of size 3) "
        "will change to `linalg.cross`'s `dim=-1`; pass `dim=` explicitly"
    )
    severity = Severity.WARNING
    deprecated_in = "2.2"
    triggers = ("cross",)
    targets = TARGETS
    strings_name_targets = False  # reported at calls only

    valid = [
        "import torch\nc = torch.cross(a, b, dim=1)\n",
        "import torch\nc = torch.cross(a, b, 1)\n",
        "import torch\nc = torch.linalg.cross(a, b)\n",
        "import numpy as np\nc = np.cross(a, b)\n",
    ]
    invalid = [
        Example("import torch\nc = torch.cross(a, b)\n", message="`torch.cross` without `dim`", line=2, column=5),
        Example("from torch import cross\nc = cross(a, other=b)\n"),
        Example("import torch\nif torch.__version__ < '2.2':\n    c = torch.cross(a, b)\n", message="compat fallback"),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, TARGETS) and get_arg(node, "dim", 2) is None and not any(a.star for a in node.args):
            self.report(node)
