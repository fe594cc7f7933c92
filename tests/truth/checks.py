"""Truth checks for torch 2.14 / 2.15, one or more per item of the facts file's §1–§4.

Source of the items: the project's research notes on torch 2.14 / 2.15 (D14-n: 2.14
deprecations, R14-n / B14-n: 2.14 removals and behaviour changes, D15-n, R15-n,
B15-n: the same for 2.15). Each check

- has an `id` that starts with the facts item (`D14-1/jit.script`),
- carries a `rule` field, the advisor rule code it backs (None until the rule exists),
- is a small snippet that `runner.py` executes inside the interpreter under test,
- says per release window what must be observed (`Expect`): a warning of a category
  with a text fragment, an exception, the snippet's `result`, or a text on stderr.

Kinds: "runtime" snippets call the API on a CPU. "source" snippets only read the
installed wheel's own files (`src("jit/_script.py")`, `binary_has(...)`,
`dist_info_file(...)`): used where the API needs a GPU, and never importing a GPU
code path. Helpers available to every snippet: `src`, `binary_has`,
`dist_info_file`, `gloo_group` (see runner.py).

Windows compare the release part of `torch.__version__` (2.14.1+cu130 -> 2.14.1):
"<2.14", ">=2.14,<2.15", ">=2.15". A check with no window matching the interpreter's
release does not apply to it.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass, replace

_UNSET = object()

# The windows the items use.
PRE14 = "<2.14"
ONLY13 = "<2.14"
ONLY14 = ">=2.14,<2.15"
FROM14 = ">=2.14"
PRE15 = "<2.15"
FROM15 = ">=2.15"
ALL = ">=2.13"


@dataclass(frozen=True)
class Expect:
    """What a check must observe in the releases of `when`.

    warns:     each (category, fragment) must match some warning (category in its MRO).
    forbid:    no warning may match (category, fragment); category "" = any category.
    raises:    (exception class name in the MRO, fragment); None = must not raise,
               unless may_raise (the call warns, then fails for an unrelated reason,
               e.g. a collective that gloo does not implement).
    result:    the snippet's global `result` must equal this (JSON-comparable).
    stderr / no_stderr: fragment that must / must not be on stderr (isolated checks).
    """

    when: str
    warns: tuple[tuple[str, str], ...] = ()
    forbid: tuple[tuple[str, str], ...] = ()
    raises: tuple[str, str] | None = None
    result: object = _UNSET
    may_raise: bool = False
    stderr: str | None = None
    no_stderr: str | None = None


@dataclass(frozen=True)
class Check:
    id: str
    what: str
    code: str
    expect: tuple[Expect, ...]
    kind: str = "runtime"  # or "source"
    rule: str | None = None  # the advisor rule this check backs; filled in when the rule exists
    isolate: bool = False  # run in a fresh interpreter (once-per-process behaviour, stderr)
    needs_cuda_build: bool = False  # only meaningful on a CUDA build of torch (2.13 here is CPU)
    facts: str = ""  # where in the facts file, when the id does not say enough

    @property
    def item(self) -> str:
        return self.id.split("/", 1)[0]


def warns(when, category, fragment, *, forbid=(), may_raise=False, **kw) -> Expect:
    return Expect(when, warns=((category, fragment),), forbid=tuple(forbid), may_raise=may_raise, **kw)


def silent(when, fragment, *, may_raise=False, **kw) -> Expect:
    """No warning containing `fragment` (any category)."""
    return Expect(when, forbid=(("", fragment),), may_raise=may_raise, **kw)


def raises(when, exc, fragment="", **kw) -> Expect:
    return Expect(when, raises=(exc, fragment), **kw)


def result(when, value, **kw) -> Expect:
    return Expect(when, result=value, **kw)


def _c(code: str) -> str:
    return textwrap.dedent(code).strip() + "\n"


# --- version windows -------------------------------------------------------------------


def release(version: str) -> tuple[int, int, int]:
    """(2, 14, 1) from "2.14.1+cu130"; (2, 15, 0) from "2.15.0"."""
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", version)
    if not m:
        raise ValueError(f"not a torch version: {version!r}")
    return int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)


def in_window(version: str, window: str) -> bool:
    rel = release(version)
    for part in window.split(","):
        m = re.fullmatch(r"\s*(>=|<=|==|<|>)\s*([\d.]+)\s*", part)
        if not m:
            raise ValueError(f"bad window {window!r}")
        op, bound = m.group(1), release(m.group(2))
        if op == "==":
            ok = rel[: len(m.group(2).split("."))] == bound[: len(m.group(2).split("."))]
        else:
            ok = {">=": rel >= bound, "<=": rel <= bound, "<": rel < bound, ">": rel > bound}[op]
        if not ok:
            return False
    return True


def expectation(check: Check, version: str) -> Expect | None:
    """The Expect of `check` for this torch version, or None if the check does not apply."""
    found = [e for e in check.expect if in_window(version, e.when)]
    if len(found) > 1:
        raise ValueError(f"{check.id}: overlapping windows for {version}")
    return found[0] if found else None


# --- judging an observation ------------------------------------------------------------


def _matches(w: dict, category: str, fragment: str) -> bool:
    return (not category or category in w["mro"]) and fragment in w["msg"]


def judge(exp: Expect, obs: dict) -> list[str]:
    """Problems with `obs` (a runner result) against `exp`; [] when it holds."""
    problems = []
    ws = obs.get("warnings", [])
    for cat, frag in exp.warns:
        if not any(_matches(w, cat, frag) for w in ws):
            problems.append(f"expected {cat} containing {frag!r}")
    for cat, frag in exp.forbid:
        hits = [w for w in ws if _matches(w, cat, frag)]
        if hits:
            problems.append(f"unexpected {hits[0]['mro'][0]}: {hits[0]['msg'][:300]!r}")
    exc = obs.get("exc")
    if exp.raises is not None:
        name, frag = exp.raises
        if exc is None:
            problems.append(f"expected {name} containing {frag!r}, nothing was raised")
        elif name not in exc["mro"] or frag not in exc["msg"]:
            problems.append(f"expected {name} containing {frag!r}, got {exc['mro'][0]}: {exc['msg'][:300]!r}")
    elif exc is not None and not exp.may_raise:
        problems.append(f"unexpected {exc['mro'][0]}: {exc['msg'][:300]!r}\n{exc.get('tb', '')}")
    if exp.result is not _UNSET and obs.get("result") != exp.result:
        problems.append(f"result {obs.get('result')!r} != expected {exp.result!r}")
    err = obs.get("stderr", "")
    if exp.stderr is not None and exp.stderr not in err:
        problems.append(f"stderr lacks {exp.stderr!r}: {err[-500:]!r}")
    if exp.no_stderr is not None and exp.no_stderr in err:
        problems.append(f"stderr has {exp.no_stderr!r}")
    return problems


# --- snippets shared by several checks -------------------------------------------------

_EVENT = """
import torch
with torch.profiler.profile() as _p:
    torch.mm(torch.ones(4, 4), torch.ones(4, 4))
evt = _p.events()[0]
"""

_SCRIPTED = """
import io, torch
m = torch.jit.script(torch.nn.Linear(2, 2))
"""

_DEP = "DeprecationWarning"
_FUT = "FutureWarning"
_USER = "UserWarning"


def _jit(name: str, call: str, fragment: str) -> Check:
    """D14-1: a TorchScript entry point, DeprecationWarning in 2.13, FutureWarning from 2.14."""
    return Check(
        f"D14-1/jit.{name}",
        f"torch.jit.{name} warns FutureWarning (not DeprecationWarning) from 2.14",
        _c(call),
        (
            warns(ONLY13, _DEP, fragment, forbid=[(_FUT, fragment)]),
            warns(FROM14, _FUT, fragment, forbid=[(_DEP, fragment)]),
        ),
        rule="ADV406",
    )


CHECKS: list[Check] = [
    # ================================ §1 2.14 deprecations ================================
    _jit(
        "script",
        "import torch\ntorch.jit.script(torch.nn.Identity())",
        "`torch.jit.script` is deprecated. Please switch to `torch.compile` or `torch.export`.",
    ),
    _jit(
        "trace",
        "import torch\ntorch.jit.trace(torch.nn.Linear(2, 2), (torch.ones(1, 2),))",
        "`torch.jit.trace` is deprecated. Please switch to `torch.compile` or `torch.export`.",
    ),
    _jit(
        "trace_module",
        "import torch\ntorch.jit.trace_module(torch.nn.Linear(2, 2), {'forward': (torch.ones(1, 2),)})",
        "`torch.jit.trace_method` is deprecated.",
    ),
    _jit(
        "save",
        _SCRIPTED + "torch.jit.save(m, io.BytesIO())",
        "`torch.jit.save` is deprecated. Please switch to `torch.export`.",
    ),
    _jit(
        "load",
        _SCRIPTED + "b = io.BytesIO()\ntorch.jit.save(m, b)\nb.seek(0)\ntorch.jit.load(b)",
        "`torch.jit.load` is deprecated. Please switch to `torch.export`.",
    ),
    _jit(
        "freeze",
        _SCRIPTED + "torch.jit.freeze(m.eval())",
        "`torch.jit.freeze` is deprecated. Please use `torch.compile` instead.",
    ),
    _jit(
        "optimize_for_inference",
        _SCRIPTED + "torch.jit.optimize_for_inference(m.eval())",
        "`torch.jit.optimize_for_inference` is deprecated. Please use `torch.compile` instead.",
    ),
    _jit(
        "fork",
        "import torch\ntorch.jit.fork(torch.neg, torch.ones(2))",
        "`torch.jit.fork` is deprecated. Please use `torch.compile` instead.",
    ),
    _jit(
        "wait",
        "import torch\nfut = torch.jit.fork(torch.neg, torch.ones(2))\ntorch.jit.wait(fut)",
        "`torch.jit.wait` is deprecated. Please use `torch.compile` instead.",
    ),
    _jit(
        "interface",
        """
        import torch
        @torch.jit.interface
        class OneTensor(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                pass
        """,
        "`torch.jit.interface` is deprecated. Please use `torch.compile` instead.",
    ),
    _jit(
        "script_method",
        """
        import torch
        class M(torch.jit.ScriptModule):
            @torch.jit.script_method
            def forward(self, x):
                return x
        M()
        """,
        "`torch.jit.script_method` is deprecated. Please switch to `torch.compile` or `torch.export`.",
    ),
    Check(
        "D14-1/lite-interpreter",
        "_save_to_buffer_for_lite_interpreter warns FutureWarning from 2.14 (the @deprecated decorator adds a DeprecationWarning too)",
        _c(_SCRIPTED + "m._save_to_buffer_for_lite_interpreter()"),
        (
            warns(ONLY13, _DEP, "Lite Interpreter is deprecated. Please consider switching to ExecuTorch."),
            warns(FROM14, _FUT, "Lite Interpreter is deprecated. Please consider switching to ExecuTorch."),
        ),
        rule="ADV406",
    ),
    Check(
        "D14-1/set_fusion_strategy-unchanged",
        "torch.jit.set_fusion_strategy stays DeprecationWarning in every release",
        _c("import torch\nold = torch.jit.set_fusion_strategy([('STATIC', 2)])\ntorch.jit.set_fusion_strategy(old)"),
        (warns(ALL, _DEP, "`torch.jit.set_fusion_strategy` is deprecated", forbid=[(_FUT, "set_fusion_strategy")]),),
        rule="ADV406",
    ),
    Check(
        "D14-1/ignore-deprecation-no-longer-silences",
        "filterwarnings('ignore', DeprecationWarning) silences torch.jit.script in 2.13, not from 2.14",
        _c(
            """
            import warnings, torch
            with warnings.catch_warnings(record=True) as rec:
                warnings.simplefilter("always")
                warnings.filterwarnings("ignore", category=DeprecationWarning)
                torch.jit.script(torch.nn.Identity())
            result = any("torch.jit.script" in str(w.message) for w in rec)
            """
        ),
        (result(ONLY13, False), result(FROM14, True)),
        rule="ADV406",
    ),
    Check(
        "D14-1/not-a-hard-error",
        "TorchScript is not a hard error in 2.15 (draft PR #189705 not merged): no escape-hatch env var in jit/",
        _c(
            """
            import os
            texts = [src(os.path.join("jit", f)) for f in ("_script.py", "_trace.py", "_serialization.py", "__init__.py")]
            result = any("TORCH_2_14_ONLY_UNSAFE_SILENCE_TORCHSCRIPT_ERROR" in t or "_torchscript_deprecation_error" in t for t in texts)
            """
        ),
        (result(ALL, False),),
        kind="source",
        rule="ADV406",
    ),
    Check(
        "D14-2/mkldnn-lazy",
        "torch.utils.mkldnn compiles its TorchScript classes at import in 2.13 (DeprecationWarning), at first use from 2.14 (FutureWarning)",
        _c(
            """
            import warnings
            with warnings.catch_warnings(record=True) as at_import:
                warnings.simplefilter("always")
                import torch.utils.mkldnn as mk
            with warnings.catch_warnings(record=True) as at_use:
                warnings.simplefilter("always")
                mk.MkldnnLinear
            def cats(rec):
                return sorted({w.category.__name__ for w in rec if "`torch.jit.script_method` is deprecated" in str(w.message)})
            result = {"import": cats(at_import), "first_use": cats(at_use)}
            """
        ),
        (
            result(ONLY13, {"import": ["DeprecationWarning"], "first_use": []}),
            result(FROM14, {"import": [], "first_use": ["FutureWarning"]}),
        ),
        isolate=True,
    ),
    Check(
        "D14-3/autograd-profiler",
        "torch.autograd.profiler.profile(with_modules=True) warns FutureWarning from 2.14",
        _c("import torch\ntorch.autograd.profiler.profile(with_modules=True)"),
        (
            silent(ONLY13, "with_modules"),
            warns(
                FROM14,
                _FUT,
                "with_modules is deprecated and will be removed in a future release. It only collects data for TorchScript models",
            ),
        ),
    ),
    Check(
        "D14-3/torch-profiler",
        "torch.profiler.profile(with_modules=True) warns FutureWarning from 2.14 (when started)",
        _c("import torch\nwith torch.profiler.profile(with_modules=True):\n    torch.ones(2) + 1"),
        (
            silent(ONLY13, "with_modules"),
            warns(FROM14, _FUT, "with_modules is deprecated"),
        ),
    ),
    Check(
        "D14-4/profiler-metrics",
        "_ExperimentalConfig(profiler_metrics=, profiler_measure_per_kernel=): ignored with FutureWarning in 2.14, TypeError in 2.15 (R15-2)",
        _c(
            """
            import torch
            cfg = torch.profiler._ExperimentalConfig(profiler_metrics=["kineto__cuda_core_flops"], profiler_measure_per_kernel=True)
            torch.autograd.profiler.profile(experimental_config=cfg)
            """
        ),
        (
            silent(ONLY13, "profiler_metrics"),
            warns(ONLY14, _FUT, "profiler_metrics and profiler_measure_per_kernel are deprecated and ignored"),
            raises(FROM15, "TypeError", "incompatible constructor arguments"),
        ),
    ),
    Check(
        "D14-5/gather_into_tensor-call",
        "dist.gather_into_tensor: absent in 2.13, FutureWarning in 2.14, un-deprecated in 2.15 (D15-10)",
        _c(
            """
            import torch
            dist = gloo_group()
            out = torch.zeros(2)
            dist.gather_into_tensor(out, torch.ones(2), dst=0)
            """
        ),
        (
            raises(ONLY13, "AttributeError", "gather_into_tensor"),
            warns(
                ONLY14,
                _FUT,
                "`torch.distributed.gather_into_tensor` is deprecated. Please use `torch.distributed.gather_single` instead.",
                may_raise=True,
            ),
            silent(FROM15, "gather_into_tensor", may_raise=True),
        ),
        rule="ADV739",
    ),
    Check(
        "D14-5/gather_single-exists",
        "torch.distributed.gather_single and gather_into_tensor exist from 2.14 only",
        _c("import torch.distributed as d\nresult = [hasattr(d, 'gather_single'), hasattr(d, 'gather_into_tensor')]"),
        (result(ONLY13, [False, False]), result(FROM14, [True, True])),
    ),
    Check(
        "D14-6/_set_pg_timeout",
        "distributed_c10d._set_pg_timeout warns FutureWarning from 2.14; torch.distributed.set_timeout is new in 2.14",
        _c(
            """
            import datetime, torch
            dist = gloo_group()
            from torch.distributed import distributed_c10d as c10d
            c10d._set_pg_timeout(datetime.timedelta(seconds=120))
            """
        ),
        (
            silent(ONLY13, "_set_pg_timeout"),
            warns(
                FROM14,
                _FUT,
                "`torch.distributed.distributed_c10d._set_pg_timeout` is deprecated, please use `torch.distributed.set_timeout` instead",
            ),
        ),
    ),
    Check(
        "D14-6/set_timeout",
        "torch.distributed.set_timeout(timeout) works on a gloo group from 2.14, absent before",
        _c(
            """
            import datetime, torch
            dist = gloo_group()
            dist.set_timeout(datetime.timedelta(seconds=120))
            """
        ),
        (raises(ONLY13, "AttributeError", "set_timeout"), silent(FROM14, "deprecated")),
    ),
    Check(
        "D14-7/compile_on_one_rank-read",
        "reading torch.distributed.config.compile_on_one_rank warns from 2.14; torch.compiler.config.compile_on_one_rank is new in 2.14",
        _c(
            """
            import torch, torch.distributed.config as dc, torch.compiler.config as cc
            dc.compile_on_one_rank
            result = hasattr(cc, "compile_on_one_rank")
            """
        ),
        (
            silent(ONLY13, "compile_on_one_rank", result=False),
            warns(
                FROM14,
                _FUT,
                "torch.distributed.config.compile_on_one_rank is deprecated and use torch.compiler.config.compile_on_one_rank instead",
                result=True,
            ),
        ),
    ),
    Check(
        "D14-7/compile_on_one_rank-patch",
        "torch.distributed.config.patch(compile_on_one_rank=...) sets torch.compiler.config's flag from 2.14 and does NOT warn (observed: only attribute reads/writes warn)",
        _c(
            """
            import torch, torch.distributed.config as dc
            with dc.patch(compile_on_one_rank=True):
                inside = torch.compiler.config.compile_on_one_rank if hasattr(torch.compiler.config, "compile_on_one_rank") else dc.compile_on_one_rank
            result = inside
            """
        ),
        (silent(ONLY13, "compile_on_one_rank", result=True), silent(FROM14, "compile_on_one_rank", result=True)),
    ),
    Check(
        "D14-8/enable_faithful_generator_behavior",
        "torch._dynamo.config.enable_faithful_generator_behavior is a deprecated no-op from 2.14 (read and write warn)",
        _c(
            """
            import torch._dynamo.config as c
            v = c.enable_faithful_generator_behavior
            c.enable_faithful_generator_behavior = v
            """
        ),
        (
            silent(ONLY13, "enable_faithful_generator_behavior"),
            warns(
                FROM14,
                _FUT,
                "torch._dynamo.config.enable_faithful_generator_behavior is deprecated and does not do anything",
            ),
        ),
    ),
    Check(
        "D14-9/green-context-set-pop",
        "GreenContext.set_context/pop_context carry a FutureWarning @deprecated from 2.14 (source: needs a GPU to run)",
        _c(
            """
            s = src("cuda/green_contexts.py")
            result = {
                "message": "`GreenContext.set_context` and `GreenContext.pop_context` are deprecated." in s,
                "future": "@deprecated(_CONTEXT_STACK_DEPRECATION, category=FutureWarning)" in s,
                "Stream": "def Stream(" in s,
            }
            """
        ),
        (
            result(ONLY13, {"message": False, "future": False, "Stream": True}),
            result(FROM14, {"message": True, "future": True, "Stream": True}),
        ),
        kind="source",
    ),
    Check(
        "D14-10/sac-in-save_on_cpu",
        "selective activation checkpoint inside save_on_cpu warns FutureWarning from 2.14",
        _c(
            """
            import functools, torch
            from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts, CheckpointPolicy
            def policy(ctx, op, *args, **kwargs):
                return CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.mm.default else CheckpointPolicy.PREFER_RECOMPUTE
            x = torch.randn(4, 4, requires_grad=True)
            with torch.autograd.graph.save_on_cpu():
                y = checkpoint(lambda t: torch.mm(t, t).sin(), x, use_reentrant=False,
                               context_fn=functools.partial(create_selective_checkpoint_contexts, policy))
            y.sum().backward()
            """
        ),
        (
            silent(ONLY13, "saved_tensors_hooks"),
            warns(
                FROM14,
                _FUT,
                "A saved_tensors_hooks context (e.g. save_on_cpu) is active around a selective activation checkpoint region.",
            ),
        ),
    ),
    Check(
        "D14-10/respect_saved_tensors_hooks",
        "checkpoint(respect_saved_tensors_hooks=False) silences D14-10 from 2.14; the keyword is rejected by 2.13",
        _c(
            """
            import functools, torch
            from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts, CheckpointPolicy
            def policy(ctx, op, *args, **kwargs):
                return CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.mm.default else CheckpointPolicy.PREFER_RECOMPUTE
            x = torch.randn(4, 4, requires_grad=True)
            with torch.autograd.graph.save_on_cpu():
                y = checkpoint(lambda t: torch.mm(t, t).sin(), x, use_reentrant=False, respect_saved_tensors_hooks=False,
                               context_fn=functools.partial(create_selective_checkpoint_contexts, policy))
            y.sum().backward()
            """
        ),
        (
            # 2.13 does not know the keyword: non-reentrant checkpoint forwards unknown keywords to the
            # checkpointed function, so it reaches the user's function (a TypeError here, silently accepted by **kwargs)
            raises(ONLY13, "TypeError", "<lambda>() got an unexpected keyword argument 'respect_saved_tensors_hooks'"),
            silent(FROM14, "saved_tensors_hooks"),
        ),
    ),
    Check(
        "D14-11/opaque-object-renames",
        "torch._library.opaque_object: old names log a deprecation (logging, not warnings) from 2.14; new names exist from 2.14",
        _c(
            """
            import logging
            import torch._library.opaque_object as oo
            seen = []
            h = logging.Handler()
            h.emit = lambda r: seen.append(r.getMessage())
            logging.getLogger(oo.__name__).addHandler(h)
            try:
                oo.is_opaque_type(int)
            finally:
                logging.getLogger(oo.__name__).removeHandler(h)
            new = ["register_custom_class", "is_custom_class", "is_custom_class_obj", "is_opaque_constant_type", "is_opaque_symbolic_type"]
            result = {"logged": any("is_opaque_type is deprecated, use is_custom_class instead" in m for m in seen),
                      "new_names": [n for n in new if hasattr(oo, n)]}
            """
        ),
        (
            result(ONLY13, {"logged": False, "new_names": []}),
            result(
                FROM14,
                {
                    "logged": True,
                    "new_names": [
                        "register_custom_class",
                        "is_custom_class",
                        "is_custom_class_obj",
                        "is_opaque_constant_type",
                        "is_opaque_symbolic_type",
                    ],
                },
            ),
        ),
    ),
    Check(
        "D14-11/opaque-object-source",
        "every D14-11 rename is logged in the wheel's opaque_object.py / _opaque_base.py",
        _c(
            """
            s = src("_library/opaque_object.py") + src("_opaque_base.py")
            msgs = [
                "typ='reference' is deprecated, use typ='symbolic' instead",
                "typ='value' is deprecated, use typ='constant' instead",
                "register_opaque_type is deprecated, use register_custom_class instead",
                "is_opaque_value is deprecated, use is_custom_class_obj instead",
                "is_opaque_type is deprecated, use is_custom_class instead",
                "is_opaque_value_type is deprecated, use is_opaque_constant_type instead",
                "is_opaque_reference_type is deprecated, use is_opaque_symbolic_type instead",
                "torch._opaque_base is deprecated, use torch._custom_class_base instead",
            ]
            result = {"missing": [m for m in msgs if m not in s], "custom_class_base": bool(src("_custom_class_base.py"))}
            """
        ),
        (
            result(
                ONLY13,
                {
                    "missing": [
                        "typ='reference' is deprecated, use typ='symbolic' instead",
                        "typ='value' is deprecated, use typ='constant' instead",
                        "register_opaque_type is deprecated, use register_custom_class instead",
                        "is_opaque_value is deprecated, use is_custom_class_obj instead",
                        "is_opaque_type is deprecated, use is_custom_class instead",
                        "is_opaque_value_type is deprecated, use is_opaque_constant_type instead",
                        "is_opaque_reference_type is deprecated, use is_opaque_symbolic_type instead",
                        "torch._opaque_base is deprecated, use torch._custom_class_base instead",
                    ],
                    "custom_class_base": False,
                },
            ),
            result(FROM14, {"missing": [], "custom_class_base": True}),
        ),
        kind="source",
    ),
    Check(
        "D14-12/register_generator_state",
        "CUDAGraph.register_generator_state() deprecation text is in libtorch_python.so; method still in the stub (source: needs a GPU)",
        _c(
            """
            result = {
                "binary": binary_has("lib/libtorch_python.so", "CUDAGraph.register_generator_state() is deprecated, and will be removed in a future PyTorch release. It is now a no-op and can be safely removed from your code."),
                "stub": "def register_generator_state(" in src("_C/__init__.pyi"),
            }
            """
        ),
        (result(FROM14, {"binary": True, "stub": True}),),
        kind="source",
        needs_cuda_build=True,
    ),
    # ============================ §2 2.14 removals / behaviour ============================
    Check(
        "R14-1/torch.cholesky",
        "torch.cholesky: UserWarning in 2.13, RuntimeError from 2.14",
        _c("import torch\ntorch.cholesky(torch.eye(2))"),
        (
            warns(ONLY13, _USER, "torch.cholesky is deprecated in favor of torch.linalg.cholesky"),
            raises(
                FROM14,
                "RuntimeError",
                "This function was deprecated since version 1.9 and is now removed. `torch.cholesky` is deprecated in favor of `torch.linalg.cholesky`",
            ),
        ),
        rule="ADV206",
        isolate=True,  # the 2.13 warning is a C++ warn-once
    ),
    Check(
        "R14-1/Tensor.cholesky",
        "Tensor.cholesky: RuntimeError from 2.14",
        _c("import torch\ntorch.eye(2).cholesky()"),
        (
            warns(ONLY13, _USER, "torch.cholesky is deprecated in favor of torch.linalg.cholesky"),
            raises(FROM14, "RuntimeError", "`torch.cholesky` is deprecated in favor of `torch.linalg.cholesky`"),
        ),
        rule="ADV206",
        isolate=True,
    ),
    Check(
        "R14-1/rewrite-equivalent",
        "torch.linalg.cholesky(A, upper=u) equals torch.cholesky(A, upper=u) on 2.13 (the fix is behaviour-preserving there)",
        _c(
            """
            import torch
            a = torch.randn(4, 4, dtype=torch.float64)
            a = a @ a.T + 4 * torch.eye(4, dtype=torch.float64)
            result = all(torch.equal(torch.cholesky(a, upper=u), torch.linalg.cholesky(a, upper=u)) for u in (False, True))
            out = torch.empty(4, 4, dtype=torch.float64)
            torch.linalg.cholesky(a, out=out)
            result = result and torch.equal(out, torch.cholesky(a))
            """
        ),
        (result(ONLY13, True),),
        rule="ADV206",
    ),
    Check(
        "R14-1/replacement",
        "torch.linalg.cholesky works in every release",
        _c("import torch\nresult = torch.linalg.cholesky(torch.eye(2)).tolist()"),
        (result(ALL, [[1.0, 0.0], [0.0, 1.0]]),),
        rule="ADV206",
    ),
    Check(
        "R14-2/torch.qr",
        "torch.qr: UserWarning in 2.13, RuntimeError from 2.14",
        _c("import torch\ntorch.qr(torch.eye(2), some=False)"),
        (
            warns(ONLY13, _USER, "torch.qr is deprecated in favor of torch.linalg.qr"),
            raises(FROM14, "RuntimeError", "`torch.qr` is deprecated in favor of `torch.linalg.qr`"),
        ),
        rule="ADV206",
        isolate=True,
    ),
    Check(
        "R14-2/Tensor.qr",
        "Tensor.qr: RuntimeError from 2.14",
        _c("import torch\ntorch.eye(2).qr()"),
        (
            warns(ONLY13, _USER, "torch.qr is deprecated in favor of torch.linalg.qr"),
            raises(FROM14, "RuntimeError", "`torch.qr` is deprecated in favor of `torch.linalg.qr`"),
        ),
        rule="ADV206",
        isolate=True,
    ),
    Check(
        "R14-2/return_types",
        "torch.return_types.qr / qr_out exist in 2.13 only; linalg_qr in all",
        _c("import torch\nresult = [hasattr(torch.return_types, n) for n in ('qr', 'qr_out', 'linalg_qr')]"),
        (result(ONLY13, [True, True, True]), result(FROM14, [False, False, True])),
        rule="ADV206",
    ),
    Check(
        "R14-2/rewrite-equivalent",
        "torch.linalg.qr(A, mode='reduced'/'complete') equals torch.qr(A, some=True/False) on 2.13",
        _c(
            """
            import torch
            a = torch.randn(5, 3, dtype=torch.float64)
            pairs = [(torch.qr(a), torch.linalg.qr(a)), (torch.qr(a, some=True), torch.linalg.qr(a, mode="reduced")),
                     (torch.qr(a, some=False), torch.linalg.qr(a, mode="complete"))]
            result = all(torch.equal(o[0], n[0]) and torch.equal(o[1], n[1]) for o, n in pairs)
            """
        ),
        (result(ONLY13, True),),
        rule="ADV206",
    ),
    Check(
        "R14-3/torch.profiler-use_cuda",
        "torch.profiler.profile(use_cuda=True): FutureWarning in 2.13, TypeError from 2.14",
        _c("import torch\ntorch.profiler.profile(use_cuda=True)"),
        (
            warns(ONLY13, _FUT, "`use_cuda` is deprecated, use `activities` argument instead"),
            raises(FROM14, "TypeError", "unexpected keyword argument 'use_cuda'"),
        ),
        rule="ADV601",
    ),
    Check(
        "R14-3/use_cuda-inert-in-2.13",
        "in 2.13 use_cuda= does not change the profiler's activities (so dropping it is behaviour-preserving)",
        _c(
            """
            import torch
            from torch.profiler import profile, ProfilerActivity
            result = [profile(use_cuda=u).activities == profile().activities for u in (True, False)]
            result.append(profile(use_cuda=True, activities=[ProfilerActivity.CPU]).activities == profile(activities=[ProfilerActivity.CPU]).activities)
            """
        ),
        (result(ONLY13, [True, True, True]),),
        rule="ADV601",
    ),
    Check(
        "R14-4/autograd.profiler-use_cuda",
        "torch.autograd.profiler.profile(use_cuda=True): FutureWarning in 2.13, TypeError from 2.14",
        _c("import torch\ntorch.autograd.profiler.profile(use_cuda=True)"),
        (
            warns(ONLY13, _FUT, "use_device = 'cuda'"),
            raises(FROM14, "TypeError", "unexpected keyword argument 'use_cuda'"),
        ),
        rule="ADV601",
    ),
    Check(
        "R14-4/use_device-and-attribute",
        "use_device='cuda' is accepted in every release (construction); the instance attribute .use_cuda is gone from 2.14",
        _c(
            """
            import torch
            torch.autograd.profiler.profile(use_device="cuda")  # on a CPU-only machine it warns and falls back to None
            result = hasattr(torch.autograd.profiler.profile(), "use_cuda")
            """
        ),
        (result(ONLY13, True), result(FROM14, False)),
        rule="ADV601",
    ),
    Check(
        "R14-4/profiler_legacy-keeps-use_cuda",
        "torch.autograd.profiler_legacy.profile(use_cuda=False) is still accepted (must not be flagged)",
        _c("import torch.autograd.profiler_legacy as pl\npl.profile(use_cuda=False)"),
        (Expect(ALL),),
        rule="ADV601",
    ),
    Check(
        "R14-5/shapes_spec",
        "torch.compile(shapes_spec=) is accepted by 2.13, TypeError from 2.14",
        _c("import torch\ntorch.compile(lambda x: x, shapes_spec=None)"),
        (Expect(ONLY13), raises(FROM14, "TypeError", "shapes_spec")),
    ),
    Check(
        "R14-5/dynamic_shapes",
        "torch.compile(dynamic_shapes=) is a TypeError on 2.13, accepted from 2.14",
        _c("import torch\ntorch.compile(lambda x: x, dynamic_shapes=None)"),
        (raises(ONLY13, "TypeError", "dynamic_shapes"), Expect(FROM14)),
    ),
    Check(
        "R14-6/partitioned_scatter_memory_budget-set",
        "setting torch._inductor.config.partitioned_scatter_memory_budget: AttributeError from 2.14",
        _c("import torch._inductor.config as c\nc.partitioned_scatter_memory_budget = 0.1"),
        (Expect(ONLY13), raises(FROM14, "AttributeError", "partitioned_scatter_memory_budget does not exist")),
    ),
    Check(
        "R14-6/partitioned_scatter_memory_budget-patch",
        "torch._inductor.config.patch(partitioned_scatter_memory_budget=...): AttributeError from 2.14",
        _c("import torch._inductor.config as c\nwith c.patch(partitioned_scatter_memory_budget=0.1):\n    pass"),
        (Expect(ONLY13), raises(FROM14, "AttributeError", "partitioned_scatter_memory_budget")),
    ),
    Check(
        "R14-6/compile-options",
        "torch.compile(options={'partitioned_scatter_memory_budget': ...}): RuntimeError from 2.14",
        _c("import torch\ntorch.compile(lambda x: x + 1, options={'partitioned_scatter_memory_budget': 0.1})"),
        (
            Expect(ONLY13),
            raises(FROM14, "RuntimeError", "Unexpected optimization option partitioned_scatter_memory_budget"),
        ),
    ),
    Check(
        "R14-6/nvgemm-and-new-keys",
        "inductor config: cuda.nvgemm_max_profiling_configs gone from 2.14; the partitioned_scatter_* keys added in 2.14",
        _c(
            """
            import torch._inductor.config as c
            new = ["partitioned_scatter_force", "partitioned_scatter_min_contention_ratio", "partitioned_scatter_min_index_size", "partitioned_scatter_non_model_floor_bytes"]
            result = [hasattr(c.cuda, "nvgemm_max_profiling_configs"), [n for n in new if hasattr(c, n)]]
            """
        ),
        (
            result(ONLY13, [True, []]),
            result(
                FROM14,
                [
                    False,
                    [
                        "partitioned_scatter_force",
                        "partitioned_scatter_min_contention_ratio",
                        "partitioned_scatter_min_index_size",
                        "partitioned_scatter_non_model_floor_bytes",
                    ],
                ],
            ),
        ),
    ),
    Check(
        "R14-7/FileBaton",
        "from torch.utils.cpp_extension import FileBaton: ImportError from 2.14",
        _c("from torch.utils.cpp_extension import FileBaton"),
        (Expect(ONLY13), raises(FROM14, "ImportError", "FileBaton")),
    ),
    Check(
        "R14-7/replacement",
        "torch.utils.file_baton.FileBaton exists in every release",
        _c("from torch.utils.file_baton import FileBaton\nresult = FileBaton.__name__"),
        (result(ALL, "FileBaton"),),
    ),
    Check(
        "R14-8/green_contexts.SUPPORTED",
        "torch.cuda.green_contexts.SUPPORTED is defined in 2.13 only (source)",
        _c("result = 'SUPPORTED = ' in src('cuda/green_contexts.py')"),
        (result(ONLY13, True), result(FROM14, False)),
        kind="source",
    ),
    Check(
        "R14-8/get_num_thread-stub",
        "the misspelled stub torch._C.get_num_thread became get_num_threads in 2.14's _C/__init__.pyi (stub only: the binding is get_num_threads in both)",
        _c(
            """
            import torch
            s = src('_C/__init__.pyi')
            result = ['def get_num_thread(' in s, 'def get_num_threads(' in s, hasattr(torch._C, 'get_num_thread'), hasattr(torch._C, 'get_num_threads')]
            """
        ),
        (result(ONLY13, [True, False, False, True]), result(FROM14, [False, True, False, True])),
    ),
    Check(
        "R14-8/flop-formula-out_shape",
        "torch.utils.flop_counter.addmm_flop / bmm_flop / baddbmm_flop lost out_shape in 2.14",
        _c(
            """
            import inspect, torch.utils.flop_counter as fc
            result = ["out_shape" in inspect.signature(getattr(fc, n)).parameters for n in ("addmm_flop", "bmm_flop", "baddbmm_flop")]
            """
        ),
        (result(ONLY13, [True, True, True]), result(FROM14, [False, False, False])),
    ),
    Check(
        "B14-1/key_averages-python-events",
        "with_stack=True: key_averages() has Python-function rows in 2.13, none by default from 2.14",
        _c(
            """
            import torch
            def work(x):
                return torch.mm(x, x).relu()
            with torch.profiler.profile(with_stack=True) as p:
                work(torch.ones(8, 8))
            result = [sum(".py(" in k.key for k in p.key_averages()) > 0, sum(".py(" in e.name for e in p.events()) > 0]
            """
        ),
        (result(ONLY13, [True, True]), result(FROM14, [False, True])),
        rule="ADV602",
    ),
    Check(
        "B14-1/include_python_functions",
        "key_averages(include_python_functions=True) brings them back from 2.14; TypeError on 2.13",
        _c(
            """
            import torch
            def work(x):
                return torch.mm(x, x).relu()
            with torch.profiler.profile(with_stack=True) as p:
                work(torch.ones(8, 8))
            result = sum(".py(" in k.key for k in p.key_averages(include_python_functions=True)) > 0
            """
        ),
        (raises(ONLY13, "TypeError", "include_python_functions"), result(FROM14, True)),
        rule="ADV602",
    ),
    Check(
        "B14-2/load-sparse-validation",
        "torch.load(weights_only=True) of a sparse tensor warns about validation from 2.14",
        _c(
            """
            import io, torch
            b = io.BytesIO()
            torch.save({"s": torch.eye(3).to_sparse()}, b)
            b.seek(0)
            result = torch.load(b, weights_only=True)["s"].to_dense().tolist()
            """
        ),
        (
            silent(
                ONLY13,
                "Validating sparse tensor invariants",
                result=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            ),
            warns(
                FROM14,
                _USER,
                "Validating sparse tensor invariants because weights_only=True",
                result=[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
            ),
        ),
    ),
    Check(
        "B14-3/register_backend-devices",
        "Backend.register_backend without devices= assumes cpu + cuda/xpu (2.13) vs cpu + the current accelerator (2.14+)",
        _c(
            """
            import torch.distributed as dist
            dist.Backend.register_backend("advisortruth", lambda *a, **k: None)
            """
        ),
        (
            warns(ONLY13, _USER, "assuming `cpu` and `cuda` or `xpu`"),
            warns(FROM14, _USER, "assuming `cpu` and the current accelerator"),
        ),
    ),
    Check(
        "B14-4/empty-mkldnn",
        "torch.empty(device='mkldnn'): RuntimeError (2.13), NotImplementedError with a deprecation text (2.14+)",
        _c("import torch\ntorch.empty(2, device='mkldnn')"),
        (
            raises(ONLY13, "RuntimeError"),
            raises(
                FROM14,
                "NotImplementedError",
                "The 'mkldnn' device type is deprecated and cannot be used to allocate dense tensors.",
            ),
        ),
    ),
    # ================================ §3 2.15 deprecations ================================
    Check(
        "D15-1/event_metadata",
        "FunctionEvent.event_metadata warns FutureWarning in 2.15; FunctionEvent.metadata exists from 2.14",
        _c(_EVENT + "evt.event_metadata\nresult = hasattr(evt, 'metadata')"),
        (
            silent(ONLY13, "event_metadata", result=False),
            silent(ONLY14, "event_metadata", result=True),
            warns(FROM15, _FUT, "`event_metadata` is deprecated. Use `metadata` instead.", result=True),
        ),
        rule="ADV601",
    ),
    Check(
        "D15-2/adjust_profiler_step",
        "_ExperimentalConfig(adjust_profiler_step=True) warns at profiler construction in 2.15",
        _c(
            """
            import torch
            cfg = torch.profiler._ExperimentalConfig(adjust_profiler_step=True)
            torch.autograd.profiler.profile(experimental_config=cfg)
            """
        ),
        (
            silent(PRE15, "adjust_profiler_step"),
            warns(
                FROM15, _FUT, "adjust_profiler_step is deprecated and ignored. It will be removed in a future release."
            ),
        ),
    ),
    Check(
        "D15-3/nvprof",
        "torch.autograd.profiler.EnforceUnique / load_nvprof / parse_nvprof_trace warn 'removed in PyTorch 2.17' in 2.15",
        _c(
            """
            import warnings, torch
            torch.autograd.profiler.EnforceUnique()
            for fn in (torch.autograd.profiler.load_nvprof, torch.autograd.profiler.parse_nvprof_trace):
                try:
                    fn("/nonexistent/advisor-truth.nvvp")
                except Exception:
                    pass
            """
        ),
        (
            silent(PRE15, "2.17"),
            Expect(
                FROM15,
                warns=(
                    (
                        _FUT,
                        "`torch.autograd.profiler.EnforceUnique` is deprecated and will be removed in PyTorch 2.17.",
                    ),
                    (_FUT, "`torch.autograd.profiler.load_nvprof` is deprecated and will be removed in PyTorch 2.17."),
                    (
                        _FUT,
                        "`torch.autograd.profiler.parse_nvprof_trace` is deprecated and will be removed in PyTorch 2.17.",
                    ),
                ),
            ),
        ),
    ),
    Check(
        "D15-4/_fsspec_filesystem-import",
        "importing torch.distributed.checkpoint._fsspec_filesystem warns DeprecationWarning in 2.15",
        _c("import torch.distributed.checkpoint._fsspec_filesystem"),
        (
            silent(PRE15, "_fsspec_filesystem is deprecated"),
            warns(
                FROM15,
                _DEP,
                "torch.distributed.checkpoint._fsspec_filesystem is deprecated and will be removed in a future release. Please use torch.distributed.checkpoint.fsspec_filesystem instead.",
            ),
        ),
        isolate=True,
    ),
    Check(
        "D15-4/replacement",
        "torch.distributed.checkpoint.fsspec_filesystem and top-level FsspecReader/FsspecWriter exist from 2.15 only",
        _c(
            """
            import torch.distributed.checkpoint as dcp
            result = [bool(src("distributed/checkpoint/fsspec_filesystem.py")), hasattr(dcp, "FsspecReader"), hasattr(dcp, "FsspecWriter")]
            """
        ),
        (result(PRE15, [False, False, False]), result(FROM15, [True, True, True])),
    ),
    Check(
        "D15-5/optimizer-set",
        "torch.optim.SGD(<set of params>) warns FutureWarning in 2.15",
        _c(
            "import torch\ntorch.optim.SGD({torch.nn.Parameter(torch.ones(1))}, lr=0.1)\ntorch.optim.Adam(set([torch.nn.Parameter(torch.ones(1))]))"
        ),
        (
            silent(PRE15, "ordering of tensors in sets"),
            warns(
                FROM15,
                _FUT,
                "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets will change between runs. Please use a list instead. This will be an error in a future release.",
            ),
        ),
    ),
    Check(
        "D15-6/mixed_mm-epilogue",
        "inductor config use_mixed_mm / mixed_mm_choice / benchmark_epilogue_fusion / max_epilogue_benchmarked_choices warn in 2.15",
        _c(
            """
            import torch._inductor.config as c
            for n in ("use_mixed_mm", "mixed_mm_choice", "benchmark_epilogue_fusion", "max_epilogue_benchmarked_choices"):
                getattr(c, n)
            result = [hasattr(c, "benchmark_template_fusion"), hasattr(c, "max_template_fusion_benchmarked_choices")]
            """
        ),
        (
            Expect(
                PRE15,
                forbid=(
                    ("", "use_mixed_mm"),
                    ("", "mixed_mm_choice"),
                    ("", "benchmark_epilogue_fusion"),
                    ("", "max_epilogue_benchmarked_choices"),
                ),
                result=[False, False],
            ),
            Expect(
                FROM15,
                warns=(
                    (_FUT, "use_mixed_mm is deprecated and does not do anything"),
                    (_FUT, "mixed_mm_choice is deprecated and does not do anything"),
                    (_FUT, "benchmark_epilogue_fusion is deprecated and use benchmark_template_fusion instead"),
                    (
                        _FUT,
                        "max_epilogue_benchmarked_choices is deprecated and use max_template_fusion_benchmarked_choices instead",
                    ),
                ),
                result=[True, True],
            ),
        ),
    ),
    Check(
        "D15-7/use_block_ptr",
        "config.triton.use_block_ptr=True: deprecation text in 2.15's triton_utils.py (fires only with a Triton lacking block pointers)",
        _c(
            "result = 'This flag is deprecated and will be removed (#191012).' in src('_inductor/codegen/triton_utils.py')"
        ),
        (result(PRE15, False), result(FROM15, True)),
        kind="source",
    ),
    Check(
        "D15-8/clear_kernel_annotations",
        "clear_kernel_annotations: private torch.cuda._graph_annotations in 2.13, public torch.cuda.graph_annotations from 2.14, FutureWarning text in 2.15 (source: CUDA module)",
        _c(
            """
            s = src("cuda/_graph_annotations.py")
            result = ["def clear_kernel_annotations(" in s, bool(src("cuda/graph_annotations.py")),
                      "`torch.cuda.graph_annotations.clear_kernel_annotations` is deprecated." in s]
            """
        ),
        (result(ONLY13, [True, False, False]), result(ONLY14, [True, True, False]), result(FROM15, [True, True, True])),
        kind="source",
    ),
    Check(
        "D15-9/checkpoint-text",
        "checkpoint without use_reentrant: UserWarning, 'Starting in PyTorch 2.9' text up to 2.14, 'In a future release' in 2.15",
        _c(
            "import torch\nfrom torch.utils.checkpoint import checkpoint\ncheckpoint(torch.nn.Linear(3, 3), torch.ones(2, 3, requires_grad=True))"
        ),
        (
            warns(
                PRE15,
                _USER,
                "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception.",
            ),
            warns(
                FROM15,
                _USER,
                "In a future release, calling checkpoint without use_reentrant will raise an exception.",
                forbid=[("", "Starting in PyTorch 2.9")],
            ),
        ),
        rule="ADV732",
    ),
    Check(
        "D15-9/checkpoint_sequential-text",
        "checkpoint_sequential without use_reentrant: same text change",
        _c(
            """
            import torch
            from torch.utils.checkpoint import checkpoint_sequential
            seq = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3))
            checkpoint_sequential(seq, 2, torch.ones(2, 3, requires_grad=True))
            """
        ),
        (
            # checkpoint_sequential has its own wording up to 2.14 (not "Starting in PyTorch 2.9")
            warns(
                PRE15,
                _USER,
                "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed.",
            ),
            warns(
                FROM15,
                _USER,
                "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed explicitly. In a future release, we will raise an exception if use_reentrant is not passed.",
                forbid=[("", "In version 2.9")],
            ),
        ),
        rule="ADV732",
    ),
    Check(
        "D15-9/default-still-reentrant",
        "the checkpoint default is still use_reentrant=True in 2.15 (source)",
        _c("import re\nresult = bool(re.search(r'use_reentrant = True', src('utils/checkpoint.py')))"),
        (result(ALL, True),),
        kind="source",
        rule="ADV732",
    ),
    Check(
        "D15-10/all_gather_into_tensor",
        "dist.all_gather_into_tensor: FutureWarning in 2.13 and 2.14, none in 2.15",
        _c(
            """
            import torch
            dist = gloo_group()
            out = torch.zeros(2)
            dist.all_gather_into_tensor(out, torch.ones(2))
            result = getattr(dist.all_gather_into_tensor, "__deprecated__", None) is not None
            """
        ),
        (
            warns(PRE15, _FUT, "`torch.distributed.all_gather_into_tensor` is deprecated", result=True),
            silent(FROM15, "all_gather_into_tensor", result=False),
        ),
        rule="ADV739",
    ),
    Check(
        "D15-10/reduce_scatter_tensor",
        "dist.reduce_scatter_tensor: FutureWarning in 2.13 and 2.14, none in 2.15",
        _c(
            """
            import torch
            dist = gloo_group()
            result = getattr(dist.reduce_scatter_tensor, "__deprecated__", None) is not None
            dist.reduce_scatter_tensor(torch.zeros(2), torch.ones(2))
            """
        ),
        (
            warns(PRE15, _FUT, "`torch.distributed.reduce_scatter_tensor` is deprecated", may_raise=True),
            silent(FROM15, "reduce_scatter_tensor", may_raise=True),
        ),
        rule="ADV739",
    ),
    Check(
        "D15-10/deprecated-flags",
        "__deprecated__ set on the c10d aliases: all_gather_into_tensor / reduce_scatter_tensor / gather_into_tensor",
        _c(
            """
            import torch.distributed as d
            result = {n: getattr(getattr(d, n, None), "__deprecated__", None) is not None
                      for n in ("all_gather_into_tensor", "reduce_scatter_tensor", "gather_into_tensor") if hasattr(d, n)}
            """
        ),
        (
            result(ONLY13, {"all_gather_into_tensor": True, "reduce_scatter_tensor": True}),
            result(ONLY14, {"all_gather_into_tensor": True, "reduce_scatter_tensor": True, "gather_into_tensor": True}),
            result(
                FROM15, {"all_gather_into_tensor": False, "reduce_scatter_tensor": False, "gather_into_tensor": False}
            ),
        ),
        rule="ADV739",
    ),
    Check(
        "D15-10/still-deprecated-c10d-private",
        "still deprecated in 2.15: c10d _all_gather_base / _reduce_scatter_base (@deprecated)",
        _c(
            """
            import torch.distributed as d
            result = {n: getattr(getattr(d, n), "__deprecated__", None) is not None for n in ("_all_gather_base", "_reduce_scatter_base")}
            """
        ),
        (result(ALL, {"_all_gather_base": True, "_reduce_scatter_base": True}),),
    ),
    Check(
        "D15-10/still-deprecated-funcol",
        "the functional-collective *_tensor names warn FutureWarning in every release, 2.15 included (ADV740 stays)",
        _c(
            """
            import torch
            dist = gloo_group()
            import torch.distributed._functional_collectives as fc
            g, t = dist.group.WORLD, torch.ones(2)
            calls = [lambda: fc.all_gather_tensor(t, 0, g), lambda: fc.all_gather_tensor_autograd(t, 0, g),
                     lambda: fc.reduce_scatter_tensor(t, "sum", 0, g), lambda: fc.reduce_scatter_tensor_autograd(t, "sum", 0, g),
                     lambda: fc.all_gather_into_tensor_coalesced([t], g), lambda: fc.reduce_scatter_tensor_coalesced([t], "sum", [0], g)]
            for call in calls:
                try:
                    call()
                except Exception:
                    pass  # the warning comes first; gloo may not run every op
            """
        ),
        (
            Expect(
                ALL,
                warns=tuple(
                    (
                        _FUT,
                        f"`torch.distributed._functional_collectives.{old}` is deprecated. Please use `torch.distributed._functional_collectives.{new}` instead.",
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
            ),
        ),
        rule="ADV740",
    ),
    # ============================ §4 2.15 removals / behaviour ============================
    Check(
        "R15-1/metadata_json",
        "FunctionEvent.metadata_json: FutureWarning up to 2.14, AttributeError in 2.15",
        _c(_EVENT + "evt.metadata_json"),
        (
            warns(PRE15, _FUT, "`metadata_json` is deprecated. Use `event_metadata` instead."),
            raises(FROM15, "AttributeError", "metadata_json"),
        ),
        rule="ADV601",
    ),
    Check(
        "R15-1/constructor-parameter",
        "FunctionEvent(metadata_json=...) parameter exists up to 2.14, gone in 2.15",
        _c(
            "import inspect\nfrom torch.autograd.profiler_util import FunctionEvent\nresult = 'metadata_json' in inspect.signature(FunctionEvent.__init__).parameters"
        ),
        (result(PRE15, True), result(FROM15, False)),
        rule="ADV601",
    ),
    Check(
        "R15-2/profiler_metrics-attribute",
        "_ExperimentalConfig(profiler_metrics=...): accepted up to 2.14, TypeError in 2.15; the read-only attributes exist in 2.14 only",
        _c(
            """
            import torch
            result = [hasattr(torch.profiler._ExperimentalConfig(), n) for n in ("profiler_metrics", "profiler_measure_per_kernel")]
            torch.profiler._ExperimentalConfig(profiler_metrics=["kineto__cuda_core_flops"])
            """
        ),
        (
            result(ONLY13, [False, False]),
            result(ONLY14, [True, True]),
            raises(FROM15, "TypeError", "incompatible constructor arguments"),
        ),
    ),
    Check(
        "R15-3/pipeline_per_direction_p2p",
        "torch.distributed.config.pipeline_per_direction_p2p exists in 2.14 only; pipeline_per_edge_p2p from 2.15",
        _c(
            """
            import torch.distributed.config as c
            s = src("distributed/config.py")
            result = [hasattr(c, "pipeline_per_direction_p2p"), hasattr(c, "pipeline_per_edge_p2p"),
                      "TORCH_DISTRIBUTED_PIPELINE_PER_DIRECTION_P2P" in s, "TORCH_DISTRIBUTED_PIPELINE_PER_EDGE_P2P" in s]
            """
        ),
        (
            result(ONLY13, [False, False, False, False]),
            result(ONLY14, [True, False, True, False]),
            result(FROM15, [False, True, False, True]),
        ),
    ),
    Check(
        "R15-4/reduce_event",
        "torch.multiprocessing.reductions.reduce_event: public up to 2.14, private _reduce_event in 2.15",
        _c(
            "import torch.multiprocessing.reductions as r\nresult = [hasattr(r, 'reduce_event'), hasattr(r, '_reduce_event'), hasattr(r, 'rebuild_event')]"
        ),
        (result(PRE15, [True, False, True]), result(FROM15, [False, True, True])),
    ),
    Check(
        "R15-4/minor",
        "2.15 removals: Backend.supports_time_estimate, inductor autoheuristic mixed_mm, tlx_mode_from_env -> tlx_mode_default, XPU MemPool.allocator",
        _c(
            """
            import torch, torch._inductor.config as c
            s = src("_inductor/config.py")
            result = {
                "supports_time_estimate": hasattr(torch._C._distributed_c10d.Backend, "supports_time_estimate"),
                "autoheuristic_collect.mixed_mm": hasattr(c.autoheuristic_collect, "mixed_mm") if hasattr(c, "autoheuristic_collect") else None,
                "autoheuristic_use.mixed_mm": hasattr(c.autoheuristic_use, "mixed_mm") if hasattr(c, "autoheuristic_use") else None,
                "tlx_mode_from_env": "tlx_mode_from_env" in s,
                "tlx_mode_default": "tlx_mode_default" in s,
                "xpu_mempool_allocator_stub": "def allocator(" in src("_C/__init__.pyi").split("class _XPUMemPool", 1)[-1].split("\\nclass ", 1)[0] if "class _XPUMemPool" in src("_C/__init__.pyi") else None,
            }
            """
        ),
        (
            result(
                ONLY14,
                {
                    "supports_time_estimate": True,
                    "autoheuristic_collect.mixed_mm": True,
                    "autoheuristic_use.mixed_mm": True,
                    "tlx_mode_from_env": True,
                    "tlx_mode_default": False,
                    "xpu_mempool_allocator_stub": True,
                },
            ),
            result(
                FROM15,
                {
                    "supports_time_estimate": False,
                    "autoheuristic_collect.mixed_mm": False,
                    "autoheuristic_use.mixed_mm": False,
                    "tlx_mode_from_env": False,
                    "tlx_mode_default": True,
                    "xpu_mempool_allocator_stub": False,
                },
            ),
        ),
    ),
    Check(
        "B15-1/nccl2-default-source",
        "init_process_group('nccl') default: legacy ProcessGroupNCCL in 2.14 (TORCH_DIST_USE_NCCL2=='1' opts in), ProcessGroupNCCL2 in 2.15 (=='0' opts out)",
        _c(
            """
            import re
            s = src("distributed/distributed_c10d.py")
            ep = dist_info_file("entry_points.txt")
            result = {
                "opt_in": bool(re.search(r"TORCH_DIST_USE_NCCL2[^\\n]*==\\s*[\\"']1[\\"']", s)),
                "opt_out": bool(re.search(r"TORCH_DIST_USE_NCCL2[^\\n]*==\\s*[\\"']0[\\"']", s)),
                "entry_points": sorted(n for n in ("nccl-legacy", "nccl2", "nccl-lazy", "nccl4py") if re.search(rf"^{re.escape(n)}\\s*=", ep, re.M)),
            }
            """
        ),
        (
            result(ONLY14, {"opt_in": True, "opt_out": False, "entry_points": ["nccl-lazy", "nccl-legacy", "nccl2"]}),
            result(
                FROM15,
                {"opt_in": False, "opt_out": True, "entry_points": ["nccl-lazy", "nccl-legacy", "nccl2", "nccl4py"]},
            ),
        ),
        kind="source",
        needs_cuda_build=True,
    ),
    Check(
        "B15-1/nccl2-class-surface",
        "ProcessGroupNCCL2 is not a ProcessGroupNCCL and lacks comm_split_count, uid, get_*_nccl_version, ... (class introspection only, no GPU call)",
        _c(
            """
            import torch
            C = torch._C._distributed_c10d
            pg2, legacy = C.ProcessGroupNCCL2, C.ProcessGroupNCCL
            wanted = ["comm_split_count", "get_build_nccl_version", "get_runtime_nccl_version", "uid", "NCCLConfig",
                      "_set_default_timeout", "_is_initialized", "_group_start", "_group_end", "_set_enable_nan_check"]
            result = {
                "subclass": issubclass(pg2, legacy),
                "nccl2_lacks": [n for n in wanted if not hasattr(pg2, n)],
                "legacy_lacks": [n for n in wanted if not hasattr(legacy, n)],
                "nccl2_cta_policy": sorted(n for n in dir(pg2) if n.startswith("NCCL_CTA_POLICY")),
                "public_alias": torch.distributed.ProcessGroupNCCL is legacy,
            }
            """
        ),
        (
            result(
                FROM14,
                {
                    "subclass": False,
                    "nccl2_lacks": [
                        "comm_split_count",
                        "get_build_nccl_version",
                        "get_runtime_nccl_version",
                        "uid",
                        "NCCLConfig",
                        "_set_default_timeout",
                        "_is_initialized",
                        "_group_start",
                        "_group_end",
                        "_set_enable_nan_check",
                    ],
                    "legacy_lacks": [],
                    "nccl2_cta_policy": [],
                    "public_alias": True,
                },
            ),
        ),
        needs_cuda_build=True,
    ),
    Check(
        "B15-2/magma-selection-warning",
        "preferred_linalg_library('magma') prints the C++ MAGMA deprecation on stderr at selection, on 2.14.1 as well as 2.15.0 "
        "(observed; the facts file says 2.14.1 printed only the 'experimental feature' line), and not through Python warnings",
        _c("import torch\ntorch.backends.cuda.preferred_linalg_library('magma')"),
        (
            Expect(
                FROM14,
                stderr="The usage of MAGMA backend for linear algebra operations is deprecated and will be removed in future releases.",
                forbid=(("", "MAGMA"),),
            ),
        ),
        isolate=True,
        needs_cuda_build=True,
    ),
    Check(
        "B15-2/python-side-unchanged",
        "'magma' is still accepted by preferred_linalg_library's Python side (source)",
        _c("s = src('backends/cuda/__init__.py')\nresult = '\"magma\"' in s and '_LinalgBackends' in s"),
        (result(ALL, True),),
        kind="source",
        rule="ADV201",
    ),
]


# The hand rules of well-known 2.x changes (ADV771 on) keep their checks in their own module.
from tests.truth.checks_known import KNOWN  # noqa: E402  (it imports this module's helpers, defined above)

CHECKS += KNOWN

# The call-pattern rules (ADV130-ADV132): warnings raised from C++.
from tests.truth.checks_callpattern import CALLPATTERN  # noqa: E402

CHECKS += CALLPATTERN

# The catalogue's later rules (ADV150-ADV154) and ADV789's import.
from tests.truth.checks_rest import REST  # noqa: E402

CHECKS += REST

# The catalogue rules of #40's last items (ADV155-ADV163).
from tests.truth.checks_rest3 import REST3  # noqa: E402

CHECKS += REST3

# ADV133-ADV139, the call patterns of the C++ ledger's to-do list.
from tests.truth.checks_callpattern2 import CALLPATTERN2  # noqa: E402

CHECKS += CALLPATTERN2

# ADV140-ADV141, the last to-do texts of the C++ ledger.
from tests.truth.checks_callpattern3 import CALLPATTERN3  # noqa: E402

CHECKS += CALLPATTERN3

# The rule each check backs, where the check itself says None: by full id, else by facts item.
# Items with no static pattern (docs/coverage-2.14-2.15.md) keep None.
RULES = {
    "D14-2": "ADV747",
    "D14-3": "ADV748",
    "D14-4": "ADV749",
    "D14-5": "ADV739",
    "D14-6": "ADV750",
    "D14-7": "ADV751",
    "D14-8": "ADV752",
    "D14-9": "ADV753",
    "D14-10": "ADV754",
    "D14-11": "ADV755",
    "D14-12": "ADV756",
    "R14-5": "ADV758",
    "R14-6": "ADV759",
    "R14-7": "ADV760",
    "R14-8/green_contexts.SUPPORTED": "ADV761",
    "B14-3": "ADV763",
    "D15-2": "ADV749",
    "D15-3": "ADV764",
    "D15-4": "ADV765",
    "D15-5": "ADV766",
    "D15-6": "ADV759",
    "D15-7": "ADV759",
    "D15-8": "ADV767",
    "R15-2": "ADV749",
    "R15-3": "ADV768",
    "R15-4/reduce_event": "ADV769",
    "R15-4/minor": "ADV759",
    "B15-1": "ADV770",
    "B15-2/magma-selection-warning": "ADV201",
}
# Checks whose rule moved to a rule written after the check: the method forms and key_averages.
MOVED = {"R14-1/Tensor.cholesky": "ADV757", "R14-2/Tensor.qr": "ADV757", "B14-1/include_python_functions": "ADV762"}


def _linked(c: Check) -> Check:
    if c.id in MOVED:
        return replace(c, rule=MOVED[c.id])
    if c.rule is None:
        return replace(c, rule=RULES.get(c.id, RULES.get(c.item)))
    return c


CHECKS = [_linked(c) for c in CHECKS]


def by_id() -> dict[str, Check]:
    out = {}
    for c in CHECKS:
        if c.id in out:
            raise ValueError(f"duplicate check id {c.id}")
        out[c.id] = c
    return out


# Every facts item of §1–§4 must have at least one check.
FACT_ITEMS = (
    [f"D14-{i}" for i in range(1, 13)]
    + [f"R14-{i}" for i in range(1, 9)]
    + [f"B14-{i}" for i in range(1, 5)]
    + [f"D15-{i}" for i in range(1, 11)]
    + [f"R15-{i}" for i in range(1, 5)]
    + ["B15-1", "B15-2"]
)
