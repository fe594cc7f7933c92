"""Truth checks for ADV140 (`torch._aminmax`) and ADV141 (`torch.fbgemm_*` linear ops): the last to-do texts of
the C++ ledger. Each rule has a check that the call warns and one that the replacement is silent.
`_aminmax` warns once per process (`TORCH_WARN_ONCE`), so its check runs isolated.
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, _c, silent, warns

_USER = "UserWarning"
_AMINMAX = "_aminmax is deprecated as of PyTorch 1.11 and will be removed in a future release. Use aminmax instead."
_FBGEMM = "is deprecated and will be removed in a future PyTorch release."


def _check(cid: str, what: str, code: str, expect, rule: str, isolate: bool = False) -> Check:
    return Check(cid, what, _c(code), (expect,), isolate=isolate, rule=rule)


CALLPATTERN3: list[Check] = [
    _check(
        "K-140/aminmax-private",
        "torch._aminmax(x), (x, 1) and (x, 1, True) warn",
        """
        import torch
        x = torch.arange(12.0).reshape(3, 4)
        a, b, c = torch._aminmax(x), torch._aminmax(x, 1), torch._aminmax(x, 1, True)
        result = [[float(t) for t in a], [t.tolist() for t in b], [list(t.shape) for t in c]]
        """,
        warns(ALL, _USER, _AMINMAX, result=[[0.0, 11.0], [[0.0, 4.0, 8.0], [3.0, 7.0, 11.0]], [[3, 1], [3, 1]]]),
        "ADV140",
        isolate=True,
    ),
    _check(
        "K-140/aminmax-fix",
        "torch.aminmax(x), (x, dim=1) and (x, dim=1, keepdim=True) give the same results silently",
        """
        import torch
        x = torch.arange(12.0).reshape(3, 4)
        a, b = torch.aminmax(x), torch.aminmax(x, dim=1)
        c = torch.aminmax(x, dim=1, keepdim=True)
        lo, hi = a
        result = [[float(lo), float(hi)], [t.tolist() for t in b], [list(t.shape) for t in c]]
        """,
        silent(ALL, "_aminmax", result=[[0.0, 11.0], [[0.0, 4.0, 8.0], [3.0, 7.0, 11.0]], [[3, 1], [3, 1]]]),
        "ADV140",
        isolate=True,
    ),
    _check(
        "K-141/fbgemm-ops",
        "torch.fbgemm_pack_gemm_matrix_fp16 and torch.fbgemm_linear_quantize_weight warn (each its own text)",
        """
        import torch
        w = torch.randn(4, 4)
        names = []
        for op in (torch.fbgemm_pack_gemm_matrix_fp16, torch.fbgemm_linear_quantize_weight):
            try:
                op(w)
            except RuntimeError:
                pass  # a build without FBGEMM: the warning comes first
        result = True
        """,
        warns(ALL, _USER, "fbgemm_pack_gemm_matrix_fp16 " + _FBGEMM, result=True),
        "ADV141",
    ),
    _check(
        "K-141/quantize-dynamic-silent",
        "torch.ao.quantization.quantize_dynamic on a Linear gives no fbgemm_* deprecation",
        """
        import torch
        m = torch.nn.Sequential(torch.nn.Linear(4, 4))
        q = torch.ao.quantization.quantize_dynamic(m, {torch.nn.Linear}, dtype=torch.qint8)
        result = list(q(torch.randn(2, 4)).shape)
        """,
        silent(ALL, _FBGEMM, result=[2, 4]),
        "ADV141",
    ),
]
