"""The 2.14 / 2.15 renames, removals and advice: one row of data each (see `advisor.rule.table`).

Every text here is backed by the project's research notes on torch 2.14 / 2.15 and its
2.14 / 2.15 spec, and checked on the real 2.13.0, 2.14.1 and 2.15.0
wheels by tests/truth/checks.py (the check ids are named in each row's `why`).
Windows use the CONTRACT.md names: `since` (the replacement exists from),
`deprecated_in`, `removed_in`, `undeprecated_in`; what they mean for a target is
decided centrally, never here.
"""

from __future__ import annotations

from advisor.rule import NONE, UNSAFE, Entry, Row, Severity, generate

_OPAQUE = "torch._library.opaque_object"
_DCP = "torch.distributed.checkpoint"
_MKLDNN = "torch.utils.mkldnn"

TABLE: tuple[Row, ...] = (
    Row(
        "ADV747",
        "mkldnn-torchscript",
        tuple(
            Entry(f"{_MKLDNN}.{n}")
            for n in (
                "to_mkldnn",
                "MkldnnLinear",
                "MkldnnConv1d",
                "MkldnnConv2d",
                "MkldnnConv3d",
                "MkldnnBatchNorm",
                "MkldnnPrelu",
            )
        ),
        "`torch.utils.mkldnn` compiles its modules with TorchScript. In 2.13 that happened at import time and warned "
        "DeprecationWarning (hidden by default); from 2.14 it happens at first use and warns FutureWarning "
        '("`torch.jit.script_method` is deprecated"), which is visible. Not `Tensor.to_mkldnn()` (a tensor method, '
        "unaffected) and not `torch.backends.mkldnn`. Truth: D14-2/mkldnn-lazy.",
        message="`{old}` builds TorchScript modules, so from 2.14 its first use warns FutureWarning "
        "('`torch.jit.script_method` is deprecated'); TorchScript is deprecated (not removed in 2.15)",
        fix=NONE,
        fix_note="no automatic fix: there is no drop-in replacement module.",
        deprecated_in="2.14",
        advice="there is no drop-in replacement module; keep the plain `torch.nn` module, or accept the TorchScript warning",
        window_exceptions=(
            (
                "deprecated_in",
                "the 2.14 FutureWarning is TorchScript's own (`torch.jit.script_method`), raised when the "
                "lazily built classes are first used: `torch.utils.mkldnn` itself has no warning call.",
            ),
            (
                "removed_in",
                "from 2.14 the `Mkldnn*` classes are served by a module `__getattr__` from a dict built at "
                "first use (torch/utils/mkldnn.py), which the miner cannot list: they still exist.",
            ),
        ),
        severity=Severity.INFO,
        extra_valid=("y = x.to_mkldnn()\n", "import torch\nok = torch.backends.mkldnn.is_available()\n"),
    ),
    Row(
        "ADV750",
        "set-pg-timeout",
        (Entry("torch.distributed.distributed_c10d._set_pg_timeout", "torch.distributed.set_timeout"),),
        "FutureWarning in 2.14; the 2.14 body just calls `torch.distributed.set_timeout(timeout, group)`, which is new "
        "in 2.14 (absent on 2.13). Truth: D14-6/_set_pg_timeout, D14-6/set_timeout.",
        message="`{old}` is deprecated since 2.14 (FutureWarning); use `{new}` (new in 2.14, same arguments)",
        since="2.14",
        deprecated_in="2.14",
        fix_note="same arguments `(timeout, group=None)`; needs torch 2.14.",
    ),
    Row(
        "ADV751",
        "compile-on-one-rank-config",
        (
            Entry(
                "torch.distributed.config.compile_on_one_rank",
                "torch.compiler.config.compile_on_one_rank",
                is_call=False,
            ),
        ),
        "Reading or writing `torch.distributed.config.compile_on_one_rank` warns FutureWarning from 2.14; the flag moved "
        "to `torch.compiler.config` (new in 2.14). `torch.distributed.config.patch(compile_on_one_rank=...)` does NOT "
        "warn (it still sets the flag through the alias) and is not reported here. Truth: "
        "D14-7/compile_on_one_rank-read, D14-7/compile_on_one_rank-patch.",
        message="`{old}` is deprecated since 2.14 (FutureWarning on read and write); use `{new}`",
        since="2.14",
        deprecated_in="2.14",
        fix_note="the same flag under its new home; needs torch 2.14.",
        window_exceptions=(
            (
                "deprecated_in",
                "the warning comes from torch's config machinery: the 2.14.0 wheel declares "
                "`compile_on_one_rank = Config(alias=..., deprecated=True)` in "
                "torch/distributed/config.py, which the miner does not read as a deprecation.",
            ),
        ),
        extra_valid=("import torch\ntorch.compiler.config.compile_on_one_rank = True\n",),
    ),
    Row(
        "ADV755",
        "opaque-object-renames",
        (
            Entry(f"{_OPAQUE}.register_opaque_type", f"{_OPAQUE}.register_custom_class"),
            Entry(f"{_OPAQUE}.is_opaque_type", f"{_OPAQUE}.is_custom_class"),
            Entry(f"{_OPAQUE}.is_opaque_value", f"{_OPAQUE}.is_custom_class_obj"),
            Entry(f"{_OPAQUE}.is_opaque_value_type", f"{_OPAQUE}.is_opaque_constant_type"),
            Entry(f"{_OPAQUE}.is_opaque_reference_type", f"{_OPAQUE}.is_opaque_symbolic_type"),
            Entry(
                "torch._opaque_base.OpaqueBase",
                "torch._custom_class_base.CustomClassBase",
                is_call=False,
                import_module=True,
            ),
            Entry(
                "torch._opaque_base.OpaqueBaseMeta",
                "torch._custom_class_base.CustomClassBaseMeta",
                is_call=False,
                import_module=True,
            ),
        ),
        "Private API renamed in 2.14; the old names log a warning through `logging.warning` (not `warnings.warn`, so "
        "`-W error` does not catch it). The new names do not exist on 2.13. `torch._opaque_base` re-exports "
        '`CustomClassBase as OpaqueBase`. Not rewritten: the `typ="reference"`/`"value"` literals (now '
        '`"symbolic"`/`"constant"`). Truth: D14-11/opaque-object-renames, D14-11/opaque-object-source.',
        message="`{old}` is deprecated since 2.14 (it logs a warning, not a Python warning); use `{new}`",
        since="2.14",
        deprecated_in="2.14",
        severity=Severity.INFO,
        fix_note="plain renames; needs torch 2.14.",
        window_exceptions=(
            (
                "deprecated_in",
                "the old names log with `log.warning` (`2.14.0 torch/_library/opaque_object.py:288, 314, 359, "
                "382, 406`; `2.14.0 torch/_opaque_base.py:6` on import), which the API index does not record.",
            ),
            *(
                (
                    f"torch._opaque_base.{name} removed_in",
                    "`torch._opaque_base` still binds both names, re-exported as `CustomClassBase as OpaqueBase` "
                    "(`2.14.0 torch/_opaque_base.py:8-11`): an import alias the API index does not count.",
                )
                for name in ("OpaqueBase", "OpaqueBaseMeta")
            ),
        ),
    ),
    Row(
        "ADV760",
        "cpp-extension-filebaton",
        (Entry("torch.utils.cpp_extension.FileBaton", "torch.utils.file_baton.FileBaton", import_module=True),),
        "`torch.utils.cpp_extension` no longer re-exports `FileBaton` in 2.14 (ImportError); "
        "`torch.utils.file_baton.FileBaton` exists in every supported release. Truth: R14-7/FileBaton, R14-7/replacement.",
        message="`torch.utils.cpp_extension` no longer re-exports `FileBaton` in 2.14 (ImportError); import it from "
        "`torch.utils.file_baton`",
        removed_in="2.14",
        severity=Severity.ERROR,
        fix_note="the same class, imported from where it is defined.",
    ),
    Row(
        "ADV761",
        "green-contexts-supported",
        (Entry("torch.cuda.green_contexts.SUPPORTED", is_call=False),),
        "Removed in 2.14 (AttributeError; source evidence: the 2.14 module no longer defines it). "
        "Truth: R14-8/green_contexts.SUPPORTED.",
        message='`{old}` was removed in 2.14 (AttributeError); check `hasattr(torch._C, "_CUDAGreenContext")` instead',
        fix=NONE,
        fix_note="no automatic fix.",
        removed_in="2.14",
        severity=Severity.ERROR,
        advice='check `hasattr(torch._C, "_CUDAGreenContext")` instead',
        extra_valid=("import torch\nG = torch.cuda.green_contexts.GreenContext\n",),
    ),
    Row(
        "ADV764",
        "nvprof-loaders",
        tuple(Entry(f"torch.autograd.profiler.{n}") for n in ("load_nvprof", "parse_nvprof_trace", "EnforceUnique")),
        "FutureWarning from 2.15 (none on 2.13 / 2.14); torch announces removal in 2.17. Truth: D15-3/nvprof.",
        message="`{old}` is deprecated since 2.15 (FutureWarning) and announced for removal in PyTorch 2.17; nvprof "
        "traces are obsolete: use `torch.profiler` (Kineto) traces",
        fix=NONE,
        fix_note="no automatic fix: there is no replacement loader.",
        deprecated_in="2.15",
        advice="use `torch.profiler` (Kineto) traces; torch announces removal in 2.17",
    ),
    Row(
        "ADV765",
        "dcp-fsspec-private-module",
        tuple(
            Entry(
                f"{_DCP}._fsspec_filesystem.{n}",
                f"{_DCP}.fsspec_filesystem.{n}",
                is_call=n != "FileSystem",
                import_module=True,
            )
            for n in ("FsspecReader", "FsspecWriter", "FileSystem")
        ),
        "Importing `torch.distributed.checkpoint._fsspec_filesystem` warns DeprecationWarning from 2.15 (hidden by "
        "default outside `__main__` and tests); `torch.distributed.checkpoint.fsspec_filesystem` and the top-level "
        "`FsspecReader` / `FsspecWriter` are new in 2.15. Truth: D15-4/_fsspec_filesystem-import, D15-4/replacement.",
        message="`{old}` is deprecated since 2.15 (DeprecationWarning at import); use `{new}` (new in 2.15)",
        since="2.15",
        deprecated_in="2.15",
        fix_note="the public module holds the same classes; needs torch 2.15.",
    ),
    Row(
        "ADV767",
        "clear-kernel-annotations",
        tuple(Entry(f"torch.cuda.{m}.clear_kernel_annotations") for m in ("graph_annotations", "_graph_annotations")),
        "FutureWarning from 2.15 (source evidence, CUDA module): the annotation registry bounds itself. The function "
        "exists in 2.13's private `torch.cuda._graph_annotations`; the public module is new in 2.14. "
        "Truth: D15-8/clear_kernel_annotations.",
        message="`clear_kernel_annotations()` is deprecated since 2.15 (FutureWarning): the annotation registry bounds "
        "itself; delete the call",
        fix=NONE,
        fix_note="no automatic fix (before 2.15 clearing the registry mattered).",
        deprecated_in="2.15",
        advice="delete the call (from 2.15 the annotation registry bounds itself)",
        extra_valid=("import torch\na = torch.cuda.graph_annotations.get_kernel_annotations()\n",),
    ),
    Row(
        "ADV768",
        "pipeline-per-direction-p2p",
        (
            Entry(
                "torch.distributed.config.pipeline_per_direction_p2p",
                "torch.distributed.config.pipeline_per_edge_p2p",
                is_call=False,
            ),
        ),
        "`pipeline_per_direction_p2p` exists in 2.14 only; 2.15 renamed it `pipeline_per_edge_p2p` with no alias "
        "(AttributeError), and the env var to `TORCH_DISTRIBUTED_PIPELINE_PER_EDGE_P2P`. Per-edge splits more finely "
        "than per-direction (equivalence unverified). Truth: R15-3/pipeline_per_direction_p2p.",
        message="`{old}` (2.14 only) was renamed `pipeline_per_edge_p2p` in 2.15 with no alias (AttributeError); the "
        "env var is now `TORCH_DISTRIBUTED_PIPELINE_PER_EDGE_P2P`; per-edge splits more finely than per-direction",
        fix=UNSAFE,
        fix_note="per-edge is a finer split than per-direction, so behaviour may differ; needs torch 2.15.",
        since="2.15",
        removed_in="2.15",
        severity=Severity.ERROR,
    ),
    Row(
        "ADV769",
        "reduce-event",
        (Entry("torch.multiprocessing.reductions.reduce_event"),),
        "Removed in 2.15 (now private `_reduce_event`; `rebuild_event` is kept). Truth: R15-4/reduce_event.",
        message="`{old}` was removed in 2.15 (AttributeError / ImportError): the reducer is registered with "
        "ForkingPickler automatically for `torch.cuda.Event` and `torch.xpu.Event`; do not call it",
        fix=NONE,
        fix_note="no automatic fix.",
        removed_in="2.15",
        severity=Severity.ERROR,
        advice="do not call it (the reducer is registered with ForkingPickler for `torch.cuda.Event` and `torch.xpu.Event`)",
        extra_valid=("import torch\nf = torch.multiprocessing.reductions.rebuild_event\n",),
    ),
)

generate(TABLE, globals())
