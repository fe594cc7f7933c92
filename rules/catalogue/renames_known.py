"""Well-known 2.x deprecations with a plain shape: one row of data each (see `advisor.rule.table`).

Each row was checked in the wheels of every release from 2.0.0 to 2.15.0 (the file named in its `why`), and
its warning on the real torch by tests/truth/checks_known.py (the check ids are named in each row's `why`).
Rules with argument logic have their own files (`autocast_device_type.py`, `typed_storage.py`, ...).
"""

from __future__ import annotations

from advisor.rule import NONE, Entry, Example, Row, Severity, calls, generate

from ._known_windows import EXC_773, EXC_775, QUANT as _QUANT

_C10D = "torch.distributed.distributed_c10d"
_FSDP = "torch.distributed.fsdp.FullyShardedDataParallel"
_FSDP_MODULE = "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel"
_SCHED = "torch.optim.lr_scheduler"
# The schedulers whose `__init__` took `verbose` in 2.6 (every one that had it: torch/optim/lr_scheduler.py).
_SCHEDULERS = (
    "LRScheduler",
    "_LRScheduler",
    "LambdaLR",
    "MultiplicativeLR",
    "StepLR",
    "MultiStepLR",
    "ConstantLR",
    "LinearLR",
    "ExponentialLR",
    "SequentialLR",
    "PolynomialLR",
    "CosineAnnealingLR",
    "CyclicLR",
    "CosineAnnealingWarmRestarts",
    "OneCycleLR",
    "ReduceLROnPlateau",
)
_INIT = (
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
)
# The ones that warn (2.12 wheel, torch/distributed/nn/functional.py `_deprecated(...)`), with the replacement it names.
_DIST_NN = {
    "broadcast": "broadcast",
    "reduce_scatter": "reduce_scatter_tensor",
    "all_gather": "all_gather_tensor",
    "all_to_all_single": "all_to_all_single",
    "all_reduce": "all_reduce",
}
# (name, first release without it, is it called, first warning): `torch/onnx/__init__.py` of the 2.0.0 ... 2.15.0
# wheels; the warnings: 2.7.0 onnx/_internal/_exporter_legacy.py:83,455, 2.5.0 onnx/utils.py:1208.
_ONNX_GONE = (
    ("dynamo_export", "2.9", True, "2.7"),
    ("ExportOptions", "2.9", True, "2.8"),  # 2.7's @deprecated has category=None: silent until 2.8
    ("is_onnxrt_backend_supported", "2.9", True, None),
    ("OnnxRegistry", "2.8", True, "2.7"),
    ("ONNXRuntimeOptions", "2.8", True, "2.7"),
    ("enable_log", "2.6", True, None),
    ("disable_log", "2.6", True, None),
    ("export_to_pretty_string", "2.6", True, "2.5"),
    ("CheckerError", "2.5", False, None),
    ("ONNXProgramSerializer", "2.5", False, None),
    ("InvalidExportOptionsError", "2.5", False, None),
    ("ExportOutput", "2.2", False, None),
)
_Q = "torch.ao.quantization"
# Which of them warned before the removal, and from when (the others never did).
_PT2E_WARNS = {"prepare_pt2e": "2.8", "prepare_qat_pt2e": "2.8", "convert_pt2e": "2.8", "XNNPACKQuantizer": "2.7"}
_PT2E = (
    f"{_Q}.quantize_pt2e.prepare_pt2e",
    f"{_Q}.quantize_pt2e.prepare_qat_pt2e",
    f"{_Q}.quantize_pt2e.convert_pt2e",
    f"{_Q}.quantizer.Quantizer",
    f"{_Q}.quantizer.quantizer.Quantizer",
    f"{_Q}.quantizer.xnnpack_quantizer.XNNPACKQuantizer",
    f"{_Q}.quantizer.xnnpack_quantizer.get_symmetric_quantization_config",
    f"{_Q}.quantizer.x86_inductor_quantizer.X86InductorQuantizer",
)

TABLE: tuple[Row, ...] = (
    Row(
        "ADV771",
        "private-collective-base",
        (
            Entry("torch.distributed._all_gather_base", "torch.distributed.all_gather_into_tensor"),
            Entry("torch.distributed._reduce_scatter_base", "torch.distributed.reduce_scatter_tensor"),
            Entry(f"{_C10D}._all_gather_base", "torch.distributed.all_gather_into_tensor"),
            Entry(f"{_C10D}._reduce_scatter_base", "torch.distributed.reduce_scatter_tensor"),
        ),
        'Warns in every 2.x: UserWarning in 2.0-2.3 ("torch.distributed._all_gather_base is a private function and will '
        'be deprecated. Please use torch.distributed.all_gather_into_tensor instead."), FutureWarning from 2.4 '
        "(`@deprecated(..., category=FutureWarning)`), whose body is `return all_gather_into_tensor(output_tensor, "
        "input_tensor, group, async_op)` (`reduce_scatter_tensor(output, input, op, group, async_op)`). The 2.13-2.15 "
        "wheels' text names `all_gather_single` / `reduce_scatter_single` instead; the `*_into_tensor` / `*_tensor` names "
        "exist in every 2.x and are kept as documented aliases in 2.15 (ADV739). Checked: "
        "torch/distributed/distributed_c10d.py of the 2.0.0, 2.4.0, 2.13.0 and 2.15.0 wheels. Truth: "
        "K-771/_all_gather_base, K-771/_reduce_scatter_base.",
        message="`{old}` is a private function and deprecated (UserWarning in 2.0-2.3, FutureWarning from 2.4); use "
        "`{new}` (same arguments, in every 2.x)",
        deprecated_in="2.0",
        extra_valid=("import horovod.torch as hvd\nhvd._all_gather_base(o, i)\n",),
        extra_invalid=(
            Example(
                "import torch.distributed as dist\nif hasattr(dist, 'all_gather_into_tensor'):\n"
                "    dist.all_gather_into_tensor(o, i)\nelse:\n    dist._all_gather_base(o, i)\n",
                message="compat fallback",
                line=5,
            ),
        ),
        fix_note="the private function only calls the public one with the same arguments in the same order, and the "
        "parameter names are the same (`output_tensor, input_tensor, group, async_op`; `output, input, op, "
        "group, async_op`) in every release from 2.0 to 2.15.",
    ),
    Row(
        "ADV772",
        "nn-init-alias",
        tuple(Entry(f"torch.nn.init.{n}", f"torch.nn.init.{n}_") for n in _INIT),
        "`torch.nn.init.<name>` without the trailing underscore is `_make_deprecate(<name>_)`: it warns, then calls the "
        'in-place function with the same arguments. UserWarning in 2.0-2.3 ("nn.init.xavier_uniform is now deprecated in '
        'favor of nn.init.xavier_uniform_.", `2.0.0 nn/init.py:536`), FutureWarning from 2.4 ("`nn.init.xavier_uniform` '
        'is now deprecated in favor of `nn.init.xavier_uniform_`."). Checked: torch/nn/init.py of the 2.0.0, 2.9.0 and 2.15.0 wheels (11 '
        "aliases in each). Truth: K-772/nn.init.xavier_uniform.",
        message="`{old}` is deprecated (UserWarning in 2.0-2.3, FutureWarning from 2.4); use `{new}` (the alias just "
        "calls it)",
        deprecated_in="2.0",
        fix_note="the alias calls the underscore function with the same arguments and returns its result.",
        extra_valid=(
            "import torch\ntorch.nn.init.xavier_uniform_(w)\n",
            "import tensorflow as tf\nw = tf.keras.initializers.orthogonal()\n",
        ),
    ),
    Row(
        "ADV773",
        "fsdp-state-dict-type",
        tuple(Entry(f"{cls}.{m}") for cls in (_FSDP, _FSDP_MODULE) for m in ("state_dict_type", "set_state_dict_type")),
        'FutureWarning from 2.4 (none in 2.0-2.3): "FSDP.state_dict_type() and FSDP.set_state_dict_type() are being '
        "deprecated. Please use APIs, get_state_dict() and set_state_dict(), which can support different parallelisms, "
        'FSDP1, FSDP2, DDP." Still there, still warning, in 2.15. `state_dict_type` is a context manager calling '
        "`set_state_dict_type`, so both warn. Checked: torch/distributed/fsdp/fully_sharded_data_parallel.py of the 2.3.0, "
        "2.4.0 and 2.15.0 wheels. Truth: K-773/set_state_dict_type (source).",
        message="`{old}` is deprecated since 2.4 (FutureWarning); use "
        "`torch.distributed.checkpoint.state_dict.get_state_dict` / `set_state_dict`",
        advice="use `torch.distributed.checkpoint.state_dict.get_state_dict` / `set_state_dict`",
        fix=NONE,
        deprecated_in="2.4",
        window_exceptions=EXC_773,
        fix_note="no automatic fix: `get_state_dict(model, optimizers, options=StateDictOptions(...))` returns the "
        "state dicts instead of switching what `model.state_dict()` returns, so the code around it changes.",
        extra_valid=("import torch\nwith model.state_dict_type(cfg):\n    pass\n",),
    ),
    Row(
        "ADV774",
        "distributed-nn-functional",
        tuple(
            Entry(
                f"{module}.{name}",
                message=f'`{{old}}` is deprecated since 2.12 (FutureWarning: "use '
                f'torch.distributed._functional_collectives.{new} instead"); not a drop-in '
                "replacement: the functional collectives return new tensors",
            )
            for module in ("torch.distributed.nn.functional", "torch.distributed.nn")
            for name, new in _DIST_NN.items()
        ),
        'FutureWarning from 2.12: "torch.distributed.nn.functional.all_reduce is deprecated, use '
        'torch.distributed._functional_collectives.all_reduce instead." (likewise `broadcast`, `all_gather`, '
        "`reduce_scatter`, `all_to_all_single`; `gather`, `scatter`, `reduce` and `all_to_all` do not warn). "
        "`torch.distributed.nn` re-exports them (`from .functional import *`). Checked: "
        "torch/distributed/nn/functional.py of the 2.11.0 (no warning), 2.12.0 and 2.15.0 wheels. Truth: "
        "K-774/all_reduce.",
        advice="use the `torch.distributed._functional_collectives` function it names",
        fix=NONE,
        deprecated_in="2.12",
        fix_note="no automatic fix: the replacements take other arguments (`group` is required, `reduceOp` is a "
        "string) and return an `AsyncCollectiveTensor`.",
        extra_valid=(
            "import torch.distributed as dist\ndist.all_reduce(t)\n",
            "import torch\nfrom torch.distributed.nn.functional import gather\nout = gather(t)\n",
        ),
    ),
    Row(
        "ADV775",
        "lr-scheduler-verbose",
        calls(*(f"{_SCHED}.{c}" for c in _SCHEDULERS)),
        'UserWarning from 2.2 ("The verbose parameter is deprecated. Please use get_last_lr() to access the learning '
        'rate."); 2.7 removed the parameter from every scheduler, so passing it is a TypeError ("unexpected keyword '
        "argument 'verbose'\"). Checked: torch/optim/lr_scheduler.py of the 2.1.0 (no warning), 2.2.0, 2.6.0 "
        "(`_check_verbose_deprecated_warning`) and 2.7.0 (no `verbose` at all) wheels. Truth: K-775/StepLR-verbose.",
        keyword="verbose",
        deprecated_in="2.2",
        removed_in="2.7",
        window_exceptions=EXC_775,
        severity=Severity.ERROR,
        message="`verbose=` of the lr schedulers is deprecated since 2.2 and gone in 2.7 (TypeError); drop it "
        "from `{old}(...)` (print `scheduler.get_last_lr()` instead)",
        fix_note="`verbose` only printed the learning rate at each step; dropping it keeps the schedule and stops "
        "that printing (from 2.7 the argument does not exist).",
        example_call="(opt, {kw}=True)",
        extra_invalid=(
            Example(
                "import torch\nif torch.__version__ < '2.2':\n"
                "    s = torch.optim.lr_scheduler.StepLR(opt, 10, verbose=True)\n",
                message="compat fallback",
                line=3,
            ),
        ),
        extra_valid=("import transformers\ns = transformers.get_scheduler('linear', opt, verbose=True)\n",),
    ),
    Row(
        "ADV783",
        "onnx-removed-api",
        tuple(
            Entry(
                f"torch.onnx.{name}",
                removed_in=gone,
                is_call=call,
                deprecated_in=warns,
            )
            for name, gone, call, warns in _ONNX_GONE
        ),
        "Names of `torch.onnx` that later releases deleted (AttributeError / ImportError): `dynamo_export` (2.1-2.8, "
        'deprecated 2.7: "torch.onnx.dynamo_export is deprecated since 2.6.0. Please use torch.onnx.export(..., '
        'dynamo=True) instead."), `ExportOptions` and `is_onnxrt_backend_supported` (gone 2.9), `OnnxRegistry` and '
        "`ONNXRuntimeOptions` (DeprecationWarning 2.7, gone 2.8), `enable_log`, `disable_log`, `export_to_pretty_string` "
        "(FutureWarning 2.5, gone 2.6), "
        "`CheckerError`, `ONNXProgramSerializer`, `InvalidExportOptionsError` (gone 2.5), `ExportOutput` (gone 2.2). "
        "Checked: the names in torch/onnx/__init__.py of every wheel from 2.0.0 to 2.15.0, and `hasattr(torch.onnx, "
        "name)` is False for all of them on 2.13. Truth: K-783/removed-names.",
        message="`{old}` was removed from torch.onnx; export with `torch.onnx.export(..., dynamo=True)` "
        "(or `torch.onnx.export` options) instead",
        advice="export with `torch.onnx.export(..., dynamo=True)`",
        fix=NONE,
        severity=Severity.ERROR,
        fix_note="no automatic fix: the replacements take other arguments (`torch.onnx.export(model, args, "
        "dynamo=True)` returns an `ONNXProgram`).",
        extra_valid=(
            "import onnx\nonnx.checker.check_model(m)\n",
            "import torch\nok = torch.onnx.is_in_onnx_export()\n",
        ),
    ),
    Row(
        "ADV785",
        "ao-quantization-eager-fx",
        tuple(Entry(f"{module}.{name}") for module, names in _QUANT for name in names),
        'DeprecationWarning from 2.8 (`@typing_extensions.deprecated(DEPRECATION_WARNING)`): "torch.ao.quantization is '
        "deprecated and will be removed in 2.10. ... 1. Eager mode quantization (torch.ao.quantization.quantize, "
        "torch.ao.quantization.quantize_dynamic), please migrate to use torchao eager mode quantize_ API instead 2. FX "
        "graph mode quantization (...prepare_fx, ...convert_fx, please migrate to use torchao pt2e quantization API "
        'instead (prepare_pt2e, convert_pt2e)". Despite the text, every one of them is still there in 2.15 (so this is '
        "a deprecation, not a removal). `torch.quantization` re-exports them. Checked: torch/ao/quantization/quantize.py, "
        "quantize_fx.py and utils.py of the 2.7.0 (no warning), 2.8.0, 2.13.0 and 2.15.0 wheels. Truth: "
        "K-785/quantize_dynamic.",
        message="`{old}` is deprecated since 2.8 (DeprecationWarning; announced for removal, still in 2.15); migrate to "
        "torchao (`torchao.quantization.quantize_` for eager mode, torchao's `prepare_pt2e` / `convert_pt2e` "
        "for FX graph mode)",
        advice="migrate to torchao",
        fix=NONE,
        deprecated_in="2.8",
        fix_note="no automatic fix: torchao's APIs take other configurations and produce other modules.",
        extra_valid=(
            "import torchao\ntorchao.quantization.quantize_(model, cfg)\n",
            "from onnxruntime.quantization import quantize_dynamic\nquantize_dynamic(a, b)\n",
        ),
    ),
    Row(
        "ADV786",
        "pt2e-quantization-removed",
        tuple(Entry(name, deprecated_in=_PT2E_WARNS.get(name.rpartition(".")[2])) for name in _PT2E),
        "The PT2E modules `torch.ao.quantization.quantize_pt2e` / `quantizer` are gone in 2.11 (ModuleNotFoundError; "
        "in the 2.10.0 wheel, not in 2.11.0 / 2.15.0). `prepare_pt2e` & co warned DeprecationWarning in 2.8-2.10 "
        "(`2.9.0 quantize_pt2e.py:34`), `XNNPACKQuantizer` from 2.7 (`2.7.0 quantizer/xnnpack_quantizer.py:281`); "
        "`Quantizer`, `X86InductorQuantizer`, `get_symmetric_quantization_config` never warned. Truth: K-786/modules-gone.",
        message="`{old}` was removed in 2.11 (the PT2E quantization modules moved to torchao): import it from "
        "`torchao.quantization.pt2e`",
        advice="import it from `torchao.quantization.pt2e`",
        fix=NONE,
        removed_in="2.11",
        severity=Severity.ERROR,
        fix_note="no automatic fix: torchao is another package, with its own release cycle and names.",
        extra_valid=("from torchao.quantization.pt2e.quantize_pt2e import prepare_pt2e\nm = prepare_pt2e(m, q)\n",),
    ),
    Row(
        "ADV787",
        "distributed-pipeline-removed",
        (
            Entry("torch.distributed.pipeline.sync.Pipe", is_call=True),
            Entry("torch.distributed.pipeline.sync.pipe.Pipe", is_call=True),
            Entry("torch.distributed.pipeline.sync.WithDevice", is_call=True),
        ),
        "`torch.distributed.pipeline` (the `Pipe` of torchgpipe) exists in 2.0-2.3 (2.3 warns on import, "
        "`2.3.0 distributed/pipeline/__init__.py:1-7`) and is gone from 2.4 (ModuleNotFoundError), where "
        "`torch.distributed.pipelining` first appears. Checked: the folders torch/distributed/pipeline/sync "
        "(2.0.0-2.3.0 wheels only) and torch/distributed/pipelining (2.4.0 on). Truth: K-787/pipeline-gone.",
        message="`{old}` was removed in 2.4 (`torch.distributed.pipeline` is gone); use `torch.distributed.pipelining` "
        "(new in 2.4, another API: `pipeline()` and `PipelineStage` / schedules)",
        advice="use `torch.distributed.pipelining`",
        fix=NONE,
        deprecated_in="2.3",
        removed_in="2.4",
        severity=Severity.ERROR,
        fix_note="no automatic fix: `torch.distributed.pipelining` splits and schedules a model differently.",
    ),
    Row(
        "ADV788",
        "multigpu-collectives",
        tuple(
            Entry(f"torch.distributed.{n}_multigpu")
            for n in ("broadcast", "all_reduce", "reduce", "all_gather", "reduce_scatter")
        ),
        "The `*_multigpu` collectives (several GPUs per process) exist in 2.0-2.1 and are gone from 2.2 (AttributeError). "
        "Checked: `def <name>_multigpu` in torch/distributed/distributed_c10d.py of the 2.0.0 and 2.1.0 wheels, and in none "
        "from 2.2.0 to 2.15.0. Truth: K-788/multigpu-gone.",
        message="`{old}` was removed in 2.2; run one process per GPU and call the plain collective",
        advice="run one process per GPU and call the plain collective",
        fix=NONE,
        removed_in="2.2",
        severity=Severity.ERROR,
        fix_note="no automatic fix: one process per GPU changes how the program is launched.",
        extra_valid=("import torch.distributed as dist\ndist.all_reduce(t)\n",),
    ),
    Row(
        "ADV789",
        "export-dynamic-dim",
        (
            Entry("torch.export.dynamic_dim", removed_in="2.5"),
            Entry("torch.export.dynamic_shapes.dynamic_dim", removed_in="2.5"),
            Entry("torch.export.constrain_as_size", removed_in="2.2"),
            Entry("torch.export.constrain_as_value", removed_in="2.2"),
        ),
        '`torch.export.dynamic_dim` (2.1-2.4, documented "This feature is DEPRECATED. See :func:`Dim` instead.") is gone '
        "from 2.5, `constrain_as_size` / `constrain_as_value` from 2.2 (torch/export/__init__.py and dynamic_shapes.py "
        "of the 2.1.0 to 2.5.0 wheels); the import of a removed name fails. Truth: K-789/gone, K-789/import.",
        message="`{old}` was removed from torch.export; use `torch.export.Dim` in `dynamic_shapes=` (and "
        "`torch._check` / `torch._check_is_size` for value constraints)",
        advice="use `torch.export.Dim`",
        fix=NONE,
        severity=Severity.ERROR,
        fix_note="no automatic fix: `Dim` objects go into `export(..., dynamic_shapes=...)` instead of `constraints=`.",
        report_imports=True,  # the import line is where 2.5+ fails
        extra_invalid=(Example("from torch.export import dynamic_dim\n", message="the import fails with ImportError"),),
    ),
    Row(
        "ADV790",
        "pytree-leafspec",
        (Entry("torch.utils._pytree.LeafSpec"),),
        '`@deprecated("`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) and '
        'treespec.is_leaf()` instead.", category=FutureWarning)` on the class from 2.10: making one warns (2.13 '
        "runtime); `treespec_leaf()` (new in 2.10) returns the shared leaf spec. Checked: torch/utils/_pytree.py of the "
        "2.9.0 (no warning), 2.10.0 and 2.15.0 wheels. Truth: K-790/LeafSpec.",
        message="`{old}` is deprecated since 2.10 (FutureWarning); test `treespec.is_leaf()` and make a leaf with "
        "`torch.utils._pytree.treespec_leaf()`",
        advice="use `treespec.is_leaf()` / `treespec_leaf()`",
        fix=NONE,
        deprecated_in="2.10",
        fix_note="no automatic fix: `isinstance(x, LeafSpec)` and `LeafSpec()` have different replacements.",
        extra_valid=("import torch.utils._pytree as pytree\nleaf = spec.is_leaf()\n",),
    ),
    Row(
        "ADV791",
        "functorch-make-functional",
        (
            Entry(
                "functorch.make_functional",
                message="`{old}` is deprecated (UserWarning in 2.0-2.3, FutureWarning from 2.4); use `torch.func.functional_call(model, params, args)`",
            ),
            Entry(
                "functorch.make_functional_with_buffers",
                message="`{old}` is deprecated (UserWarning in 2.0-2.3, FutureWarning from 2.4); use "
                "`torch.func.functional_call(model, (params, buffers), args)`",
            ),
            Entry(
                "functorch.combine_state_for_ensemble",
                message="`{old}` is deprecated (UserWarning in 2.0-2.3, FutureWarning from 2.4); use `torch.func.stack_module_state(models)`",
            ),
        ),
        "UserWarning in 2.0-2.3 (`2.0.0 _functorch/deprecated.py:38`, no category), FutureWarning from 2.4 "
        "(`2.4.0 _functorch/deprecated.py:41`): \"We've integrated functorch into PyTorch. As the final step of the integration, "
        "`functorch.make_functional` is deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch "
        '>= 2.3. Please use `torch.func.functional_call` instead" (`combine_state_for_ensemble`: '
        "`torch.func.stack_module_state`). Checked: torch/_functorch/deprecated.py of the 2.0.0, 2.13.0 and 2.15.0 "
        "wheels. Truth: K-791/make_functional.",
        advice="use `torch.func.functional_call`",
        fix=NONE,
        deprecated_in="2.0",
        fix_note="no automatic fix: `make_functional` returns a function and its parameters; `functional_call` takes "
        "the module and a dict of parameters, so the calling code changes.",
    ),
)

generate(TABLE, globals())
