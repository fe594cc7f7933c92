from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Window

from ._config_keys import ConfigKeys, Key

_GONE_214 = Window(removed_in="2.14")
_NOOP_215 = Window(deprecated_in="2.15")
_RENAMED_215 = Window(since="2.15", deprecated_in="2.15")
_USE_INSTEAD = "`{name}` is deprecated since 2.15 (FutureWarning); use `{new}` (new in 2.15)"
KEYS = {
    "partitioned_scatter_memory_budget": Key(
        _GONE_214,
        (
            "`{name}` was removed in 2.14 (setting or patching it raises AttributeError; in `torch.compile(options=)` "
            "RuntimeError 'Unexpected optimization option'); there is no 1:1 replacement (2.14 adds "
            "`partitioned_scatter_force` and related options)"
        ),
    ),
    "cuda.nvgemm_max_profiling_configs": Key(
        _GONE_214,
        (
            "`{name}` was removed in 2.14 (AttributeError); the top-level "
            "`torch._inductor.config.nvgemm_max_profiling_configs` remains"
        ),
    ),
    "use_mixed_mm": Key(_NOOP_215, "`{name}` is deprecated since 2.15 and does nothing (FutureWarning); delete it"),
    "mixed_mm_choice": Key(_NOOP_215, "`{name}` is deprecated since 2.15 and does nothing (FutureWarning); delete it"),
    "benchmark_epilogue_fusion": Key(_RENAMED_215, _USE_INSTEAD, new="benchmark_template_fusion"),
    "max_epilogue_benchmarked_choices": Key(_RENAMED_215, _USE_INSTEAD, new="max_template_fusion_benchmarked_choices"),
    "triton.use_block_ptr": Key(
        _NOOP_215,
        (
            "`{name} = True` warns FutureWarning from 2.15 when the installed Triton lacks block pointers (read from "
            "the 2.15 source, not observed)"
        ),
        only_true=True,
    ),
    "autoheuristic_collect.mixed_mm": Key(Window(removed_in="2.15"), "`{name}` was removed in 2.15 (AttributeError)"),
    "autoheuristic_use.mixed_mm": Key(Window(removed_in="2.15"), "`{name}` was removed in 2.15 (AttributeError)"),
}


class InductorConfigKeys(ConfigKeys):
    """Inductor config keys removed or deprecated in 2.14 / 2.15, each with its own window.

    What it finds: the keys below of `torch._inductor.config` (through any
    alias, read or assigned), in `torch._inductor.config.patch(K=...)`,
    `patch("K", ...)`, `patch({"K": ...})`, and as string keys of
    `torch.compile(..., options={...})`:
    `partitioned_scatter_memory_budget` and `cuda.nvgemm_max_profiling_configs`
    (removed in 2.14), `use_mixed_mm` and `mixed_mm_choice` (no-ops, FutureWarning
    from 2.15), `benchmark_epilogue_fusion` and `max_epilogue_benchmarked_choices`
    (FutureWarning from 2.15: renamed `benchmark_template_fusion` /
    `max_template_fusion_benchmarked_choices`), `triton.use_block_ptr = True`
    (FutureWarning from 2.15 only with a Triton without block pointers: source
    evidence), `autoheuristic_collect.mixed_mm` / `autoheuristic_use.mixed_mm`
    (removed in 2.15).

    Why: a removed key raises AttributeError when set or patched, and
    `torch.compile(options=)` raises RuntimeError "Unexpected optimization
    option"; deprecated keys warn FutureWarning. Verified on the wheels:
    tests/truth R14-6/*, D15-6/mixed_mm-epilogue, D15-7/use_block_ptr, R15-4/minor.

    Example:
        with torch._inductor.config.patch(benchmark_epilogue_fusion=True): ...
        # becomes
        with torch._inductor.config.patch(benchmark_template_fusion=True): ...

    Fix safety: the two 2.15 renames are safe where torch has the new key (2.15:
    decided centrally from the window's `since`); the other keys get no fix
    (no replacement, or deleting a setting is left to you).

    Validation: none.
    """

    code = "ADV759"
    name = "inductor-config-keys"
    message = "`{name}` was removed or deprecated"
    severity = Severity.WARNING
    fix = Applicability.SAFE
    module = "torch._inductor.config"
    keys = KEYS
    compile_options = True
    triggers = tuple(sorted({k.rpartition(".")[2] for k in KEYS} | {"use_mixed_mm", "mixed_mm_choice"}))
    targets = ("torch._inductor.config", "torch.compile")
    valid = [
        "import torch\ntorch._inductor.config.partitioned_scatter_force = True\n",
        "import torch\ntorch._inductor.config.nvgemm_max_profiling_configs = 3\n",
        "import torch\ntorch._inductor.config.triton.use_block_ptr = False\n",
        'import torch\ng = torch.compile(f, options={"max_autotune": True})\n',
    ]
    invalid = [
        Example(
            "import torch\ntorch._inductor.config.partitioned_scatter_memory_budget = 0.2\n",
            message="removed in 2.14",
            line=2,
            column=1,
            target="2.14",
        ),
        Example(
            'import torch\ng = torch.compile(f, options={"use_mixed_mm": True})\n',
            message="does nothing",
            target="2.15",
        ),
        Example(
            "import torch\nwith torch._inductor.config.patch(benchmark_epilogue_fusion=True):\n    pass\n",
            fixed="import torch\nwith torch._inductor.config.patch(benchmark_template_fusion=True):\n    pass\n",
            target="2.15",
        ),
        Example("import torch._inductor.config as ic\nic.cuda.nvgemm_max_profiling_configs = 2\n", target="2.14"),
        Example("import torch\ntorch._inductor.config.triton.use_block_ptr = True\n", target="2.15"),
        Example(
            "import torch\nn = torch._inductor.config.max_epilogue_benchmarked_choices\n",
            fixed="import torch\nn = torch._inductor.config.max_template_fusion_benchmarked_choices\n",
            target="2.15",
        ),
        Example(
            'import torch\nwith torch._inductor.config.patch({"mixed_mm_choice": "aten"}):\n    pass\n', target="2.15"
        ),
    ]
