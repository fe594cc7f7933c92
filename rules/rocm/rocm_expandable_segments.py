from __future__ import annotations

import re

from advisor.rule import Example, Severity

from ._rocm import NOT_ROCM, VERIFY, BranchTracker, has_hip_guard

_TRUE = re.compile(r"expandable_segments\s*:\s*true", re.IGNORECASE)
_FALSE = re.compile(r"expandable_segments\s*:\s*false", re.IGNORECASE)
_STALE_FILTER = re.compile(r"expandable_segments not supported", re.IGNORECASE)


class RocmExpandableSegments(BranchTracker):
    """ROCm code that avoids `expandable_segments:True`: supported on ROCm >= 7.0 builds since 2.12.

    What it finds, in code that targets ROCm (see "ROCm context" in docs/rules.md):
    - an allocator config string with `expandable_segments:False`;
    - `expandable_segments:True` set only in the branch of a hip guard that
      excludes ROCm (`if not torch.version.hip:`, `if torch.version.cuda:`, the
      `else` of `if is_hip():`);
    - a warning filter for "expandable_segments not supported", which 2.12
      builds against ROCm >= 7.0 no longer emit.

    Why: up to 2.11, upstream ROCm builds compiled expandable segments out and
    warned "expandable_segments not supported on this platform". 2.12 enables
    them for builds against ROCm >= 7.0 (the C10 allocator guard became
    `ROCM_VERSION < 70000`); builds against older ROCm still warn and ignore it.
    It stays opt-in. Whether *your* wheel has it depends on how it was built,
    so re-evaluate the workaround rather than drop it blindly.

    Example:
        if not torch.version.hip:
            os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"

    Fix safety: no fix. Enabling the allocator mode changes memory behaviour, and
    reports exist of problems with `max_split_size_mb` (see ADV802) and after a
    failed graph capture on ROCm.

    Validation: `rocm_runtime` (tries expandable segments in a fresh process and
    reports the "not supported" warning).
    """

    code = "ADV801"
    name = "rocm-expandable-segments"
    message = (
        "expandable segments are supported on ROCm >= 7.0 builds since torch 2.12 (still opt-in); "
        f"re-evaluate this workaround and {VERIFY}"
    )
    severity = Severity.INFO
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = ("expandable_segments",)

    valid = [
        # Enabled for everyone: nothing to re-evaluate.
        'import os\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"',
        # CUDA-only code: no ROCm marker, so the rule stays silent.
        'import os\nos.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:False"',
        'import torch, os\nif torch.version.hip:\n    os.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"',
    ]
    invalid = [
        Example(
            'import os, torch\nif not torch.version.hip:\n    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"'
        ),
        Example(
            "import os, torch\nif torch.version.hip is not None:\n    pass\nelse:\n"
            '    os.environ.setdefault("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")'
        ),
        Example('import os\nIS_ROCM = True\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:False"'),
        Example(
            "import warnings, torch\nif torch.version.hip:\n"
            '    warnings.filterwarnings("ignore", message=".*expandable_segments not supported.*")'
        ),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        # A string the visitor reports: a stale filter, `:False`, or `:True` where an `if` may say "not ROCm" (a hip
        # identifier or `torch.version.cuda` in a test, or either renamed by an import).
        found = [s for strings in (refs.strings, refs.long_strings) for s in strings if "expandable_segments" in s]
        if any(_STALE_FILTER.search(s) or _FALSE.search(s) for s in found):
            return True
        if not any(_TRUE.search(s) for s in found):
            return False
        renamed = "torch.version.cuda" in refs.renamed or "torch.version.hip" in refs.renamed
        return renamed or "cuda" in refs.guard_identifiers or has_hip_guard(refs)

    @classmethod
    def check_env(cls, assignments):
        for line, column, var, value in assignments:
            if _FALSE.search(value):
                yield line, column, var, f"`expandable_segments:False` in {var} for ROCm: " + cls.message

    def visit_SimpleString(self, node) -> None:
        value = node.evaluated_value
        if not isinstance(value, str) or "expandable_segments" not in value:
            return
        if _STALE_FILTER.search(value):
            self.report(
                node,
                "filter for the 'expandable_segments not supported' warning: 2.12 builds against ROCm >= 7.0 "
                f"no longer emit it (older ROCm builds still do); {VERIFY}",
            )
        elif _FALSE.search(value):
            self.report(node, "`expandable_segments:False` in ROCm code: " + self.message)
        elif _TRUE.search(value) and self.enclosing_device() == NOT_ROCM:
            self.report(node, "`expandable_segments:True` is enabled only off ROCm here: " + self.message)
