from __future__ import annotations

from advisor.rule import Example, Rule, Severity


class SparsePadDenseInput(Rule):
    """`SparseSemiStructuredTensor._pad_dense_input` was removed in 2.12: calling it raises AttributeError.

    What it finds: any use of the private `_pad_dense_input` attribute (as
    `SparseSemiStructuredTensor._pad_dense_input(x)`, `cls._pad_dense_input(x)` or
    `self._pad_dense_input(x)` in a subclass) in a file that imports torch.

    Why: 2.12 moved the padding of dense inputs for 2:4 semi-structured matmuls
    into the `semi_structured::cutlass_mm` and `semi_structured::cusparselt_mm`
    custom ops and deleted the private helper (it was at
    torch/sparse/semi_structured.py lines 282-303 in 2.11). Code that padded by
    hand before calling `torch._cslt_sparse_mm` or a subclass that overrides the
    matmul path fails on every platform, CUDA and ROCm alike.

    Example:
        a = SparseSemiStructuredTensor._pad_dense_input(a)
        # 2.12: drop it; `A_sparse @ B` pads inside the op

    Fix safety: no fix: whether the call can simply go depends on what your code
    does with the padded shape afterwards.

    Validation: none; run your sparse matmul tests once on the new torch.
    """

    code = "ADV746"
    window_apis = {"old": ("torch.sparse.SparseSemiStructuredTensor._pad_dense_input",)}
    name = "sparse-pad-dense-input"
    message = (
        "`_pad_dense_input` was removed from `SparseSemiStructuredTensor` in torch 2.12 (padding now happens inside "
        "the semi_structured cutlass/cusparselt matmul ops); this raises AttributeError"
    )
    severity = Severity.ERROR
    since = "2.12"
    removed_in = "2.12"
    triggers = ("_pad_dense_input",)
    attribute_targets = ("_pad_dense_input",)

    valid = [
        "import torch\nfrom torch.sparse import to_sparse_semi_structured\nw = to_sparse_semi_structured(x)",
        # Not torch code at all.
        "class Pad:\n    def _pad_dense_input(self, x):\n        return x\nPad()._pad_dense_input(1)",
    ]
    invalid = [
        Example(
            "import torch\nfrom torch.sparse import SparseSemiStructuredTensor\n"
            "a = SparseSemiStructuredTensor._pad_dense_input(a)"
        ),
        Example(
            "import torch\nfrom torch.sparse.semi_structured import SparseSemiStructuredTensorCUSPARSELT as Base\n"
            "class Mine(Base):\n    def _mm(self, b):\n        return super()._mm(self._pad_dense_input(b))"
        ),
    ]

    def visit_Attribute(self, node) -> None:
        if node.attr.value == "_pad_dense_input" and self.imports_torch():
            self.report(node)
