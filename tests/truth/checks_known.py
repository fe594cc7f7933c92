"""Truth checks for the hand rules of well-known 2.x changes (ADV771 on), on the real torch.

Same shape as the 2.14 / 2.15 checks in checks.py (which appends these to its CHECKS):
ids are "K-<rule number>/<what>", each check names its rule, and windows are release
ranges (">=2.13" covers 2.13.0, 2.14.1 and 2.15.0, the interpreters of the matrix).
The wheels of 2.0-2.12 are read as files (the rules' docstrings say which); these
checks run what the matrix can import.
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, _c, raises, result, silent, warns

_DEP = "DeprecationWarning"
_FUT = "FutureWarning"
_USER = "UserWarning"


def _autocast(old: str, call: str, fragment: str, new_call: str) -> Check:
    """ADV776: a C++ autocast query that warns DeprecationWarning; its device_type form is silent."""
    return Check(
        f"K-776/{old}",
        f"torch.{old} warns DeprecationWarning (C++); {new_call} gives the same value without a warning",
        _c(f"import torch\nold = {call}\nnew = {new_call}\nresult = str(old) == str(new)"),
        (warns(ALL, _DEP, fragment, result=True),),
        rule="ADV776",
    )


KNOWN: list[Check] = [
    Check(
        "K-771/_all_gather_base",
        "dist._all_gather_base warns FutureWarning and gives all_gather_into_tensor's result",
        _c(
            """
            import torch
            dist = gloo_group()
            a, b = torch.zeros(2), torch.zeros(2)
            dist._all_gather_base(a, torch.ones(2))
            dist.all_gather_into_tensor(b, torch.ones(2))
            result = torch.equal(a, b)
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "`torch.distributed._all_gather_base` is a private function and will be deprecated",
                result=True,
            ),
        ),
        rule="ADV771",
    ),
    Check(
        "K-771/_reduce_scatter_base",
        "dist._reduce_scatter_base warns FutureWarning; reduce_scatter_tensor exists with the same parameters",
        _c(
            """
            import inspect, torch.distributed as dist
            result = list(inspect.signature(dist._reduce_scatter_base).parameters) == list(inspect.signature(dist.reduce_scatter_tensor).parameters)
            dist = gloo_group()
            import torch
            dist._reduce_scatter_base(torch.zeros(2), torch.ones(2))
            """
        ),
        (
            warns(
                ALL, _FUT, "`torch.distributed._reduce_scatter_base` is a private function", result=True, may_raise=True
            ),
        ),
        rule="ADV771",
    ),
    Check(
        "K-772/nn.init.xavier_uniform",
        "nn.init.xavier_uniform (no underscore) warns FutureWarning and fills like xavier_uniform_",
        _c(
            """
            import torch
            a, b = torch.empty(3, 3), torch.empty(3, 3)
            torch.manual_seed(0); torch.nn.init.xavier_uniform(a)
            torch.manual_seed(0); torch.nn.init.xavier_uniform_(b)
            result = torch.equal(a, b)
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "`nn.init.xavier_uniform` is now deprecated in favor of `nn.init.xavier_uniform_`.",
                result=True,
            ),
        ),
        rule="ADV772",
    ),
    Check(
        "K-773/set_state_dict_type",
        "FSDP.set_state_dict_type (and so state_dict_type) warns FutureWarning; get_state_dict / set_state_dict exist (source)",
        _c(
            """
            s = src("distributed/fsdp/fully_sharded_data_parallel.py")
            sd = src("distributed/checkpoint/state_dict.py")
            result = {
                "warns": "FSDP.state_dict_type() and FSDP.set_state_dict_type() are being " in s and "FutureWarning" in s,
                "replacement": "def get_state_dict(" in sd and "def set_state_dict(" in sd,
            }
            """
        ),
        (result(ALL, {"warns": True, "replacement": True}),),
        kind="source",
        rule="ADV773",
    ),
    Check(
        "K-774/all_reduce",
        "torch.distributed.nn.functional.all_reduce warns FutureWarning naming the functional collective",
        _c(
            """
            import torch
            dist = gloo_group()
            import torch.distributed.nn.functional as F
            F.all_reduce(torch.ones(2))
            import torch.distributed._functional_collectives as funcol
            result = callable(funcol.all_reduce) and torch.distributed.nn.all_reduce is F.all_reduce
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "torch.distributed.nn.functional.all_reduce is deprecated, use torch.distributed._functional_collectives.all_reduce instead.",
                result=True,
            ),
        ),
        rule="ADV774",
    ),
    Check(
        "K-775/StepLR-verbose",
        "lr schedulers no longer take verbose= (TypeError)",
        _c(
            """
            import torch
            opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)
            torch.optim.lr_scheduler.StepLR(opt, step_size=1, verbose=True)
            """
        ),
        (raises(ALL, "TypeError", "verbose"),),
        rule="ADV775",
    ),
    _autocast(
        "get_autocast_gpu_dtype",
        "torch.get_autocast_gpu_dtype()",
        "torch.get_autocast_gpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cuda') instead.",
        "torch.get_autocast_dtype('cuda')",
    ),
    _autocast(
        "get_autocast_cpu_dtype",
        "torch.get_autocast_cpu_dtype()",
        "torch.get_autocast_cpu_dtype() is deprecated. Please use torch.get_autocast_dtype('cpu') instead.",
        "torch.get_autocast_dtype('cpu')",
    ),
    _autocast(
        "is_autocast_cpu_enabled",
        "torch.is_autocast_cpu_enabled()",
        "torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
        "torch.is_autocast_enabled('cpu')",
    ),
    _autocast(
        "set_autocast_gpu_dtype",
        "torch.set_autocast_gpu_dtype(torch.float16)",
        "torch.set_autocast_gpu_dtype(dtype) is deprecated. Please use torch.set_autocast_dtype('cuda', dtype) instead.",
        "torch.set_autocast_dtype('cuda', torch.float16)",
    ),
    _autocast(
        "set_autocast_cpu_enabled",
        "torch.set_autocast_cpu_enabled(False)",
        "torch.set_autocast_cpu_enabled(enabled) is deprecated. Please use torch.set_autocast_enabled('cpu', enabled) instead.",
        "torch.set_autocast_enabled('cpu', False)",
    ),
    _autocast(
        "is_autocast_xla_enabled",
        "torch.is_autocast_xla_enabled()",
        "torch.is_autocast_xla_enabled() is deprecated. Please use torch.is_autocast_enabled('xla') instead.",
        "torch.is_autocast_enabled('xla')",
    ),
    Check(
        "K-776/device-less-forms-silent",
        "torch.is_autocast_enabled() and set_autocast_enabled(bool) (the CUDA ones, no device) do not warn",
        _c("import torch\nresult = torch.is_autocast_enabled()\ntorch.set_autocast_enabled(False)"),
        (silent(ALL, "deprecated", result=False),),
        rule="ADV776",
    ),
    Check(
        "K-777/storage",
        "Tensor.storage() warns UserWarning (first typed storage of the process)",
        _c("import torch\ntorch.ones(2).storage()"),
        (
            warns(
                ALL,
                _USER,
                "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class.",
            ),
        ),
        isolate=True,
        rule="ADV777",
    ),
    Check(
        "K-777/FloatStorage",
        "constructing torch.FloatStorage warns UserWarning; isinstance against it does not",
        _c("import torch\nisinstance(1, torch.FloatStorage)\ntorch.FloatStorage(3)"),
        (
            warns(
                ALL,
                _USER,
                "To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            ),
        ),
        isolate=True,
        rule="ADV777",
    ),
    Check(
        "K-777/isinstance-silent",
        "an isinstance check against a typed storage class does not warn",
        _c("import torch\nresult = isinstance(torch.ones(1), (torch.FloatStorage, torch.TypedStorage))"),
        (silent(ALL, "TypedStorage", result=False),),
        isolate=True,
        rule="ADV777",
    ),
    Check(
        "K-777/same-pointer",
        "x.storage().data_ptr() / nbytes() equal x.untyped_storage()'s (the fix); size() differs (elements vs bytes)",
        _c(
            """
            import torch
            x = torch.ones(3)
            result = [x.storage().data_ptr() == x.untyped_storage().data_ptr(), x.storage().nbytes() == x.untyped_storage().nbytes(),
                      x.storage().size(), x.untyped_storage().size()]
            """
        ),
        (result(ALL, [True, True, 3, 12], warns=((_USER, "TypedStorage is deprecated"),)),),
        isolate=True,
        rule="ADV777",
    ),
    Check(
        "K-778/multi-node-forward",
        "a register_backward_hook hook on a module whose forward has several autograd Nodes warns FutureWarning at forward",
        _c(
            """
            import torch
            m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
            m.register_backward_hook(lambda *a: None)
            m(torch.ones(1, 2, requires_grad=True)).sum().backward()
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "Using a non-full backward hook when the forward contains multiple autograd Nodes is deprecated",
            ),
        ),
        rule="ADV778",
    ),
    Check(
        "K-778/full-hook-silent",
        "register_full_backward_hook on the same module does not warn",
        _c(
            """
            import torch
            m = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())
            m.register_full_backward_hook(lambda *a: None)
            m(torch.ones(1, 2, requires_grad=True)).sum().backward()
            """
        ),
        (silent(ALL, "backward hook"),),
        rule="ADV778",
    ),
    Check(
        "K-779/save_state_dict",
        "dcp.save_state_dict warns FutureWarning; dcp.save(sd, storage_writer=...) writes the same checkpoint silently",
        _c(
            """
            import tempfile, torch, torch.distributed.checkpoint as dcp
            d1, d2 = tempfile.mkdtemp(), tempfile.mkdtemp()
            dcp.save_state_dict({"w": torch.ones(2)}, dcp.FileSystemWriter(d1), no_dist=True)
            dcp.save({"w": torch.ones(2)}, storage_writer=dcp.FileSystemWriter(d2), no_dist=True)
            a, b = {"w": torch.zeros(2)}, {"w": torch.zeros(2)}
            dcp.load(a, storage_reader=dcp.FileSystemReader(d1), no_dist=True)
            dcp.load(b, storage_reader=dcp.FileSystemReader(d2), no_dist=True)
            result = torch.equal(a["w"], b["w"]) and torch.equal(a["w"], torch.ones(2))
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "`save_state_dict` is deprecated and will be removed in future versions.",
                result=True,
                forbid=[("", "`save` is deprecated")],
            ),
        ),
        rule="ADV779",
    ),
    Check(
        "K-779/load_state_dict",
        "dcp.load_state_dict warns FutureWarning naming `load`",
        _c(
            """
            import tempfile, torch, torch.distributed.checkpoint as dcp
            d = tempfile.mkdtemp()
            dcp.save({"w": torch.ones(2)}, storage_writer=dcp.FileSystemWriter(d), no_dist=True)
            sd = {"w": torch.zeros(2)}
            dcp.load_state_dict(sd, dcp.FileSystemReader(d), no_dist=True)
            result = sd["w"].tolist()
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "`load_state_dict` is deprecated and will be removed in future versions. Please use `load` instead.",
                result=[1.0, 1.0],
            ),
        ),
        rule="ADV779",
    ),
    Check(
        "K-780/mixed-matmul",
        "legacy matmul.allow_tf32 set, then fp32_precision set differently: reading allow_tf32 raises RuntimeError",
        _c(
            """
            import torch
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cuda.matmul.fp32_precision = "ieee"
            torch.backends.cuda.matmul.allow_tf32
            """
        ),
        (
            raises(
                ALL,
                "RuntimeError",
                "you have used mix of the legacy and new APIs to set the TF32 status for cublas matmul",
            ),
        ),
        isolate=True,
        rule="ADV780",
    ),
    Check(
        "K-780/mixed-cudnn",
        "cudnn conv and rnn fp32_precision differ: reading cudnn.allow_tf32 raises RuntimeError",
        _c(
            """
            import torch
            torch.backends.cudnn.conv.fp32_precision = "tf32"
            torch.backends.cudnn.rnn.fp32_precision = "ieee"
            torch.backends.cudnn.allow_tf32
            """
        ),
        (raises(ALL, "RuntimeError", "PyTorch is checking whether allow_tf32 is enabled for cuDNN"),),
        isolate=True,
        rule="ADV780",
    ),
    Check(
        "K-780/legacy-silent",
        "the legacy flags alone still work without a warning, and set the new API's value",
        _c(
            """
            import torch
            torch.backends.cuda.matmul.allow_tf32 = True
            result = [torch.backends.cuda.matmul.allow_tf32, torch.backends.cuda.matmul.fp32_precision]
            """
        ),
        (silent(ALL, "tf32", result=[True, "tf32"]),),
        isolate=True,
        rule="ADV780",
    ),
    Check(
        "K-781/requires-python",
        "the torch wheel's Requires-Python (the floor ADV781 states): >=3.10 for 2.9-2.14, >=3.11 for 2.15",
        _c(
            """
            import re
            meta = dist_info_file("METADATA")
            result = re.search(r"^Requires-Python: (.*)$", meta, re.M).group(1).strip()
            """
        ),
        (result("<2.15", ">=3.10"), result(">=2.15", ">=3.11")),
        rule="ADV781",
    ),
    Check(
        "K-782/arch-list",
        "the default CUDA wheels of 2.14.1 / 2.15.0 are built for sm_75 and newer only (compile-time flags, no GPU needed)",
        _c(
            """
            import re, torch
            flags = torch._C._cuda_getArchFlags()
            archs = sorted({int(n) for n in re.findall(r"sm_(\\d+)", flags)})
            result = {"oldest": archs[0] if archs else None, "has_sm_75": 75 in archs}
            """
        ),
        (result(">=2.14", {"oldest": 75, "has_sm_75": True}),),
        needs_cuda_build=True,
        rule="ADV782",
    ),
    Check(
        "K-783/removed-names",
        "the removed torch.onnx names are gone; torch.onnx.export is there",
        _c(
            """
            import torch.onnx as onnx
            gone = ["dynamo_export", "ExportOptions", "is_onnxrt_backend_supported", "OnnxRegistry", "ONNXRuntimeOptions",
                    "enable_log", "disable_log", "export_to_pretty_string", "CheckerError", "ONNXProgramSerializer",
                    "InvalidExportOptionsError", "ExportOutput"]
            result = {"present": [n for n in gone if hasattr(onnx, n)], "export": callable(onnx.export)}
            """
        ),
        (result(ALL, {"present": [], "export": True}),),
        rule="ADV783",
    ),
    Check(
        "K-784/keyword-only",
        "torch.onnx.export takes only model, args, f positionally (TypeError otherwise)",
        _c(
            """
            import io, torch
            torch.onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), io.BytesIO(), True, False)
            """
        ),
        (raises(ALL, "TypeError", "positional argument"),),
        rule="ADV784",
    ),
    Check(
        "K-784/fallback",
        "torch.onnx.export no longer takes fallback= (TypeError) and defaults to dynamo=True",
        _c(
            """
            import inspect, torch
            params = inspect.signature(torch.onnx.export).parameters
            result = {"fallback": "fallback" in params, "dynamo_default": params["dynamo"].default,
                      "ignored_still_accepted": all(n in params for n in ("training", "operator_export_type", "do_constant_folding", "custom_opsets"))}
            """
        ),
        (result(ALL, {"fallback": False, "dynamo_default": True, "ignored_still_accepted": True}),),
        rule="ADV784",
    ),
    Check(
        "K-784/torchscript-warns",
        "torch.onnx.export(..., dynamo=False) warns DeprecationWarning (the TorchScript exporter)",
        _c(
            """
            import io, torch
            try:
                torch.onnx.export(torch.nn.Linear(2, 2), (torch.ones(1, 2),), io.BytesIO(), dynamo=False)
            except ModuleNotFoundError:
                pass  # the onnx package may be absent: the warning comes first
            """
        ),
        (warns(ALL, _DEP, "You are using the legacy TorchScript-based ONNX export.", may_raise=True),),
        rule="ADV784",
    ),
    Check(
        "K-785/quantize_dynamic",
        'torch.ao.quantization.quantize_dynamic warns DeprecationWarning ("will be removed in 2.10") and still works',
        _c(
            """
            import torch
            m = torch.ao.quantization.quantize_dynamic(torch.nn.Sequential(torch.nn.Linear(2, 2)), {torch.nn.Linear}, dtype=torch.qint8)
            result = torch.quantization.quantize_dynamic is torch.ao.quantization.quantize_dynamic
            """
        ),
        (
            warns(
                ALL,
                _DEP,
                "torch.ao.quantization is deprecated and will be removed in 2.10.",
                result=True,
                may_raise=True,
            ),
        ),
        rule="ADV785",
    ),
    Check(
        "K-786/modules-gone",
        "torch.ao.quantization.quantize_pt2e and torch.ao.quantization.quantizer are gone",
        _c(
            """
            import importlib
            gone = []
            for name in ("torch.ao.quantization.quantize_pt2e", "torch.ao.quantization.quantizer",
                         "torch.ao.quantization.quantizer.xnnpack_quantizer"):
                try:
                    importlib.import_module(name)
                except ModuleNotFoundError:
                    gone.append(name)
            result = len(gone)
            """
        ),
        (result(ALL, 3),),
        rule="ADV786",
    ),
    Check(
        "K-787/pipeline-gone",
        "torch.distributed.pipeline is gone; torch.distributed.pipelining is there",
        _c(
            """
            import importlib.util
            result = [importlib.util.find_spec("torch.distributed.pipeline") is None,
                      importlib.util.find_spec("torch.distributed.pipelining") is not None]
            """
        ),
        (result(ALL, [True, True]),),
        rule="ADV787",
    ),
    Check(
        "K-788/multigpu-gone",
        "the *_multigpu collectives are gone",
        _c(
            """
            import torch.distributed as dist
            result = [n for n in ("broadcast", "all_reduce", "reduce", "all_gather", "reduce_scatter") if hasattr(dist, n + "_multigpu")]
            """
        ),
        (result(ALL, []),),
        rule="ADV788",
    ),
    Check(
        "K-789/gone",
        "torch.export.dynamic_dim, constrain_as_size and constrain_as_value are gone; torch.export.Dim is there",
        _c(
            """
            import torch.export as e
            result = [hasattr(e, n) for n in ("dynamic_dim", "constrain_as_size", "constrain_as_value", "Dim")]
            """
        ),
        (result(ALL, [False, False, False, True]),),
        rule="ADV789",
    ),
    Check(
        "K-790/LeafSpec",
        "making a torch.utils._pytree.LeafSpec warns FutureWarning; treespec_leaf() gives a leaf spec",
        _c(
            """
            import torch.utils._pytree as p
            p.LeafSpec()
            result = p.treespec_leaf().is_leaf()
            """
        ),
        (
            warns(
                ALL,
                _FUT,
                "`isinstance(treespec, LeafSpec)` is deprecated, use `isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                result=True,
            ),
        ),
        rule="ADV790",
    ),
    Check(
        "K-791/make_functional",
        "functorch.make_functional warns FutureWarning naming torch.func.functional_call",
        _c(
            """
            import torch, functorch
            functorch.make_functional(torch.nn.Linear(2, 2))
            result = callable(torch.func.functional_call) and callable(torch.func.stack_module_state)
            """
        ),
        (warns(ALL, _FUT, "`functorch.make_functional` is deprecated as of PyTorch", result=True),),
        rule="ADV791",
    ),
    Check(
        "K-792/cross-without-dim",
        "torch.cross without dim warns UserWarning (C++); with dim it does not",
        _c(
            "import torch\na = torch.ones(3, 3)\ntorch.cross(a, a)\nresult = torch.equal(torch.cross(a, a, dim=0), torch.cross(a, a))"
        ),
        (warns(ALL, _USER, "Using torch.cross without specifying the dim arg is deprecated.", result=True),),
        isolate=True,
        rule="ADV792",
    ),
    Check(
        "K-793/stft-return-complex-false",
        "torch.stft(return_complex=False) warns UserWarning; view_as_real of the complex result is the old layout",
        _c(
            """
            import torch
            x, w = torch.arange(64.0), torch.hann_window(16)
            old = torch.stft(x, 16, window=w, return_complex=False)
            new = torch.view_as_real(torch.stft(x, 16, window=w, return_complex=True))
            result = torch.equal(old, new)
            """
        ),
        (warns(ALL, _USER, "stft with return_complex=False is deprecated.", result=True),),
        isolate=True,
        rule="ADV793",
    ),
    Check(
        "K-794/quantize_per_tensor",
        "torch.quantize_per_tensor warns UserWarning (C++, new in 2.13)",
        _c("import torch\ntorch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.quint8)"),
        (
            warns(
                ALL,
                _USER,
                "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions",
            ),
        ),
        isolate=True,
        rule="ADV794",
    ),
    Check(
        "K-795/plain-method",
        "a Tensor subclass with a plain-method __torch_function__ warns DeprecationWarning when dispatched",
        _c(
            """
            import torch
            class T(torch.Tensor):
                def __torch_function__(self, func, types, args=(), kwargs=None):
                    return super().__torch_function__(func, types, args, kwargs or {})
            x = torch.ones(2).as_subclass(T)
            torch.nn.functional.relu(x)
            """
        ),
        (warns(ALL, _DEP, "Defining your `__torch_function__ as a plain method is deprecated", may_raise=True),),
        rule="ADV795",
    ),
    Check(
        "K-796/state_dict-positional",
        "Module.state_dict with positional arguments warns FutureWarning and reads them as destination, prefix",
        _c("import torch\nresult = sorted(torch.nn.Linear(1, 1).state_dict(None, 'p.'))"),
        (warns(ALL, _FUT, "Positional args are being deprecated, use kwargs instead.", result=["p.bias", "p.weight"]),),
        rule="ADV796",
    ),
    Check(
        "K-797/saved-variables",
        "ctx.saved_variables in a custom autograd Function warns DeprecationWarning; saved_tensors is the same tuple",
        _c(
            """
            import torch
            class Double(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.save_for_backward(x)
                    return x * 2
                @staticmethod
                def backward(ctx, grad):
                    assert torch.equal(ctx.saved_variables[0], ctx.saved_tensors[0])
                    return grad * 2
            x = torch.ones(2, requires_grad=True)
            Double.apply(x).sum().backward()
            result = x.grad.tolist()
            """
        ),
        (warns(ALL, _DEP, "'saved_variables' is deprecated; use 'saved_tensors'", result=[2.0, 2.0]),),
        rule="ADV797",
    ),
    Check(
        "K-796/override-forwarding-silent",
        "positional forwarding inside a state_dict override, to a submodule that overrides it too, warns nothing",
        _c(
            """
            import torch
            class Inner(torch.nn.Linear):
                def state_dict(self, destination=None, prefix="", keep_vars=False):
                    return super().state_dict(destination=destination, prefix=prefix, keep_vars=keep_vars)
            class Outer(torch.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.inner = Inner(1, 1)
                def state_dict(self, destination=None, prefix="", keep_vars=False):
                    return self.inner.state_dict(destination, prefix, keep_vars)
            result = sorted(Outer().state_dict(prefix="p."))
            """
        ),
        (silent(ALL, "Positional args are being deprecated", result=["p.bias", "p.weight"]),),
        rule="ADV796",
    ),
    Check(
        "K-777/_from_buffer-silent",
        "the private classmethod ByteStorage._from_buffer makes a typed storage without the TypedStorage warning",
        _c('import torch\nresult = isinstance(torch.ByteStorage._from_buffer(b"abcd", "native"), torch.TypedStorage)'),
        (silent(ALL, "TypedStorage", result=True),),
        isolate=True,
        rule="ADV777",
    ),
    Check(
        "K-727/only_inputs",
        "autograd.grad(only_inputs=True) is silent; only a falsy value warns (FutureWarning)",
        _c(
            """
            import warnings, torch
            x = torch.ones(1, requires_grad=True)
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                torch.autograd.grad((x * 2).sum(), x, only_inputs=True)
            quiet = not any("only_inputs" in str(w.message) for w in seen)
            torch.autograd.grad((x * 2).sum(), x, only_inputs=False)
            result = quiet
            """
        ),
        (warns(ALL, _FUT, "only_inputs argument is deprecated and is ignored now", result=True),),
        rule="ADV727",
    ),
    Check(
        "K-003/Sampler-data_source",
        "a custom Sampler forwarding data_source to Sampler.__init__, by position or by name, raises TypeError",
        _c(
            """
            from torch.utils.data import Sampler
            class ByPosition(Sampler):
                def __init__(self, ds):
                    super().__init__(ds)
            class ByName(Sampler):
                def __init__(self, ds):
                    super().__init__(data_source=ds)
            try:
                ByName([1, 2])
            except TypeError:
                pass
            else:
                raise AssertionError("data_source= accepted")
            ByPosition([1, 2])
            """
        ),
        (raises(ALL, "TypeError", "takes exactly one argument"),),
        rule="ADV003",
    ),
    Check(
        "K-729/return_lse",
        "flex_attention(return_lse=True) warns FutureWarning; return_lse=False is silent",
        _c(
            """
            import warnings, torch
            from torch.nn.attention.flex_attention import flex_attention
            q = torch.randn(1, 1, 16, 8)
            with warnings.catch_warnings(record=True) as seen:
                warnings.simplefilter("always")
                flex_attention(q, q, q, return_lse=False)
            quiet = not any("return_lse" in str(w.message) for w in seen)
            flex_attention(q, q, q, return_lse=True)
            result = quiet
            """
        ),
        (warns(ALL, _FUT, "return_lse is deprecated and will be removed in v2.10", result=True),),
        rule="ADV729",
    ),
]
