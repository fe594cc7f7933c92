from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity

EXTERNAL = {
    "numpy.linalg.eigh",
    "numpy.linalg.eigvalsh",
    "scipy.linalg.eigh",
    "scipy.linalg.eigvalsh",
    "cupy.linalg.eigh",
    "cupy.linalg.eigvalsh",
}


class ExternalEigh(Rule):
    """eigh done by NumPy, SciPy or CuPy in torch code: 2.12's batched `torch.linalg.eigh` may serve.

    What it finds: `numpy.linalg.eigh/eigvalsh`, `scipy.linalg.eigh/eigvalsh` and
    `cupy.linalg.eigh/eigvalsh` calls in files that import torch, such as
    `np.linalg.eigh(t.cpu().numpy())` or `cupy.linalg.eigh(cupy.from_dlpack(t))`.

    Why: these detours were workarounds for slow or MAGMA-dependent eigh on the
    GPU. In 2.12 batched `torch.linalg.eigh` on CUDA runs on cuSOLVER
    `syevj_batched` with no MAGMA involvement, so the data can stay in torch
    (and on the GPU). The rule cannot see whether the input really is torch
    data; it reports these calls only in files that import torch.

    Example:
        w, v = np.linalg.eigh(t.cpu().numpy())
        # becomes
        w, v = torch.linalg.eigh(t)

    Fix safety: no automatic fix: return types (ndarray vs Tensor), devices,
    precision (NumPy promotes to float64) and eigenvector signs differ.

    Validation: `linalg_eigh` checks torch's batched eigh against a float64
    reference on your hardware.
    """

    code = "ADV205"
    name = "external-eigh"
    message = "`{old}` in torch code: in 2.12 batched `torch.linalg.eigh` runs on cuSOLVER syevj_batched, so the data can stay in torch"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "linalg_eigh"
    triggers = ("eigh", "eigvalsh")
    targets = tuple(EXTERNAL)

    valid = [
        "import numpy as np\nw, v = np.linalg.eigh(a)",  # no torch in this file
        "import torch\nw, v = torch.linalg.eigh(t)",
        "import torch\ndef eigh(x): ...\neigh(t)",
    ]
    invalid = [
        Example("import torch\nimport numpy as np\nw, v = np.linalg.eigh(t.cpu().numpy())\n"),
        Example("import torch\nimport cupy\nw, v = cupy.linalg.eigh(cupy.from_dlpack(t))\n"),
        Example("import torch\nfrom scipy.linalg import eigh\nw, v = eigh(t.numpy())\n"),
        Example("import torch\nimport scipy.linalg as sla\nw = sla.eigvalsh(m)\n"),
    ]

    def visit_Call(self, node) -> None:
        old = self.match(node.func, EXTERNAL)
        if old is not None and self.imports_torch():
            self.report(node, self.message.format(old=old))
