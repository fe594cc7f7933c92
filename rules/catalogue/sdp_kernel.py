from __future__ import annotations

from advisor.rule import Applicability, Example, ReferenceRule, Severity, bool_value, expr, get_arg

OLD = {"torch.backends.cuda.sdp_kernel"}
# (keyword, position in the old signature, SDPBackend member); the list order is the
# order torch's own shim builds (backends/cuda/__init__.py in 2.13).
FLAGS = (
    ("enable_flash", 0, "FLASH_ATTENTION"),
    ("enable_mem_efficient", 2, "EFFICIENT_ATTENTION"),
    ("enable_math", 1, "MATH"),
    ("enable_cudnn", 3, "CUDNN_ATTENTION"),
)


class SdpKernel(ReferenceRule):
    """`torch.backends.cuda.sdp_kernel(enable_*=...)` -> `torch.nn.attention.sdpa_kernel([SDPBackend...])`.

    What it finds: calls of (and references to) `torch.backends.cuda.sdp_kernel`.

    Why: FutureWarning: "`torch.backends.cuda.sdp_kernel()` is deprecated. In
    the future, this context manager will be removed. Please see
    `torch.nn.attention.sdpa_kernel()` for the new context manager, with
    updated signature."

    Example:
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
        # becomes (enable_cudnn defaults to True)
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):

    Fix safety: safe when every flag is a literal True/False: the list holds, in
    the order FLASH_ATTENTION, EFFICIENT_ATTENTION, MATH, CUDNN_ATTENTION, each
    backend whose flag is True or omitted, which is exactly what the deprecated
    shim does. `from torch.nn.attention import SDPBackend, sdpa_kernel` is added.
    Non-literal flags, or every flag False, are reported without a fix.

    Validation: `amp_migration` compares which SDPA backends are enabled inside
    the old and new context managers.

    Release window (checked in the wheels): `torch.nn.attention.sdpa_kernel` and
    `SDPBackend.CUDNN_ATTENTION` exist from 2.3.0 (`2.3.0 nn/attention/__init__.py:68`,
    `_C/__init__.pyi:10586`), and the 2.3.0 `sdp_kernel` already warns FutureWarning and
    is the same shim over `sdpa_kernel` (`2.3.0 backends/cuda/__init__.py:330-366`); the
    `@deprecated` decorator replaces the call in 2.4.0. So it is reported, and fixed, from 2.3.
    """

    code = "ADV704"
    name = "sdp-kernel"
    message = "`torch.backends.cuda.sdp_kernel` is deprecated (FutureWarning); use `torch.nn.attention.sdpa_kernel([SDPBackend...])`"
    severity = Severity.WARNING
    since = "2.3"  # sdpa_kernel and the FutureWarning are both in the 2.3.0 wheel
    deprecated_in = "2.3"  # warnings.warn(FutureWarning) in the 2.3.0 wheel, @deprecated from 2.4.0
    fix = Applicability.SAFE
    validation = "amp_migration"
    triggers = ("sdp_kernel",)
    names = OLD

    valid = [
        "from torch.nn.attention import sdpa_kernel, SDPBackend\nwith sdpa_kernel([SDPBackend.MATH]):\n    pass",
        "def sdp_kernel(**kw): ...\nwith sdp_kernel(enable_flash=True):\n    pass",
    ]
    invalid = [
        Example(
            "import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):\n    pass\n",
            fixed="import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\nwith sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):\n    pass\n",
        ),
        Example(
            "import torch\nwith torch.backends.cuda.sdp_kernel():\n    pass\n",
            fixed="import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\nwith sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION]):\n    pass\n",
        ),
        Example("import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=use_flash):\n    pass\n"),
        Example("from torch.backends.cuda import sdp_kernel\nctx = sdp_kernel\n"),
    ]

    def on_call(self, node, old) -> None:
        members = []
        literal = not any(a.star for a in node.args)
        for keyword, position, member in FLAGS:
            arg = get_arg(node, keyword, position)
            value = True if arg is None else bool_value(arg.value)
            if value is None:
                literal = False
            elif value:
                members.append(member)
        known = {k for k, _, _ in FLAGS}
        if any(a.keyword is not None and a.keyword.value not in known for a in node.args):
            literal = False
        if not literal or not members:
            self.report(node)
            return
        new = expr("sdpa_kernel([" + ", ".join(f"SDPBackend.{m}" for m in members) + "])")
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
        imports = [("torch.nn.attention", "sdpa_kernel"), ("torch.nn.attention", "SDPBackend")]
        self.report(node, replacement=new, add_imports=imports)
