"""Deprecated keyword arguments that torch ignores or will drop, found by the coverage ledger (#40): one row
of data each (see `advisor.rule.table`). Each row's `deprecated_in` is the first release whose wheel source
carries its warning (the 2.0.0-2.15.0 macOS wheels); each warns only on a truthy value, so `=False` is silent.
"""

from __future__ import annotations

from advisor.rule import NONE, Row, Safety, Severity, calls, generate

_DDP = ("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel")
_FLEX = "torch.nn.attention.flex_attention"
_ELASTIC = "torch.distributed.elastic.agent.server"
_TP = "torch.distributed.tensor.parallel"
_EXPERIMENTAL = ("torch.profiler._ExperimentalConfig", "torch._C._profiler._ExperimentalConfig")

TABLE: tuple[Row, ...] = (
    Row(
        "ADV155",
        "ddp-check-reduction",
        calls(*_DDP),
        'FutureWarning (UserWarning before 2.4) when truthy: "The `check_reduction` argument in '
        '`DistributedDataParallel` module is deprecated. Please avoid using it." The argument is read nowhere else '
        "(`2.0.0 torch/nn/parallel/distributed.py:644`, `2.15.0 torch/nn/parallel/distributed.py:1012`). Truth: "
        "K-155/ddp-check-reduction.",
        keyword="check_reduction",
        only_truthy=True,
        fix_note="the argument is read only to warn, in every 2.x release, so dropping it changes nothing.",
        example_call="(model, {kw}=True)",
        extra_valid=("import torch\nm = torch.nn.parallel.DistributedDataParallel(model, check_reduction=False)\n",),
        deprecated_in="2.0",
        message="`check_reduction=` of `DistributedDataParallel` is deprecated and ignored (FutureWarning); drop it",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is raised inside `__init__` when the argument is truthy, which the API index does not tie to the keyword",
            ),
        ),
    ),
    Row(
        "ADV156",
        "semi-structured-transposed",
        calls("torch.sparse.to_sparse_semi_structured", "torch.sparse.semi_structured.to_sparse_semi_structured"),
        'When truthy: "Setting transpose from `to_sparse_semi_structured` is deprecated and will be removed in a '
        'future release. `SparseSemiStructuredTensor` only support contiguous input tensors." In 2.3 this is raised '
        "as a `DeprecationWarning` exception (`2.3.0 torch/sparse/semi_structured.py:357`), from 2.4 it is a "
        "FutureWarning (`2.15.0 torch/sparse/semi_structured.py:362`). Truth: K-156/semi-structured-transposed.",
        keyword="transposed",
        only_truthy=True,
        fix=NONE,
        fix_note="no automatic fix: pass a contiguous (not transposed) tensor and drop the argument.",
        example_call="(w, {kw}=True)",
        extra_valid=("import torch\ns = torch.sparse.to_sparse_semi_structured(w, transposed=False)\n",),
        deprecated_in="2.3",
        message="`transposed=` of `to_sparse_semi_structured` is deprecated (an error in 2.3, FutureWarning from 2.4); "
        "pass a "
        "contiguous tensor and drop it",
    ),
    Row(
        "ADV157",
        "block-mask-compile-flag",
        calls(f"{_FLEX}.create_block_mask"),
        'DeprecationWarning from 2.6 when truthy: "_compile flag on create_block_mask was originally added to work '
        "around a torch.compile limitation. That limitation has since been addressed. So, to compile "
        'create_block_mask, we suggest doing torch.compile(create_block_mask). ..." '
        "(`2.15.0 torch/nn/attention/flex_attention.py:2065`). Truth: K-157/block-mask-compile.",
        keyword="_compile",
        only_truthy=True,
        fix=NONE,
        fix_note="no automatic fix: compile the function instead, `torch.compile(create_block_mask)(...)`.",
        example_call="(mask_mod, 1, 1, 128, 128, {kw}=True)",
        extra_valid=(f"from {_FLEX} import create_block_mask\nm = create_block_mask(f, 1, 1, 8, 8, _compile=False)\n",),
        deprecated_in="2.6",
        message="`create_block_mask(_compile=True)` is deprecated (DeprecationWarning from 2.6); call "
        "`torch.compile(create_block_mask)(...)` instead",
    ),
    Row(
        "ADV158",
        "worker-spec-fn",
        calls(f"{_ELASTIC}.WorkerSpec", f"{_ELASTIC}.api.WorkerSpec"),
        'DeprecationWarning when truthy: "WorkerSpec.fn will be deprecated, please use WorkerSpec.entrypoint '
        'instead"; `fn` is copied into `entrypoint` (`2.0.0 torch/distributed/elastic/agent/server/api.py:91`, '
        "`2.15.0 ... api.py:113`). Truth: K-158/worker-spec-fn.",
        keyword="fn",
        only_truthy=True,
        fix=NONE,
        fix_note="no automatic fix: pass the function as `entrypoint=` (a rename would clash with an "
        "`entrypoint=` already passed).",
        example_call='(role="trainer", local_world_size=1, {kw}=train)',
        deprecated_in="2.0",
        message="`WorkerSpec(fn=...)` is deprecated (DeprecationWarning); pass the function as `entrypoint=`",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is raised in the dataclass's `__post_init__` when `fn` is set, which the API index does not tie to the keyword",
            ),
        ),
    ),
    Row(
        "ADV164",
        "parallelize-tp-mesh-dim",
        calls(f"{_TP}.parallelize_module", f"{_TP}.api.parallelize_module"),
        '2.2 warns "tp_mesh_dim is deprecated and will be removed soon. If you have a 2-D or N-D device_mesh, '
        'consider passing in device_mesh["tp"]" when the mesh has more than one dimension (`2.2.0 '
        "torch/distributed/tensor/parallel/api.py:94`); 2.3 removes the parameter, so passing it is a TypeError "
        "from 2.3 (the 2.3.0-2.15.0 signatures have no `tp_mesh_dim`). Truth: K-164/tp-mesh-dim.",
        keyword="tp_mesh_dim",
        fix=NONE,
        fix_note='no automatic fix: pass the 1-D sub-mesh, `device_mesh["tp"]`, instead of the index.',
        example_call="(model, mesh, plan, {kw}=1)",
        deprecated_in="2.2",
        removed_in="2.3",
        severity=Severity.ERROR,
        message="`tp_mesh_dim=` of `parallelize_module` is removed in 2.3 (TypeError); pass the 1-D mesh, e.g. "
        '`device_mesh["tp"]`',
        window_exceptions=(
            (
                "removed_in",
                "the miner does not record removed parameters: `tp_mesh_dim` is absent from the 2.3.0 signature.",
            ),
            (
                "deprecated_in",
                "the 2.2 warning goes through a helper, `_deprecate_warnings`, which the index does not follow.",
            ),
        ),
    ),
    Row(
        "ADV165",
        "profiler-adjust-step",
        calls(*_EXPERIMENTAL),
        'FutureWarning from 2.14 when truthy, raised by the profiler the config is given to: "adjust_profiler_step is '
        'deprecated and ignored. It will be removed in a future release." (`2.15.0 torch/autograd/profiler.py:263`). '
        "The flag is new in 2.13 (`torch/_C/_profiler.pyi` of 2.13.0) and ignored from 2.14. Truth: "
        "K-165/adjust-profiler-step.",
        keyword="adjust_profiler_step",
        only_truthy=True,
        fix_note="from 2.14 the flag is ignored, so dropping it changes nothing there.",
        safety=Safety("2.14", "on 2.13 the profiler adjusts its step numbers to the optimizer steps"),
        example_call="(verbose=True, {kw}=True)",
        deprecated_in="2.14",
        since="2.13",
        message="`adjust_profiler_step=` of `_ExperimentalConfig` is deprecated and ignored from 2.14 (FutureWarning "
        "when the profiler starts); drop it",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is raised by `torch.autograd.profiler.profile`, which reads the config "
                "(the index has it there), not by `_ExperimentalConfig`, a C++ class.",
            ),
        ),
    ),
    Row(
        "ADV166",
        "nccl-reduce-outputs",
        calls("torch.cuda.nccl.reduce"),
        'FutureWarning (UserWarning before 2.4) when `outputs=` is given: "`nccl.reduce` with an output tensor list '
        "is deprecated. Please specify a single output tensor with argument 'output' instead.\" "
        "(`2.0.0 torch/cuda/nccl.py:74-86`, `2.15.0 torch/cuda/nccl.py:94-106`): only `outputs[root]` is used. "
        "Truth: K-166/nccl-reduce-outputs.",
        keyword="outputs",
        only_truthy=True,
        fix=NONE,
        fix_note="no automatic fix: pass the root's tensor, `output=outputs[root]`.",
        example_call="(inputs, root=0, {kw}=outs)",
        deprecated_in="2.0",
        message="`outputs=` of `torch.cuda.nccl.reduce` is deprecated (FutureWarning); pass the root's tensor as "
        "`output=`",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning is raised in the function's body when `outputs` is given, which the API index does not tie to the keyword",
            ),
        ),
    ),
)

generate(TABLE, globals())
