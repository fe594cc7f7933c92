from __future__ import annotations

from advisor.rule import Example, ReferenceRule, Severity

NAMES = (
    "fbgemm_linear_fp16_weight",
    "fbgemm_linear_fp16_weight_fp32_activation",
    "fbgemm_linear_int8_weight",
    "fbgemm_linear_int8_weight_fp32_activation",
    "fbgemm_linear_quantize_weight",
    "fbgemm_pack_gemm_matrix_fp16",
    "fbgemm_pack_quantized_matrix",
)


class FbgemmLinearOps(ReferenceRule):
    """`torch.fbgemm_linear_fp16_weight(...)` and the other `torch.fbgemm_*` linear ops are deprecated.

    What it finds: calls of `torch.fbgemm_linear_fp16_weight`, `..._fp16_weight_fp32_activation`,
    `torch.fbgemm_linear_int8_weight`, `..._int8_weight_fp32_activation`,
    `torch.fbgemm_linear_quantize_weight`, `torch.fbgemm_pack_gemm_matrix_fp16` and
    `torch.fbgemm_pack_quantized_matrix`, through aliases and imports. A reference that is not
    called (a table of overrides) does not warn and is left alone.

    Why: UserWarning from C++ (aten/src/ATen/native/QuantizedLinear.cpp), one text per op:
    "fbgemm_linear_fp16_weight is deprecated and will be removed in a future PyTorch release."

    Example:
        packed = torch.fbgemm_pack_gemm_matrix_fp16(w)
        y = torch.fbgemm_linear_fp16_weight(x, packed, b)
        # becomes (a dynamically quantized module, which packs its weight itself)
        q = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.float16)

    Fix safety: no automatic fix: there is no one-call replacement; the ops are what dynamic
    quantization used before its packed-parameter modules (`torch.ops.quantized.linear_dynamic`).

    Verified: runtime on 2.13 and 2.15: `fbgemm_pack_gemm_matrix_fp16` and
    `fbgemm_linear_quantize_weight` warn (the others need packed weights from an FBGEMM build and
    warn first thing, before reading them). The seven texts are in the 2.0.0 to 2.15.0 wheels
    (docs/evidence/torch-cxx-texts.json). Truth: K-141/*.

    Window: C++ warnings, one text per op, e.g. C++ text "fbgemm_pack_quantized_matrix is deprecated and will be
    removed in a future PyTorch release." (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).

    Validation: none.
    """

    code = "ADV141"
    statement_local = True  # reported at the call
    name = "fbgemm-linear-ops"
    message = (
        "`{name}` is deprecated (UserWarning from C++) and will be removed; use dynamic quantization "
        "(`torch.ao.quantization.quantize_dynamic`) instead"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    window_exceptions = {
        "deprecated_in": 'C++ warnings, one text per op, e.g. C++ text "fbgemm_pack_quantized_matrix is deprecated and will be\nremoved in a future PyTorch release." (libtorch_cpu, 2.0.0-2.15.0; docs/evidence/torch-cxx-texts.json).'
    }
    triggers = NAMES
    names = {f"torch.{n}" for n in NAMES}

    valid = [
        "import torch\nOVERRIDES = {torch.fbgemm_linear_fp16_weight: lambda i, w, b: -1}\n",
        "import torch\nw = torch.ops.quantized.linear_prepack_fp16(weight)\n",
        "import mylib\nw = mylib.fbgemm_pack_gemm_matrix_fp16(weight)\n",
    ]
    invalid = [
        Example(
            "import torch\npacked = torch.fbgemm_pack_gemm_matrix_fp16(w)\n",
            message="`torch.fbgemm_pack_gemm_matrix_fp16` is deprecated",
            line=2,
            column=10,
        ),
        Example("from torch import fbgemm_linear_fp16_weight as lin\ny = lin(x, packed, b)\n"),
        Example("import torch as t\nq = t.fbgemm_linear_quantize_weight(w)\n"),
    ]

    def on_reference(self, node, old) -> None:
        """Only a call warns."""

    def on_call(self, node, old) -> None:
        self.report(node, self.message.format(name=old))
