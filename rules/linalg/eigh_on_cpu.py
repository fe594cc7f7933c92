from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    Rule,
    Severity,
    cst,
    get_arg,
    literal_matrix_facts,
    string_value,
)

from .eigh_loop import EIGH


def _moves_to_cpu(node) -> bool:
    """`x.cpu()`, `x.detach().cpu()`, `x.to("cpu", ...)`, `x.to(device="cpu")`, also under `.double()` etc."""
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        method = node.func.attr.value
        if method == "cpu":
            return True
        if method == "to":
            arg = get_arg(node, "device", 0)
            if arg is not None:
                value = arg.value
                if isinstance(value, cst.Call) and value.args:  # torch.device("cpu")
                    value = value.args[0].value
                text = string_value(value)
                if text is not None and text.split(":")[0] == "cpu":
                    return True
        node = node.func.value
    return False


class EighOnCpu(Rule):
    """eigh/eigvalsh on a tensor moved to the CPU first: a workaround 2.12 may no longer need.

    What it finds: `torch.linalg.eigh(x.cpu())`, `eigvalsh(x.detach().cpu())`,
    `eigh(x.to("cpu", ...))` and the same under `.double()` / `.float()`.

    Why: moving matrices to the CPU for eigh was a common workaround for slow or
    unreliable MAGMA/cuSOLVER eigh on GPUs. In 2.12 batched eigh on CUDA runs on
    cuSOLVER `syevj_batched`; keeping the data on the GPU avoids two copies and
    a host sync. Whether it is faster for your shapes is what the validation
    check measures.

    Example:
        w, v = torch.linalg.eigh(cov.cpu())
        # becomes
        w, v = torch.linalg.eigh(cov)

    Fix safety: no automatic fix: results then live on the GPU, and precision
    and eigenvector signs may differ from the CPU (LAPACK) result.

    Validation: `linalg_eigh` times the GPU call against a CPU round trip.
    """

    code = "ADV204"
    name = "eigh-on-cpu"
    message = "`{old}` runs on a tensor moved to the CPU; on 2.12, batched eigh on CUDA uses cuSOLVER syevj_batched, so the round trip may no longer pay off"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "linalg_eigh"
    triggers = ("eigh", "eigvalsh")
    targets = tuple(EIGH)

    valid = [
        "import torch\nw, v = torch.linalg.eigh(x)",
        "import torch\nw = torch.linalg.eigh(x.cuda())",
        "import torch\nw = torch.linalg.eigh(x.to('cuda'))",
        "import numpy as np\nw = np.linalg.eigh(x.cpu())",
    ]
    invalid = [
        Example("import torch\nw, v = torch.linalg.eigh(x.cpu())\n"),
        Example("import torch\nw = torch.linalg.eigvalsh(x.detach().cpu().double())\n"),
        Example("from torch.linalg import eigh\nw, v = eigh(x.to('cpu', torch.float64))\n"),
        Example("import torch\nw, v = torch.linalg.eigh(A=x.to(device=torch.device('cpu')))\n"),
    ]

    def visit_Call(self, node) -> None:
        old = self.match(node.func, EIGH)
        if old is None:
            return
        arg = get_arg(node, "A", 0)
        if arg is not None and _moves_to_cpu(arg.value):
            self.report(node, self.message.format(old=old), data=literal_matrix_facts(node))
