from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    Rule,
    Severity,
    calls_in,
    cst,
    literal_matrix_facts,
    nodes_of,
)

EIGH = {"torch.linalg.eigh", "torch.linalg.eigvalsh"}


def _names(node) -> set[str]:
    return {n.value for n in nodes_of(node, cst.Name)}


class PerMatrixEighLoop(Rule):
    """A Python loop calls `torch.linalg.eigh` once per matrix: one batched call is faster on 2.12.

    What it finds: a `for` loop or comprehension whose body calls
    `torch.linalg.eigh` / `eigvalsh` on something that depends on the loop
    variable (`eigh(A[i])`, `eigh(m) for m in mats`).

    Why: in 2.12 batched `linalg.eigh` on CUDA dispatches to cuSOLVER
    `syevj_batched` (PR #175403, which cites "over 100x" on its benchmark; the
    release blog says "up to 100x"). Stacking the matrices and calling eigh once
    (`torch.linalg.eigh(torch.stack(mats))`) avoids one kernel launch and one
    host round trip per matrix. The speed-up on your GPU is not verified here.

    Example:
        vals = [torch.linalg.eigvalsh(m) for m in mats]
        # becomes
        vals = torch.linalg.eigvalsh(torch.stack(mats)).unbind(0)

    Fix safety: no automatic fix. Matrices must share a shape to stack, and
    batched syevj may differ from per-matrix results within tolerance
    (eigenvector signs can flip).

    Validation: `linalg_eigh` times the batched call against a per-matrix loop
    and checks residuals.
    """

    code = "ADV203"
    name = "per-matrix-eigh-loop"
    message = "`{old}` is called once per matrix in a loop; one batched call (torch.stack, then {old}) runs on cuSOLVER syevj_batched in 2.12"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "linalg_eigh"
    triggers = ("eigh", "eigvalsh")
    targets = tuple(EIGH)

    valid = [
        "import torch\nw, v = torch.linalg.eigh(torch.stack(mats))",
        "import torch\nfor i in range(3):\n    w, v = torch.linalg.eigh(A)\n",
        "import numpy as np\nfor m in mats:\n    np.linalg.eigh(m)\n",
    ]
    invalid = [
        Example("import torch\nfor i in range(n):\n    w, v = torch.linalg.eigh(A[i])\n"),
        Example("import torch\nvals = [torch.linalg.eigvalsh(m) for m in mats]\n"),
        Example("from torch.linalg import eigh\nout = {k: eigh(x) for k, x in d.items()}\n"),
        Example(
            "import torch as th\nfor m in mats:\n    if m.numel():\n        res.append(th.linalg.eigh(m.double()))\n"
        ),
    ]

    def _check_body(self, targets: set[str], body) -> None:
        if not targets:
            return
        for call in calls_in(body):
            old = self.match(call.func, EIGH)
            if old and any(_names(a.value) & targets for a in call.args):
                self.report(call, self.message.format(old=old), data=literal_matrix_facts(call))

    def visit_For(self, node) -> None:
        self._check_body(_names(node.target), node.body)

    def _comp(self, node) -> None:
        targets: set[str] = set()
        comp = node.for_in
        while comp is not None:
            targets |= _names(comp.target)
            comp = comp.inner_for_in
        elts = [node.key, node.value] if isinstance(node, cst.DictComp) else [node.elt]
        for e in elts:
            self._check_body(targets, e)

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comp
