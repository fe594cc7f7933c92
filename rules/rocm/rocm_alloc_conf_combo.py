from __future__ import annotations

import re

from advisor.rule import Example, Rule, Severity

_COMBO = re.compile(r"(?=.*expandable_segments\s*:\s*true)(?=.*max_split_size_mb)", re.IGNORECASE | re.DOTALL)


def is_risky_combo(value: str) -> bool:
    """`expandable_segments:True` and `max_split_size_mb` in one allocator config string."""
    return bool(_COMBO.match(value))


class RocmExpandableWithMaxSplit(Rule):
    """`expandable_segments:True` together with `max_split_size_mb` in one allocator config (ROCm).

    What it finds, in code that targets ROCm: a string literal that sets both
    `expandable_segments:True` and `max_split_size_mb:N`, wherever it is used
    (`os.environ[...]`, `setdefault`, `_set_allocator_settings`). The same
    strings in Dockerfiles, shell scripts and `.env` files are found by the
    text scanner and reported under this code too.

    Why: after 2.12 turned expandable segments on for ROCm >= 7.0 builds,
    users reported problems with exactly this combination on ROCm builds of
    2.12 and later: `reserved` memory growing about 138 MiB per cycle until the
    device is full (pytorch#123548, gfx1201; tabulated for 2.12.0, 2.12.1,
    2.13.0 in the open PR #193400), and on ROCm 7.14 a live allocation reading
    back as zeros on gfx1201 and gfx1100 (ROCm/legacy-rocm-build#6603). These
    are reports, not a documented limitation; whether your GPU and build are
    affected is what the validation script measures.

    Example:
        os.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:128"

    Fix safety: no fix. Drop one of the two settings after measuring which
    one your workload needs.

    Validation: `rocm_runtime` (runs the combination in a fresh process and
    reports the warning and memory figures).
    """

    code = "ADV802"
    name = "rocm-expandable-max-split"
    message = (
        "`expandable_segments:True` with `max_split_size_mb` in one allocator config: on ROCm builds of torch >= 2.12 "
        "this combination has reported memory growth and corrupted reads (pytorch#123548, ROCm/legacy-rocm-build#6603); "
        "use one of them, and verify with the `rocm_runtime` validation script"
    )
    severity = Severity.WARNING
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = ("max_split_size_mb",)

    valid = [
        'import os, torch\nif torch.version.hip:\n    os.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"',
        'import os, torch\nif torch.version.hip:\n    os.environ["PYTORCH_HIP_ALLOC_CONF"] = "max_split_size_mb:128"',
        # CUDA-only code: the reports are about ROCm builds.
        'import os\nos.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:128"',
    ]
    invalid = [
        Example('import os\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:128"'),
        Example(
            "import os, torch\nif torch.version.hip:\n"
            '    os.environ.setdefault("PYTORCH_ALLOC_CONF", "max_split_size_mb:256,expandable_segments:true")'
        ),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        return refs.has_string_containing("max_split_size_mb")

    @classmethod
    def check_env(cls, assignments):
        for line, column, var, value in assignments:
            if is_risky_combo(value):
                yield line, column, var, cls.message

    def visit_SimpleString(self, node) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and "max_split_size_mb" in value and is_risky_combo(value):
            self.report(node)
