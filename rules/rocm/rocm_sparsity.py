from __future__ import annotations

from advisor.rule import ALSO_NEEDED, CODE_ONLY, Example, Severity, cst, nodes_of, simple_name

from ._rocm import (
    HIP_GUARD_TEXT,
    NOT_ROCM,
    ROCM,
    BranchTracker,
    ast_simple_name,
    disables,
    has_hip_guard,
    hip_ifs_turning_off,
    polarity,
)

SPARSE_NAMES = frozenset(
    {
        "to_sparse_semi_structured",
        "SparseSemiStructuredTensor",
        "SparseSemiStructuredTensorCUTLASS",
        "SparseSemiStructuredTensorCUSPARSELT",
        "_cslt_compress",
        "_cslt_sparse_mm",
    }
)


def _skip(decorator) -> bool:
    """May this `ast` decorator be `skipIfRocm` or a `skipIf(...)` (`visit_Decorator`)?"""
    func = decorator.func if type(decorator).__name__ == "Call" else decorator
    return ast_simple_name(func) in ("skipIfRocm", "skipIf", "skipif")


def _uses_sparsity(node) -> bool:
    for n in nodes_of(node, cst.Name, cst.Attribute):
        ident = n.value if isinstance(n, cst.Name) else n.attr.value
        if ident in SPARSE_NAMES:
            return True
    return False


class RocmSemiStructuredSparsity(BranchTracker):
    """Hip guards around 2:4 semi-structured sparsity, and `_FORCE_CUTLASS` fallbacks: re-evaluate.

    What it finds, in code that targets ROCm:
    - an `if` on `torch.version.hip` (or `is_hip()`, `IS_ROCM`, ...) whose
      ROCm branch turns sparsity off (False/None, raise, return, skip) in a
      module that uses `to_sparse_semi_structured`,
      `SparseSemiStructuredTensor*`, `torch._cslt_compress` or
      `torch._cslt_sparse_mm`, or whose non-ROCm branch is the only one that
      uses them;
    - a `skipIf(<hip test>)` / `skipIfRocm` decorator on a function that uses them;
    - `SparseSemiStructuredTensor._FORCE_CUTLASS = True`.

    Why: hipSPARSELt support behind the unchanged
    `torch.backends.cusparselt.is_available()` landed around 2.12 (on by
    default at build time only for ROCm >= 7.12; FP8 sparse on gfx950 only,
    with FP32 output). Whether the official 2.12 ROCm wheels have it is
    unverified, so a ROCm skip may now be stale on some builds and right on
    others. `to_sparse_semi_structured` picks CUTLASS only when
    `_FORCE_CUTLASS` is set and otherwise the cuSPARSELt subclass, with no
    availability check; the CUTLASS kernels are CUDA kernels.

    Example:
        if torch.version.hip:
            pytest.skip("2:4 sparsity is CUDA-only")
        w = to_sparse_semi_structured(w)

    Fix safety: no fix; check availability on your build first.

    Validation: `rocm_runtime` (reports `torch.backends.cusparselt.is_available()`).
    """

    code = "ADV805"
    name = "rocm-semi-structured-sparsity"
    message = (
        "ROCm guard around 2:4 semi-structured sparsity: hipSPARSELt can serve it on ROCm builds since around torch 2.12 "
        "(build-dependent: default only for ROCm >= 7.12); re-evaluate, and check "
        "`torch.backends.cusparselt.is_available()` with the `rocm_runtime` validation script"
    )
    severity = Severity.INFO
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = tuple(sorted(SPARSE_NAMES)) + ("_FORCE_CUTLASS",)

    valid = [
        "import torch\nfrom torch.sparse import to_sparse_semi_structured\nw = to_sparse_semi_structured(torch.ones(4, 4))",
        # A hip guard that does not touch sparsity.
        "import torch\nfrom torch.sparse import to_sparse_semi_structured\nif torch.version.hip:\n    print('rocm')",
        # CUDA-only code forcing CUTLASS: no ROCm marker, silent.
        "from torch.sparse import SparseSemiStructuredTensor\nSparseSemiStructuredTensor._FORCE_CUTLASS = True",
    ]
    invalid = [
        Example(
            "import torch, pytest\nfrom torch.sparse import to_sparse_semi_structured\n"
            "def test_sparse():\n    if torch.version.hip:\n        pytest.skip('CUDA only')\n"
            "    to_sparse_semi_structured(torch.ones(4, 4))"
        ),
        Example("import torch\nif not torch.version.hip:\n    w = torch._cslt_compress(w)\n"),
        Example(
            "import torch, unittest\nfrom torch.sparse import to_sparse_semi_structured\n"
            "@unittest.skipIf(torch.version.hip is not None, 'no hipSPARSELt')\n"
            "def test_mm():\n    to_sparse_semi_structured(torch.ones(4, 4))"
        ),
        Example(
            "import torch\nfrom torch.sparse import SparseSemiStructuredTensor\nIS_ROCM = torch.version.hip is not None\n"
            "if not torch.backends.cusparselt.is_available():\n    SparseSemiStructuredTensor._FORCE_CUTLASS = True"
        ),
    ]

    @classmethod
    def text_gate(cls):
        # `._FORCE_CUTLASS`, or a sparsity name (an identifier, in the text as it is); and, besides, what a hip guard's
        # identifier is (`has_hip_guard`: `hip`, `IS_ROCM`, `skipIfRocm`, in any case) or `_FORCE_CUTLASS`:
        # identifiers all, so in code (not "ROCm" in a comment or a docstring)
        sparsity = CODE_ONLY + r"(?:" + "|".join(sorted(SPARSE_NAMES)) + r")\b"
        needed = (ALSO_NEEDED + HIP_GUARD_TEXT, ALSO_NEEDED + CODE_ONLY + "_FORCE_CUTLASS")
        return (), ("_FORCE_CUTLASS",), (sparsity, *needed), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # Every finding but `_FORCE_CUTLASS = True` needs a hip guard or a ROCm skip decorator.
        if "_FORCE_CUTLASS" in refs.attributes:
            return True
        if not has_hip_guard(refs) or refs.identifiers().isdisjoint(SPARSE_NAMES):
            return False
        return hip_ifs_turning_off(refs, SPARSE_NAMES) or any(
            _skip(d) for ds in refs.defs.values() for f in ds for d in f.decorator_list
        )

    # The guards and decorators hold a hip trigger, kept in a slice; the use of sparsity may be anywhere.
    whole_module = False
    reads_identifiers = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._uses = not ctx.identifiers.isdisjoint(SPARSE_NAMES)
        self._guards: list[object] = []
        self._decorators: list[object] = []

    def visit_If(self, node) -> None:
        super().visit_If(node)
        p = self._ifs[-1]
        rocm_branch = (
            node.body
            if p == ROCM
            else node.orelse.body
            if p == NOT_ROCM and isinstance(node.orelse, cst.Else)
            else None
        )
        other = node.body if p == NOT_ROCM else None
        if rocm_branch is not None and disables(rocm_branch):
            self._guards.append(node.test)
        elif other is not None and _uses_sparsity(other):
            self.report(node.test)

    def visit_Decorator(self, node) -> None:
        dec = node.decorator
        ident = simple_name(dec.func if isinstance(dec, cst.Call) else dec)
        if ident == "skipIfRocm" or (
            ident in ("skipIf", "skipif")
            and isinstance(dec, cst.Call)
            and dec.args
            and polarity(self, dec.args[0].value) == ROCM
        ):
            self._decorators.append(node)

    def visit_FunctionDef(self, node) -> None:
        self._decorators = []

    def leave_FunctionDef_decorators(self, node) -> None:
        if self._decorators and _uses_sparsity(node.body):
            for d in self._decorators:
                self.report(d.decorator)
        self._decorators = []

    def visit_Assign(self, node) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Attribute) and t.target.attr.value == "_FORCE_CUTLASS":
                if isinstance(node.value, cst.Name) and node.value.value == "True":
                    self.report(
                        node,
                        "`_FORCE_CUTLASS = True`: the CUTLASS path uses CUDA kernels; on ROCm builds where hipSPARSELt is "
                        "enabled (around torch 2.12, build-dependent) `to_sparse_semi_structured` can use it instead; "
                        "check `torch.backends.cusparselt.is_available()` with the `rocm_runtime` validation script",
                    )

    def leave_Module(self, node) -> None:
        if self._uses:
            for test in self._guards:
                self.report(test)
