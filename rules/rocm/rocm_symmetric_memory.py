from __future__ import annotations

import re

from advisor.rule import ALSO_NEEDED, Example, Severity, cst

from ._rocm import (
    HIP_GUARD_TEXT,
    HIP_TRIGGERS,
    NOT_ROCM,
    ROCM,
    BranchTracker,
    disables,
    has_hip_guard,
    hip_ifs_turning_off,
)

_SYMM = re.compile(r"symm_?mem|symmetric_memory|SymmMem|nvshmem", re.IGNORECASE)


class RocmSymmetricMemoryGuard(BranchTracker):
    """A hip guard that turns symmetric memory off, in a module that uses it: re-evaluate on 2.12.

    What it finds: in a module that uses symmetric memory (imports
    `torch.distributed._symmetric_memory`, or names `symm_mem`, `SymmMem`,
    `NVSHMEM`), an `if` whose test says "ROCm" (`torch.version.hip`,
    `is_hip()`, `_is_hip`, `current_platform.is_rocm()`, `IS_ROCM`) and whose
    ROCm branch sets something to False/None, raises, returns or skips; e.g.
    sglang's `if _is_hip: symm_mem_is_available = False`, or a config check
    that raises when `torch.version.hip is not None`.

    Why: symmetric memory has had a "CUDA" (IPC) backend on ROCm since before
    2.12, and 2.12 ports the NVSHMEM-backend ops (`put`, `get`,
    `all_to_all_vdev`, ...) to rocSHMEM. There is no new Python name: rocSHMEM
    sits behind the "NVSHMEM" backend and `is_nvshmem_available()`, and it is
    built in only when rocSHMEM >= 3.3.0 was found at build time. Whether the
    official wheels include it is unverified, so this is "re-evaluate",
    never "now available". Many hip guards stay correct: multicast /
    `multimem_*` ops are unavailable on ROCm, the NCCL backend is not built for
    ROCm, and `reduce_scatter_offset` is NCCL-only.

    Example:
        if _is_hip:
            symm_mem_is_available = False

    Fix safety: no fix; the guard may still be right for the ops you use.

    Validation: `rocm_runtime` (reports `is_nvshmem_available()` on your build).
    """

    code = "ADV804"
    name = "rocm-symmetric-memory-guard"
    message = (
        "hip guard disables symmetric memory: on ROCm the CUDA (IPC) backend exists, and since torch 2.12 the "
        "NVSHMEM-backend ops run on rocSHMEM when the wheel was built with rocSHMEM >= 3.3.0; re-evaluate (multicast, "
        "the NCCL backend and reduce_scatter_offset stay unavailable) and check `is_nvshmem_available()` with the "
        "`rocm_runtime` validation script"
    )
    severity = Severity.INFO
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = HIP_TRIGGERS

    valid = [
        # Not a symmetric-memory module.
        "import torch\nif torch.version.hip:\n    use_fast_path = False",
        # The guard enables, not disables.
        "import torch.distributed._symmetric_memory as symm_mem\nimport torch\n"
        "if torch.version.hip:\n    symm_mem.set_backend('CUDA')",
        # CUDA-only code: no hip guard at all.
        "import torch.distributed._symmetric_memory as symm_mem\n"
        "if torch.cuda.get_device_capability() < (9, 0):\n    symm_mem_ok = False",
    ]
    invalid = [
        Example(
            "import torch.distributed._symmetric_memory as symm_mem\n_is_hip = True\nif _is_hip:\n    symm_mem_is_available = False"
        ),
        Example(
            "import torch\n\nclass Config:\n    enable_fsdp_symm_mem: bool = False\n\n    def check(self):\n"
            "        if self.enable_fsdp_symm_mem and (not torch.cuda.is_available() or torch.version.hip is not None):\n"
            "            raise ValueError('symmetric memory needs CUDA')\n"
        ),
        Example(
            "from torch.distributed import _symmetric_memory\nimport torch\n"
            "def backend():\n    if not torch.version.hip:\n        return 'NVSHMEM'\n    else:\n        return None"
        ),
    ]

    @classmethod
    def text_gate(cls):
        # an identifier or an import naming symmetric memory: both are in the text as they are (_SYMM, its first
        # letter apart: a pattern that starts with a case-insensitive group is tried at every byte)
        # and, besides, what a hip guard's identifier is (`has_hip_guard`), in code
        return (), (), ("[sSnN](?i:ymm_?mem|ymmetric_memory|vshmem)", ALSO_NEEDED + HIP_GUARD_TEXT), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # A module using symmetric memory, and an `if` that may be a hip guard whose ROCm branch turns something off.
        uses = has_hip_guard(refs) and any(_SYMM.search(i) for i in refs.identifiers() | refs.imports)
        return uses and hip_ifs_turning_off(refs)

    # The guards are `if`s holding a hip trigger, kept in a slice; the use of symmetric memory may be anywhere.
    whole_module = False
    reads_identifiers = True

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._uses_symm = any(_SYMM.search(i) for i in ctx.identifiers)
        self._guards: list[object] = []

    def visit_If(self, node) -> None:
        super().visit_If(node)
        p = self._ifs[-1]
        if p == ROCM and disables(node.body):
            self._guards.append(node.test)
        elif p == NOT_ROCM and isinstance(node.orelse, cst.Else) and disables(node.orelse.body):
            self._guards.append(node.test)

    def leave_Module(self, node) -> None:
        if self._uses_symm:
            for test in self._guards:
                self.report(test)
