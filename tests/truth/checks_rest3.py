"""Truth checks for the catalogue rules of #40's last items (ADV155-ADV163).

Same shape as checks_rest.py: ids "K-<rule number>/<what>", each check names its rule and shows on the real
torch what the rule reports (and, where there is one, that the way out is silent).
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, Expect, _c, raises, result, silent, warns

_USER, _FUT, _DEP = "UserWarning", "FutureWarning", "DeprecationWarning"

REST3: list[Check] = [
    Check(
        "K-155/ddp-check-reduction",
        "DistributedDataParallel(check_reduction=True) warns FutureWarning; check_reduction=False is silent",
        _c(
            """
            import os, warnings
            import torch, torch.distributed as dist
            os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29531")
            dist.init_process_group("gloo", rank=0, world_size=1)
            try:
                m = torch.nn.Linear(2, 2)
                torch.nn.parallel.DistributedDataParallel(m, check_reduction=True)
                with warnings.catch_warnings():
                    warnings.simplefilter("error")
                    torch.nn.parallel.DistributedDataParallel(m, check_reduction=False)
                result = "ok"
            finally:
                dist.destroy_process_group()
            """
        ),
        (warns(ALL, _FUT, "The `check_reduction` argument in `DistributedDataParallel`", result="ok"),),
        rule="ADV155",
        isolate=True,  # a process group of its own: another check's may still be there
    ),
    Check(
        "K-156/semi-structured-transposed",
        "to_sparse_semi_structured(transposed=True) warns FutureWarning before anything else",
        _c(
            """
            import torch
            from torch.sparse import to_sparse_semi_structured
            try:
                to_sparse_semi_structured(torch.zeros(64, 64), transposed=True)
            except Exception:
                pass  # the CPU build cannot make one; the warning comes first
            """
        ),
        (warns(ALL, _FUT, "Setting transpose from `to_sparse_semi_structured` is deprecated"),),
        rule="ADV156",
    ),
    Check(
        "K-157/block-mask-compile",
        "create_block_mask(_compile=True) warns DeprecationWarning",
        _c(
            """
            from torch.nn.attention.flex_attention import create_block_mask
            def causal(b, h, q, kv):
                return q >= kv
            result = type(create_block_mask(causal, 1, 1, 128, 128, device="cpu")).__name__
            try:
                create_block_mask(causal, 1, 1, 128, 128, device="cpu", _compile=True)
            except Exception:
                pass  # compiling may need a compiler; the warning comes first
            """
        ),
        (warns(ALL, _DEP, "_compile flag on create_block_mask", result="BlockMask"),),
        rule="ADV157",
    ),
    Check(
        "K-158/worker-spec-fn",
        "WorkerSpec(fn=f) warns DeprecationWarning and copies fn into entrypoint",
        _c(
            """
            from torch.distributed.elastic.agent.server.api import WorkerSpec
            def train():
                pass
            spec = WorkerSpec(role="trainer", local_world_size=1, rdzv_handler=None, fn=train)
            result = spec.entrypoint is train
            """
        ),
        (warns(ALL, _DEP, "WorkerSpec.fn will be deprecated", result=True),),
        rule="ADV158",
    ),
]

REST3.append(
    Check(
        "K-159/set-vital",
        "torch.set_vital(...) warns UserWarning 'please do not call' and returns None",
        _c('import torch\nresult = torch.set_vital("Dataloader", "enabled", "True")'),
        (warns(ALL, _USER, "'set_vital' is deprecated, please do not call", result=None),),
        rule="ADV159",
    )
)

REST3 += [
    Check(
        "K-160/fx-dict-config",
        "prepare_fx / convert_fx / fuse_fx given dicts warn ('Passing a ... dictionary ... is deprecated')",
        _c(
            """
            import torch
            from torch.ao.quantization import get_default_qconfig
            from torch.ao.quantization.quantize_fx import convert_fx, fuse_fx, prepare_fx
            model = torch.nn.Sequential(torch.nn.Linear(2, 2)).eval()
            x = (torch.zeros(1, 2),)
            prepared = prepare_fx(model, {"": get_default_qconfig("fbgemm")}, x, prepare_custom_config={})
            convert_fx(prepared, convert_custom_config={})
            fuse_fx(torch.nn.Sequential(torch.nn.Linear(2, 2)).eval(), {})
            result = type(prepared).__name__
            """
        ),
        (
            Expect(
                ALL,
                warns=(
                    (_FUT, "Passing a QConfig dictionary to prepare is deprecated"),
                    (_FUT, "Passing a prepare_custom_config_dict to prepare is deprecated"),
                    (_FUT, "Passing a convert_custom_config_dict to convert is deprecated"),
                    (_FUT, "Passing a fuse_custom_config_dict to fuse is deprecated"),
                ),
                result="GraphModule",
            ),
        ),
        rule="ADV160",
    ),
    Check(
        "K-160/fx-mapping-silent",
        "prepare_fx with a QConfigMapping (QConfigMapping.from_dict of the same dict) does not warn about dicts",
        _c(
            """
            import torch
            from torch.ao.quantization import QConfigMapping, get_default_qconfig
            from torch.ao.quantization.quantize_fx import prepare_fx
            model = torch.nn.Sequential(torch.nn.Linear(2, 2)).eval()
            mapping = QConfigMapping.from_dict({"": get_default_qconfig("fbgemm")})
            result = type(prepare_fx(model, mapping, (torch.zeros(1, 2),))).__name__
            """
        ),
        (silent(ALL, "dictionary", result="GraphModule"),),
        rule="ADV160",
    ),
]

REST3.append(
    Check(
        "K-161/jit-ignore-drop",
        "torch.jit.ignore(True) and ignore(drop_on_export=True) warn FutureWarning and mark the function unused",
        _c(
            """
            import torch
            from torch._jit_internal import FunctionModifiers
            def f(x):
                return x
            def g(x):
                return x
            torch.jit.ignore(True)(f)
            torch.jit.ignore(drop_on_export=True)(g)
            result = [f._torchscript_modifier == FunctionModifiers.UNUSED, g._torchscript_modifier == FunctionModifiers.UNUSED]
            """
        ),
        (
            Expect(
                ALL,
                warns=(
                    (_FUT, "ignore(True) has been deprecated"),
                    (_FUT, "ignore(drop_on_export=True) has been deprecated"),
                ),
                result=[True, True],
            ),
        ),
        rule="ADV161",
    )
)

REST3.append(
    Check(
        "K-162/torch-hub-env",
        "TORCH_HUB / TORCH_MODEL_ZOO only warn: get_dir() is still $TORCH_HOME/hub",
        _c(
            """
            import os, tempfile
            import torch.hub
            home = tempfile.mkdtemp()
            os.environ.update(TORCH_HOME=home, TORCH_HUB="/nonexistent/hub", TORCH_MODEL_ZOO="/nonexistent/zoo")
            try:
                d = torch.hub.get_dir()
                try:
                    torch.hub.load_state_dict_from_url("file:///nonexistent/x.pth")
                except Exception:
                    pass  # the warning comes before the download
            finally:
                for k in ("TORCH_HOME", "TORCH_HUB", "TORCH_MODEL_ZOO"):
                    os.environ.pop(k)
            result = d == os.path.join(home, "hub")
            """
        ),
        (
            Expect(
                ALL,
                warns=(
                    ("UserWarning", "TORCH_HUB is deprecated, please use env TORCH_HOME instead"),
                    ("UserWarning", "TORCH_MODEL_ZOO is deprecated, please use env TORCH_HOME instead"),
                ),
                result=True,
            ),
        ),
        rule="ADV162",
        isolate=True,
    )
)

REST3 += [
    Check(
        "K-163/import-gaps",
        "`from torch.distributed.checkpoint import FsspecReader` fails on 2.13 (2.4-2.14) and works on 2.15",
        _c(
            """
            from torch.distributed.checkpoint import FsspecReader, FsspecWriter
            result = FsspecReader.__module__
            """
        ),
        (
            raises("<2.15", "ImportError", "FsspecReader"),
            result(">=2.15", "torch.distributed.checkpoint.fsspec_filesystem"),
        ),
        rule="ADV163",
    ),
    Check(
        "K-163/private-fsspec",
        "the private `_fsspec_filesystem` module has both classes on 2.13 and 2.15",
        _c("from torch.distributed.checkpoint._fsspec_filesystem import FsspecReader, FsspecWriter\nresult = True"),
        (result(ALL, True),),
        rule="ADV163",
    ),
]

REST3 += [
    Check(
        "K-164/tp-mesh-dim",
        "parallelize_module has no tp_mesh_dim parameter on 2.13 / 2.15 (a TypeError to pass it)",
        _c(
            """
            import inspect
            from torch.distributed.tensor.parallel import parallelize_module
            result = "tp_mesh_dim" in inspect.signature(parallelize_module).parameters
            """
        ),
        (result(ALL, False),),
        rule="ADV164",
    ),
    Check(
        "K-165/adjust-profiler-step",
        "a profiler given _ExperimentalConfig(adjust_profiler_step=True) warns FutureWarning from 2.14 (silent on 2.13)",
        _c(
            """
            import torch
            from torch.profiler import _ExperimentalConfig
            cfg = _ExperimentalConfig(adjust_profiler_step=True)
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], experimental_config=cfg):
                torch.ones(2) + 1
            result = True
            """
        ),
        (
            silent("<2.14", "adjust_profiler_step", result=True),
            warns(">=2.14", _FUT, "adjust_profiler_step is deprecated and ignored", result=True),
        ),
        rule="ADV165",
    ),
    Check(
        "K-166/nccl-reduce-outputs",
        "torch.cuda.nccl.reduce(..., outputs=[...]) warns FutureWarning before it reaches NCCL",
        _c(
            """
            import torch
            from torch.cuda import nccl
            t = [torch.zeros(2)]
            nccl.reduce(t, outputs=[torch.zeros(2)])
            """
        ),
        (warns(ALL, _FUT, "`nccl.reduce` with an output tensor list is deprecated", may_raise=True),),
        rule="ADV166",
    ),
]

REST3.append(
    Check(
        "K-733/routed-decoder",
        "constructing torch.utils.data.datapipes.iter.RoutedDecoder warns FutureWarning (deprecated since 1.12)",
        _c(
            """
            from torch.utils.data.datapipes.iter import IterableWrapper, RoutedDecoder
            dp = RoutedDecoder(IterableWrapper([]))
            result = type(dp).__name__
            """
        ),
        (warns(ALL, _FUT, "are deprecated since 1.12", result="RoutedDecoderIterDataPipe"),),
        rule="ADV733",
    )
)

REST3.append(
    Check(
        "K-167/spawn-start-method",
        "torch.multiprocessing.spawn(start_method='fork') warns and still starts the process with spawn",
        _c(
            """
            import sys
            import torch.multiprocessing as mp
            # no process is started: the start method spawn() passes on is the observation
            sys.modules["torch.multiprocessing.spawn"].start_processes = lambda *args, **kwargs: kwargs["start_method"]
            result = mp.spawn(print, args=(), nprocs=1, start_method="fork")
            """
        ),
        (warns(ALL, _FUT, "This method only supports start_method=spawn (got: fork)", result="spawn"),),
        rule="ADV167",
        isolate=True,
    )
)

REST3 += [
    Check(
        "K-168/grad-scaler-kwarg",
        "GradScaler.step passes itself to an optimizer whose step takes grad_scaler (FutureWarning); without it, silent",
        _c(
            """
            import torch
            class WithKwarg(torch.optim.SGD):
                _step_supports_amp_scaling = True
                def step(self, closure=None, grad_scaler=None):
                    self.got = grad_scaler
            p = torch.nn.Parameter(torch.ones(1))
            scaler = torch.amp.GradScaler("cpu")
            opt = WithKwarg([p], lr=0.1)
            scaler.scale(p.sum()).backward()
            scaler.step(opt)
            result = opt.got is scaler
            """
        ),
        (warns(ALL, _FUT, "GradScaler is going to stop passing itself as a keyword argument", result=True),),
        rule="ADV168",
    ),
    Check(
        "K-169/comm-gather-cpu",
        "torch.cuda.comm.gather(..., destination=-1) warns FutureWarning before it needs CUDA",
        _c(
            """
            import torch
            from torch.cuda import comm
            comm.gather([torch.zeros(1)], destination=-1)
            """
        ),
        (warns(ALL, _FUT, "Using -1 to represent CPU tensor is deprecated", may_raise=True),),
        rule="ADV169",
    ),
]

REST3 += [
    Check(
        "K-798/cummulative-sizes",
        "ConcatDataset(...).cummulative_sizes warns (renamed) and equals cumulative_sizes",
        _c(
            """
            import torch
            from torch.utils.data import ConcatDataset, TensorDataset
            ds = ConcatDataset([TensorDataset(torch.zeros(2)), TensorDataset(torch.zeros(3))])
            result = ds.cummulative_sizes == ds.cumulative_sizes == [2, 5]
            """
        ),
        (warns(ALL, _FUT, "`cummulative_sizes` attribute is renamed to `cumulative_sizes`", result=True),),
        rule="ADV798",
    ),
    Check(
        "K-798/mark-shared-storage",
        "ctx.mark_shared_storage(...) in a Function's forward warns FutureWarning and changes nothing",
        _c(
            """
            import torch
            class F(torch.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.mark_shared_storage((x, x))
                    return x * 2
                @staticmethod
                def backward(ctx, g):
                    return g * 2
            result = F.apply(torch.ones(1, requires_grad=True)).item()
            """
        ),
        (warns(ALL, _FUT, "`mark_shared_storage` is deprecated", result=2.0),),
        rule="ADV798",
    ),
    Check(
        "K-798/print-lr",
        "LRScheduler.print_lr is gone on 2.13 / 2.15 (removed in 2.7)",
        _c(
            """
            import torch
            opt = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=1.0)
            result = hasattr(torch.optim.lr_scheduler.StepLR(opt, 1), "print_lr")
            """
        ),
        (result(ALL, False),),
        rule="ADV798",
    ),
]

REST3 += [
    Check(
        "K-798/shape-env",
        "ShapeEnv().var_to_val warns FutureWarning (deprecated from 2.11)",
        _c(
            """
            from torch.fx.experimental.symbolic_shapes import ShapeEnv
            env = ShapeEnv()
            result = dict(env.var_to_val)
            """
        ),
        (warns(ALL, _FUT, "var_to_val is deprecated, use backed_var_to_val instead", result={}),),
        rule="ADV798",
    ),
    Check(
        "K-798/dispatcher-resolve",
        "Dispatcher(...).resolve(types) warns FutureWarning; dispatch(*types) gives the same function",
        _c(
            """
            from torch.fx.experimental.unification.multipledispatch import Dispatcher
            d = Dispatcher("f")
            d.add((int,), lambda x: x)
            result = d.resolve((int,)) is d.dispatch(int)
            """
        ),
        (warns(ALL, _FUT, "`resolve()` is deprecated, use `dispatch(*types)`", result=True),),
        rule="ADV798",
    ),
]
