"""Deprecated keyword arguments: one row of data each (see `advisor.rule.table`).

A row names the functions (`calls(...)`), the old keyword, and what to do:
rename it, drop it, or (no fix) only advise. Like `catalogue.py`, each row
becomes a rule. Each row's `deprecated_in` is the first release whose wheel source
(`.py` of the 2.0.0-2.15.0 macOS wheels) carries its warning.
"""

from __future__ import annotations

from advisor.rule import NONE, UNSAFE, Row, Safety, Severity, calls, generate

# The 2.14 warning is raised by torch.autograd.profiler.profile (the index has it there), which
# torch.profiler.profile / _KinetoProfile construct with the same flag: the index cannot follow that call.
_PROFILE_VIA = (
    "`torch.profiler.profile` and `_KinetoProfile` warn through the `torch.autograd.profiler.profile` they "
    "construct (torch/autograd/profiler.py in the 2.14.0 wheel); the API index records the warning there only."
)

# The observers whose constructor passes `reduce_range` to UniformQuantizationObserverBase (which warns when it
# is truthy), by every public path, and their `with_args` partials (which construct them later).
_OBSERVERS = tuple(
    f"{module}.{cls}{suffix}"
    for module in ("torch.ao.quantization", "torch.ao.quantization.observer", "torch.quantization")
    for cls in (
        "MinMaxObserver",
        "MovingAverageMinMaxObserver",
        "PerChannelMinMaxObserver",
        "MovingAveragePerChannelMinMaxObserver",
        "HistogramObserver",
    )
    for suffix in ("", ".with_args")
)

TABLE: tuple[Row, ...] = (
    Row(
        "ADV715",
        "jit-trace-optimize",
        calls("torch.jit.trace"),
        'UserWarning in 2.0-2.3 ("`optimize` is deprecated and has no effect. Use `with '
        'torch.jit.optimized_execution() instead", `2.0.0 jit/_trace.py:775-777`, no category), FutureWarning from 2.4 '
        '("... `with torch.jit.optimized_execution()` instead", `2.4.0 jit/_trace.py:987-989`)',
        keyword="optimize",
        fix_note="the argument has no effect, so dropping it changes nothing.",
        example_call="(m, x, {kw}=True)",
        deprecated_in="2.0",
    ),
    Row(
        "ADV726",
        "backward-grad-variables",
        calls("torch.autograd.backward"),
        'FutureWarning: "`grad_variables` is deprecated. Use `grad_tensors` instead."',
        keyword="grad_variables",
        new_keyword="grad_tensors",
        fix_note="`grad_variables` is passed on as `grad_tensors`.",
        example_call="(loss, {kw}=g)",
        deprecated_in="2.0",
    ),
    Row(
        "ADV727",
        "grad-only-inputs",
        calls("torch.autograd.grad"),
        'Documented as "deprecated and is ignored now (defaults to True)"; it warns (`if not only_inputs:`, '
        "UserWarning in 2.0-2.3, FutureWarning from 2.4: `2.0.0 autograd/__init__.py:282`, "
        "`2.4.0 autograd/__init__.py:399-405`) only when the value is falsy, so a literal `True` is not reported.",
        keyword="only_inputs",
        only_falsy=True,
        extra_valid=("import torch\ng = torch.autograd.grad(y, x, only_inputs=True)\n",),
        fix_note="the argument is ignored, so dropping it changes nothing.",
        example_call="(y, x, {kw}=False)",
        deprecated_in="2.0",
    ),
    Row(
        "ADV730",
        "dataloader-pin-memory-device",
        calls("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"),
        'UserWarning from 2.9: "pin_memory_device is deprecated, the current accelerator will be used as the device, '
        'ignore pin_memory_device=..."; from 2.9 the argument is ignored, before it the loader pins for the device it '
        "names. Checked in the wheels: the warning is in `torch/utils/data/dataloader.py` of 2.9.0-2.15.0 and absent "
        "from 2.0.0-2.8.0, whose loaders use `pin_memory_device` when set.",
        keyword="pin_memory_device",
        fix_note="from 2.9 the argument is ignored, so dropping it changes nothing there.",
        deprecated_in="2.9",
        safety=Safety(
            "2.9",
            "before 2.9 the loader pins memory for the device `pin_memory_device` "
            "names; without it, for the default device",
        ),
        example_call='(ds, pin_memory=True, {kw}="cuda")',
        window_exceptions=(
            (
                "deprecated_in",
                "the loader's iterator warns, not `DataLoader(...)`: `_BaseDataLoaderIter.__init__` "
                "(`2.9.0 torch/utils/data/dataloader.py:658-662`, when `pin_memory` is set too).",
            ),
        ),
    ),
    Row(
        "ADV738",
        "hardtanh-min-value",
        calls("torch.nn.Hardtanh"),
        'UserWarning in 2.0-2.3 ("keyword argument min_value is deprecated and rename to min_val", '
        '`2.0.0 nn/modules/activation.py:223`), FutureWarning from 2.4 ("keyword argument `min_value` is deprecated '
        'and rename to `min_val`", `2.4.0 nn/modules/activation.py:224-225`)',
        keyword="min_value",
        new_keyword="min_val",
        fix_note="a pure keyword rename.",
        example_call="({kw}=-1.0)",
        deprecated_in="2.0",
    ),
    Row(
        "ADV745",
        "hardtanh-max-value",
        calls("torch.nn.Hardtanh"),
        'UserWarning in 2.0-2.3 ("keyword argument max_value is deprecated and rename to max_val", '
        '`2.0.0 nn/modules/activation.py:226`), FutureWarning from 2.4 ("keyword argument `max_value` is deprecated '
        'and rename to `max_val`", `2.4.0 nn/modules/activation.py:231-232`)',
        keyword="max_value",
        new_keyword="max_val",
        fix_note="a pure keyword rename.",
        example_call="({kw}=1.0)",
        deprecated_in="2.0",
    ),
    Row(
        "ADV729",
        "flex-attention-return-lse",
        calls("torch.nn.attention.flex_attention.flex_attention"),
        'FutureWarning: "return_lse is deprecated and will be removed in v2.10. ..." (still accepted in 2.13). Use `return_aux=AuxRequest(lse=True)`.',
        keyword="return_lse",
        fix=NONE,
        fix_note="no automatic fix: the return structure differs.",
        since="2.9",
        example_call="(q, k, v, {kw}=True)",
        deprecated_in="2.9",
        only_truthy=True,  # `elif return_lse and return_aux is None:` warns; `return_lse=False` is silent
        extra_valid=(
            "from torch.nn.attention.flex_attention import flex_attention\no = flex_attention(q, k, v, return_lse=False)\n",
        ),
        window_exceptions=(
            (
                "deprecated_in",
                "the warning goes through a helper, `_warn_once(..., category=FutureWarning)` "
                "(`2.9.0 torch/nn/attention/flex_attention.py:1621-1626`), which the API index does not follow.",
            ),
        ),
    ),
    Row(
        "ADV748",
        "profiler-with-modules",
        calls(
            "torch.profiler.profile",
            "torch.profiler.profiler.profile",
            "torch.autograd.profiler.profile",
            "torch.profiler._KinetoProfile",
            "torch.profiler.profiler._KinetoProfile",
        ),
        "FutureWarning from 2.14 when the profile is constructed or started (only a truthy value warns): module "
        "information is only collected for TorchScript models. `with_stack=True` records different output (nn.Module "
        "events in eager models). Truth: D14-3/autograd-profiler, D14-3/torch-profiler.",
        keyword="with_modules",
        fix=UNSAFE,
        only_truthy=True,
        deprecated_in="2.14",
        message="`with_modules=` is deprecated since 2.14 (FutureWarning): it only collects data for TorchScript models "
        "and does nothing in eager mode; drop it (use `with_stack=True` for nn.Module events in eager models)",
        fix_note="a no-op for eager models; TorchScript models lose their module information.",
        example_call="({kw}=True)",
        extra_valid=("import torch\np = torch.profiler.profile(with_modules=False)\n",),
        window_exceptions=tuple(
            (f"{f} deprecated_in", _PROFILE_VIA)
            for f in (
                "torch.profiler.profile",
                "torch.profiler.profiler.profile",
                "torch.profiler._KinetoProfile",
                "torch.profiler.profiler._KinetoProfile",
            )
        ),
    ),
    Row(
        "ADV758",
        "compile-shapes-spec",
        calls("torch.compile"),
        "`torch.compile(shapes_spec=...)` was renamed `dynamic_shapes=` in 2.14 with no deprecation period (an "
        "experimental parameter): `shapes_spec=` is a TypeError on 2.14+, and `dynamic_shapes=` a TypeError on 2.13. "
        "Truth: R14-5/shapes_spec, R14-5/dynamic_shapes.",
        keyword="shapes_spec",
        new_keyword="dynamic_shapes",
        since="2.14",
        removed_in="2.14",
        severity=Severity.ERROR,
        window_exceptions=(
            (
                "removed_in",
                "the miner does not record removed parameters: `shapes_spec` is simply "
                "absent from the 2.14.0 wheel's `torch.compile` signature.",
            ),
        ),
        message="`torch.compile(shapes_spec=...)` was renamed to `dynamic_shapes=` in 2.14 (TypeError on 2.14+; "
        "`dynamic_shapes=` is a TypeError on 2.13)",
        fix_note="a keyword rename; it breaks 2.13, so it is safe only when your lowest supported torch is 2.14 "
        "(otherwise it needs a version check).",
        example_call="(f, {kw}=spec)",
        extra_valid=("import torch\ng = torch.compile(f, dynamic=True)\n",),
    ),
    Row(
        "ADV741",
        "ddp-broadcast-buffers",
        calls("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"),
        "Deprecated in 2.13 in favour of `forward_sync_buffers`, which does not exist in 2.12 (so this is reported for a 2.13+ target only). Unlike `broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init.",
        keyword="broadcast_buffers",
        fix=NONE,
        fix_note="no automatic fix: the semantics differ.",
        since="2.13",
        deprecated_in="2.13",
        severity=Severity.INFO,
        example_call="(model, {kw}=False)",
    ),
    Row(
        "ADV153",
        "observer-reduce-range",
        calls(*_OBSERVERS),
        'UserWarning on every construction with a truthy `reduce_range` ("Please use quant_min and quant_max to '
        'specify the range for observers. reduce_range will be deprecated in a future release of PyTorch."), in '
        "every 2.x release (`2.0.0 ao/quantization/observer.py`, `2.15.0 ao/quantization/observer.py:246`; runtime "
        "2.13 for MinMaxObserver, HistogramObserver and the torch.quantization alias). `reduce_range=False` is "
        "silent. Truth: K-153/reduce-range.",
        keyword="reduce_range",
        only_truthy=True,
        fix=NONE,
        fix_note="no automatic fix: the range `reduce_range=True` stands for depends on the dtype (quint8: "
        "`quant_min=0, quant_max=127`; qint8: `-64, 63`).",
        message="`reduce_range=` on a quantization observer is deprecated (UserWarning on every construction); "
        "pass `quant_min=` / `quant_max=` instead (quint8 with reduce_range: 0, 127)",
        advice="pass `quant_min` / `quant_max`",
        example_call="({kw}=True)",
        extra_valid=("import torch\nobs = torch.ao.quantization.MinMaxObserver(reduce_range=False)\n",),
        deprecated_in="2.0",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is raised by the base class `UniformQuantizationObserverBase.__init__`, where the index "
                "records it, not by the observers that pass `reduce_range` on to it.",
            ),
        ),
    ),
)

generate(TABLE, globals())
