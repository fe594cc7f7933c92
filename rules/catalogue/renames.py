"""The deprecation catalogue's plain renames: one row of data each (see `advisor.rule.table`).

Each row becomes a rule class (its own code, docs and examples); a rename is one
`Row(...)` here. Rows carry the exact warning torch 2.13 emits (checked by
tests/truth/test_catalogue_truth.py against the installed torch) and the version in
which the replacement first exists, so `--target-version` can hold them back.
Rewrites that need argument logic have their own files.

Each row's `deprecated_in` is the first release whose wheel carries its warning: a grep
of the unpacked `.py` files of the 2.0.0-2.15.0 macOS wheels for the warning text (2.4
reworded many of them with backticks; both spellings were searched). ADV731's warning is
C++: its string is in `torch/lib/libtorch_python.dylib` of 2.1.0 and not of 2.0.0.
"""

from __future__ import annotations

from advisor.rule import NONE, UNSAFE, Entry, Example, Kind, Row, Severity, generate

TABLE: tuple[Row, ...] = (
    Row(
        "ADV705",
        "has-backend-flags",
        (
            Entry("torch.has_cuda", "torch.backends.cuda.is_built", "()", is_call=False),
            Entry("torch.has_cudnn", "torch.backends.cudnn.is_available", "()", is_call=False),
            Entry("torch.has_mps", "torch.backends.mps.is_built", "()", is_call=False),
            Entry("torch.has_mkldnn", "torch.backends.mkldnn.is_available", "()", is_call=False),
        ),
        "UserWarning from 2.1: \"'has_cuda' is deprecated, please use 'torch.backends.cuda.is_built()'\" (likewise for "
        "the others). 2.0 does not warn. Checked in the wheels: 2.1.0's `torch/__init__.py` adds `_deprecated_attrs` "
        "and a module `__getattr__` that warns; 2.0.0 has neither; the four `torch.backends.*` functions exist in 2.0.0.",
        fix_note="each flag becomes the equivalent `torch.backends.*` call with the same value.",
        deprecated_in="2.1",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is the module `__getattr__` of `torch` (`2.1.0 torch/__init__.py:1797-1826`, "
                "`_deprecated_attrs`), which the API index does not tie to the names it serves.",
            ),
        ),
    ),
    Row(
        "ADV706",
        "accelerator-device-idx",
        (
            Entry("torch.accelerator.current_device_idx", "torch.accelerator.current_device_index"),
            Entry("torch.accelerator.set_device_idx", "torch.accelerator.set_device_index"),
        ),
        'FutureWarning: "Use `current_device_index` instead." / "Use `set_device_index` instead." Both names '
        "arrive in 2.6 (the 2.6.0 wheel already wraps the `_idx` forms in `@deprecated`).",
        since="2.6",
        deprecated_in="2.6",
    ),
    Row(
        "ADV707",
        "assert-allclose",
        (
            Entry(
                "torch.testing.assert_allclose",
                "torch.testing.assert_close",
                kwargs="equal_nan=True, check_dtype=False",
                positional=2,
                both_or_neither=("rtol", "atol"),
            ),
        ),
        'FutureWarning: "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. Please use `torch.testing.assert_close()` instead."',
        fix=UNSAFE,
        fix_note="`assert_allclose` used looser float32 defaults (rtol 1e-4, atol 1e-5); `assert_close` may fail where it passed. Pass `rtol=`/`atol=` if you relied on them. "
        "A keyword the call already passes is kept (never added twice); calls with `**kwargs`, with more than two positional "
        "arguments (`assert_close` takes the rest by keyword only) or with only one of `rtol`/`atol` (`assert_close` raises) get no fix.",
        deprecated_in="2.0",
        extra_invalid=(
            Example(
                "import torch\ntorch.testing.assert_allclose(a, b, equal_nan=False)\n",
                fixed="import torch\ntorch.testing.assert_close(a, b, equal_nan=False, check_dtype=False)\n",
            ),
            Example(
                "import torch\ntorch.testing.assert_allclose(a, b, rtol=1e-3)\n",
                fixed="import torch\ntorch.testing.assert_allclose(a, b, rtol=1e-3)\n",
            ),
        ),
    ),
    Row(
        "ADV708",
        "functional-upsample",
        (
            Entry("torch.nn.functional.upsample", "torch.nn.functional.interpolate"),
            Entry("torch.nn.functional.upsample_nearest", "torch.nn.functional.interpolate", kwargs='mode="nearest"'),
            Entry(
                "torch.nn.functional.upsample_bilinear",
                "torch.nn.functional.interpolate",
                kwargs='mode="bilinear", align_corners=True',
            ),
        ),
        'UserWarning: "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead." (likewise `upsample_nearest`, `upsample_bilinear`).',
        fix_note="`interpolate` takes the same leading arguments; `upsample_nearest` and `upsample_bilinear` become `interpolate` with the mode (and `align_corners=True`) they always used.",
        deprecated_in="2.0",
    ),
    Row(
        "ADV710",
        "stateless-functional-call",
        (Entry("torch.nn.utils.stateless.functional_call", "torch.func.functional_call"),),
        'FutureWarning: "`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 ... Please use `torch.func.functional_call` instead which is a drop-in replacement."',
        deprecated_in="2.0",
    ),
    Row(
        "ADV711",
        "private-is-compiling",
        (
            Entry("torch._utils.is_compiling", "torch.compiler.is_compiling"),
            Entry("torch._dynamo.external_utils.is_compiling", "torch.compiler.is_compiling"),
            # its re-export: `torch._dynamo.is_compiling is torch._dynamo.external_utils.is_compiling` (2.13 wheel)
            Entry("torch._dynamo.is_compiling", "torch.compiler.is_compiling"),
        ),
        'UserWarning: "`torch._utils.is_compiling` is deprecated. Use `torch.compiler.is_compiling` instead." '
        "(`@deprecated` from the 2.6.0 wheel; 2.3-2.5 only have a TODO).",
        since="2.3",
        deprecated_in="2.6",
    ),
    Row(
        "ADV712",
        "impl-abstract",
        (Entry("torch.library.impl_abstract", "torch.library.register_fake"),),
        'FutureWarning: "`torch.library.impl_abstract` was renamed to `torch.library.register_fake`. Please use that instead; we will remove `torch.library.impl_abstract` in a future version of PyTorch."',
        since="2.4",
        deprecated_in="2.4",
    ),
    Row(
        "ADV713",
        "memory-cached",
        (
            Entry("torch.cuda.memory_cached", "torch.cuda.memory_reserved"),
            Entry("torch.cuda.max_memory_cached", "torch.cuda.max_memory_reserved"),
        ),
        'FutureWarning: "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`"',
        deprecated_in="2.0",
    ),
    Row(
        "ADV714",
        "reset-max-memory",
        (
            Entry("torch.cuda.reset_max_memory_allocated", "torch.cuda.reset_peak_memory_stats"),
            Entry("torch.cuda.reset_max_memory_cached", "torch.cuda.reset_peak_memory_stats"),
        ),
        'FutureWarning: "torch.cuda.reset_max_memory_allocated now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory stats."',
        fix_note="the old functions already call `reset_peak_memory_stats`.",
        deprecated_in="2.0",
    ),
    Row(
        "ADV719",
        "functorch",
        tuple(
            Entry(f"functorch.{n}", f"torch.func.{n}")
            for n in ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "functionalize")
        ),
        'FutureWarning: "We\'ve integrated functorch into PyTorch. As the final step of the integration, `functorch.vmap` is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please use `torch.vmap` instead"',
        extra_invalid=(
            Example(
                "from functorch import vmap, grad\nvalue = vmap(f)\ng = grad\n",
                fixed="import torch\n\nvalue = torch.func.vmap(f)\ng = torch.func.grad\n",
                count=2,
            ),
        ),
        deprecated_in="2.0",
    ),
    Row(
        "ADV721",
        "ger",
        (Entry("torch.ger", "torch.outer"),),
        "`torch.ger` is deprecated in its documentation in favour of `torch.outer` (no warning yet): advice, "
        "as for `torch.norm` (ADV206), since nothing warns or fails.",
        kind=Kind.ADVICE,
        severity=Severity.INFO,
    ),
    Row(
        "ADV722",
        "functional-tanh-sigmoid",
        (
            Entry("torch.nn.functional.tanh", "torch.tanh"),
            Entry("torch.nn.functional.sigmoid", "torch.sigmoid"),
        ),
        "These are thin aliases of `torch.tanh` / `torch.sigmoid`. Their deprecation warning is gone in 2.13 (they just call `input.tanh()`), so this is style, not a deprecation.",
        severity=Severity.INFO,
    ),
    Row(
        "ADV723",
        "nllloss2d",
        (Entry("torch.nn.NLLLoss2d", "torch.nn.NLLLoss"),),
        'FutureWarning: "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in replacement ..."',
        deprecated_in="2.0",
    ),
    Row(
        "ADV724",
        "nn-container",
        (Entry("torch.nn.Container", "torch.nn.Module"),),
        'FutureWarning: "`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. Subclass that instead."',
        fix=UNSAFE,
        fix_note="`Container(**modules)` registered its keyword arguments as submodules; `Module()` takes none. Subclassing is a drop-in change.",
        deprecated_in="2.0",
    ),
    Row(
        "ADV725",
        "clip-grad-norm",
        (Entry("torch.nn.utils.clip_grad_norm", "torch.nn.utils.clip_grad_norm_"),),
        'FutureWarning: "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`."',
        fix_note="the old name already calls `clip_grad_norm_` (both clip in place).",
        deprecated_in="2.0",
    ),
    Row(
        "ADV728",
        "stream-base",
        (
            Entry("torch._streambase._StreamBase", "torch.Stream"),
            Entry("torch._streambase._EventBase", "torch.Event"),
        ),
        'FutureWarning: "`torch._streambase._StreamBase` is deprecated. Please use `torch.Stream` instead." '
        "(`@deprecated` from the 2.6.0 wheel).",
        since="2.3",
        deprecated_in="2.6",
    ),
    Row(
        "ADV731",
        "set-default-tensor-type",
        (Entry("torch.set_default_tensor_type", None),),
        'UserWarning: "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use torch.set_default_dtype() and torch.set_default_device() as alternatives."',
        fix=NONE,
        fix_note="no automatic fix: one call splits into a dtype and a device setting.",
        advice="use `torch.set_default_dtype()` and `torch.set_default_device()`",
        since="2.1",
        deprecated_in="2.1",
        window_exceptions=(
            (
                "deprecated_in",
                'a C++ warning: C++ text "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1" '
                "(libtorch_python, 2.1.0-2.15.0; docs/evidence/torch-cxx-texts.json).",
            ),
        ),
    ),
    Row(
        "ADV734",
        "upsampling-modules",
        (
            Entry("torch.nn.UpsamplingNearest2d", None),
            Entry("torch.nn.UpsamplingBilinear2d", None),
        ),
        "Deprecated in their documentation in favour of `torch.nn.functional.interpolate` (no warning is emitted).",
        fix=NONE,
        severity=Severity.INFO,
        fix_note="no automatic fix: a module becomes a function call (or `nn.Upsample(mode=...)`).",
        advice='use `nn.Upsample(scale_factor=..., mode="nearest"/"bilinear", align_corners=...)` or `F.interpolate`',
    ),
    Row(
        "ADV735",
        "private-register-pytree-node",
        (Entry("torch.utils._pytree._register_pytree_node", "torch.utils._pytree.register_pytree_node"),),
        'FutureWarning: "`torch.utils._pytree._register_pytree_node` is deprecated. Please use `torch.utils._pytree.register_pytree_node` instead."',
        fix=UNSAFE,
        fix_note="the `to_str_fn` / `maybe_from_str_fn` keyword arguments changed.",
        since="2.2",
        deprecated_in="2.2",
    ),
    Row(
        "ADV736",
        "vmap-internals",
        (Entry("torch._vmap_internals.vmap", "torch.vmap"),),
        'FutureWarning: "Please use `torch.vmap` instead of `torch._vmap_internals.vmap`." (`@deprecated` from the '
        '2.4.0 wheel; before, only its "experimental prototype" warning)',
        deprecated_in="2.4",
    ),
    Row(
        "ADV739",
        "collective-single",
        (
            Entry("torch.distributed.all_gather_into_tensor", "torch.distributed.all_gather_single"),
            Entry("torch.distributed.reduce_scatter_tensor", "torch.distributed.reduce_scatter_single"),
            Entry(
                "torch.distributed.gather_into_tensor",
                "torch.distributed.gather_single",
                since="2.14",
                deprecated_in="2.14",
                message="`{old}` is deprecated in 2.14 (FutureWarning) in favour of `{new}`, which has the same "
                "signature; 2.15 removes the warning",
            ),
        ),
        "FutureWarning in 2.13 and 2.14 (`gather_into_tensor`: 2.14 only, where `gather_single` first exists); 2.15 "
        'withdraws the deprecation and keeps the old names as documented aliases ("kept for backward compatibility; '
        'new code should call ..."), so nothing is reported for a 2.15+ target. The `*_single` names do not exist in '
        "2.12. Truth: D15-10/all_gather_into_tensor, D15-10/reduce_scatter_tensor, D15-10/deprecated-flags, "
        "D14-5/gather_into_tensor-call, D14-5/gather_single-exists.",
        message="`{old}` is deprecated in 2.13 and 2.14 (FutureWarning) in favour of `{new}` (same signature); 2.15 "
        "removes the warning and keeps `{old}` as an alias",
        since="2.13",
        deprecated_in="2.13",
        undeprecated_in="2.15",
        severity=Severity.INFO,
        fix_note="the signatures are identical: `(output_tensor, input_tensor, group=None, async_op=False)` "
        "(`gather_single`: `(output, input, dst=..., group=None, async_op=False)`, as `gather_into_tensor`).",
    ),
    Row(
        "ADV740",
        "functional-collective-single",
        tuple(
            Entry(
                f"torch.distributed._functional_collectives.{old}", f"torch.distributed._functional_collectives.{new}"
            )
            for old, new in (
                ("all_gather_tensor", "all_gather_single"),
                ("all_gather_tensor_autograd", "all_gather_single_autograd"),
                ("reduce_scatter_tensor", "reduce_scatter_single"),
                ("reduce_scatter_tensor_autograd", "reduce_scatter_single_autograd"),
                ("all_gather_into_tensor_coalesced", "all_gather_single_coalesced"),
                ("reduce_scatter_tensor_coalesced", "reduce_scatter_single_coalesced"),
            )
        ),
        "Deprecated in 2.13 in favour of the `*_single` names, which do not exist in 2.12; only reported for a 2.13+ "
        "target (still deprecated in 2.15, unlike the `torch.distributed.*` aliases of ADV739). Truth: "
        "D15-10/still-deprecated-funcol.",
        since="2.13",
        deprecated_in="2.13",
        severity=Severity.INFO,
    ),
    Row(
        "ADV744",
        "private-default-collate",
        (
            Entry("torch.utils.data._utils.collate.default_collate", "torch.utils.data.default_collate"),
            Entry("torch.utils.data._utils.collate.default_convert", "torch.utils.data.default_convert"),
        ),
        "A private path (TorchFix TOR104); the public names are the supported ones.",
        severity=Severity.INFO,
    ),
)


generate(TABLE, globals())
