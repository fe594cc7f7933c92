"""Check the catalogue against a real torch: replacements exist, deprecations warn, removals are gone.

Runs where torch is installed (CI installs the CPU wheel torch==2.13.0). When
PyTorch changes, this is the test that says the catalogue has gone stale.
"""

from __future__ import annotations

import importlib
import io
import warnings

import pytest

from advisor.analysis.registry import all_rules, rule_by_code
from advisor.core.settings import settings_at
from tests.truth.checks import CHECKS as TRUTH_CHECKS

try:  # not a module-level importorskip: the torch-free checks below must run everywhere
    import torch
except ImportError:
    torch = None


@pytest.fixture(autouse=True)
def _needs_torch(request):
    if torch is None and not request.node.get_closest_marker("torch_free"):
        pytest.skip("torch is not installed")


def _has_gpu() -> bool:
    return torch is not None and torch.cuda.is_available()


RULES = {r.code: r for r in all_rules()}


def resolve(qualname: str):
    """Import the longest module prefix of `qualname`, then getattr the rest."""
    parts = qualname.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(qualname)


def warns(fn):
    """(warnings raised, exception or None) when calling fn."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # many CUDA APIs warn first, then fail on a CPU build
            err = e
    return [(w.category, str(w.message)) for w in rec], err


# --- replacements named by rules that are not table-driven -------------------------

REPLACEMENTS = {
    "ADV110": ["torch.log1p"],
    "ADV111": ["torch.expm1"],
    "ADV112": ["torch.logsumexp"],
    "ADV991": ["torch.library._scoped_library"],
    "ADV101": [
        "torch.Stream.is_capturing",
        "torch.cuda.current_stream",
        "torch.xpu.current_stream",
        "torch.accelerator.current_stream",
    ],
    "ADV201": ["torch.backends.cuda.preferred_linalg_library"],
    "ADV203": ["torch.linalg.eigh", "torch.linalg.eigvalsh", "torch.stack"],
    "ADV204": ["torch.linalg.eigh"],
    "ADV205": ["torch.linalg.eigh"],
    "ADV301": ["torch.accelerator.Graph", "torch.Stream"],
    "ADV302": ["torch.accelerator.Graph"],
    "ADV303": ["torch.cond"],
    "ADV401": ["torch.float8_e8m0fnu", "torch.export.save", "torch.export.load"],
    "ADV402": ["torch.float8_e8m0fnu"],
    "ADV403": ["torch.float4_e2m1fn_x2", "torch.save"],
    "ADV404": ["torch.export.export"],
    "ADV405": ["torch._inductor.aoti_compile_and_package", "torch._inductor.aoti_load_package"],
    "ADV406": ["torch.compile", "torch.export.export", "torch.export.save", "torch.export.load"],
    "ADV501": ["torch.compile", "torch.testing.assert_close"],
    "ADV602": ["torch.profiler.profile"],
    "ADV701": ["torch.amp.autocast"],
    "ADV702": ["torch.amp.GradScaler"],
    "ADV703": ["torch.amp.custom_fwd", "torch.amp.custom_bwd"],
    "ADV704": [
        "torch.nn.attention.sdpa_kernel",
        "torch.nn.attention.SDPBackend.FLASH_ATTENTION",
        "torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION",
        "torch.nn.attention.SDPBackend.MATH",
        "torch.nn.attention.SDPBackend.CUDNN_ATTENTION",
    ],
    "ADV716": ["torch.load"],
    "ADV718": ["torch.arange", "torch.get_default_dtype"],
    "ADV720": ["torch.linalg.multi_dot"],
    "ADV742": ["torch.optim.Optimizer._accelerator_graph_capture_health_check"],
    "ADV900": ["torch.cuda"],  # a limit of static analysis, not an API change
}


def _newer_than_installed(version: str | None) -> bool:
    if torch is None or not version:
        return False
    installed = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    return tuple(int(p) for p in version.split(".")[:2]) > installed


def _replacements():
    for code, rule in RULES.items():
        names = list(REPLACEMENTS.get(code, []))
        row = getattr(rule, "row", None)
        if row is not None and hasattr(row, "entries"):
            # A replacement newer than the installed torch is checked by the release matrix (tests/truth).
            names += [e.new for e in row.entries if e.new and not _newer_than_installed(e.since or row.since)]
        for sym in getattr(rule, "symbols", {}).values():
            if sym.replacement and "(" not in sym.replacement:
                names.append(sym.replacement)
        for name in dict.fromkeys(names):
            yield pytest.param(name, id=f"{code}-{name}")


@pytest.mark.parametrize("qualname", list(_replacements()))
def test_replacement_exists(qualname):
    assert resolve(qualname) is not None


@pytest.mark.torch_free
def test_every_rule_is_covered_by_a_truth_check():
    covered = set(REPLACEMENTS) | set(WARNINGS) | set(NO_WARNING) | set(SOURCE_FACTS) | set(REMOVED) | set(HEADER_FACTS)
    covered |= {c for c, r in RULES.items() if getattr(r, "row", None) is not None}
    # torchvision / torchaudio rules are checked against their wheels (tests/truth/test_companion_truth.py,
    # which fails when one of them has no check there)
    covered |= {c for c, r in RULES.items() if getattr(r, "library", None)}
    covered |= {c.rule for c in TRUTH_CHECKS if c.rule}  # checked against the 2.13 / 2.14.1 / 2.15.0 wheels
    # The mined family (rules/mined) is data mined from the wheels themselves: its evidence is the committed index
    # (docs/evidence/torch-api-index.json.gz, tests/rules/test_windows_against_wheels.py and tests/rules/test_mined_rules.py).
    covered |= {c for c in RULES if c in ("ADV001", "ADV002", "ADV003")}
    assert set(RULES) <= covered, sorted(set(RULES) - covered)


# --- deprecated APIs really warn ----------------------------------------------------

if torch is not None:  # the calls below run only with torch; without it, this module must still load
    F = torch.nn.functional
    x = torch.ones(2, 3)
    img = torch.ones(1, 1, 2, 2)


def _profiler_event():
    with torch.profiler.profile() as p:
        torch.mm(torch.ones(4, 4), torch.ones(4, 4))
    return p.events()[0]


WARNINGS = {  # code -> [(call, warning category, text fragment)]
    "ADV206": [
        (lambda: torch.qr(torch.eye(2)), UserWarning, "torch.qr is deprecated in favor of torch.linalg.qr"),
        (
            lambda: torch.cholesky(torch.eye(2)),
            UserWarning,
            "torch.cholesky is deprecated in favor of torch.linalg.cholesky",
        ),
        (lambda: torch.lu(torch.eye(2)), UserWarning, "torch.lu is deprecated in favor of torch.linalg.lu_factor"),
        (
            lambda: torch.triangular_solve(torch.ones(2, 1), torch.eye(2)),
            UserWarning,
            "torch.triangular_solve is deprecated",
        ),
    ],
    "ADV406": [(lambda: torch.jit.script(torch.nn.Identity()), DeprecationWarning, "`torch.jit.script` is deprecated")],
    "ADV601": [
        (
            lambda: _profiler_event().cuda_time_total,
            FutureWarning,
            "`cuda_time_total` is deprecated. Use `device_time_total` instead.",
        ),
        (lambda: _profiler_event().self_cuda_time_total, FutureWarning, "`self_cuda_time_total` is deprecated"),
        (lambda: _profiler_event().self_cuda_memory_usage, FutureWarning, "`self_cuda_memory_usage` is deprecated"),
        (
            lambda: _profiler_event().metadata_json,
            FutureWarning,
            "`metadata_json` is deprecated. Use `event_metadata` instead.",
        ),
        (
            lambda: torch.profiler.profile(use_cuda=True),
            FutureWarning,
            "`use_cuda` is deprecated, use `activities` argument instead",
        ),
        (lambda: torch.autograd.profiler.profile(use_cuda=True), FutureWarning, "use_device = 'cuda'"),
    ],
    "ADV701": [
        (
            lambda: torch.cuda.amp.autocast(enabled=False),
            FutureWarning,
            "`torch.cuda.amp.autocast(args...)` is deprecated",
        ),
        (
            lambda: torch.cpu.amp.autocast(enabled=False),
            FutureWarning,
            "`torch.cpu.amp.autocast(args...)` is deprecated",
        ),
    ],
    "ADV702": [
        (
            lambda: torch.cuda.amp.GradScaler(enabled=False),
            FutureWarning,
            "`torch.cuda.amp.GradScaler(args...)` is deprecated",
        )
    ],
    "ADV703": [
        (
            lambda: torch.cuda.amp.custom_fwd(lambda ctx, a: a),
            FutureWarning,
            "`torch.cuda.amp.custom_fwd(args...)` is deprecated",
        )
    ],
    "ADV704": [
        (lambda: torch.backends.cuda.sdp_kernel(), FutureWarning, "`torch.backends.cuda.sdp_kernel()` is deprecated")
    ],
    "ADV705": [
        (lambda: torch.has_cuda, UserWarning, "'has_cuda' is deprecated, please use 'torch.backends.cuda.is_built()'")
    ],
    "ADV706": [(lambda: torch.accelerator.current_device_idx(), FutureWarning, "Use `current_device_index` instead.")],
    "ADV707": [
        (lambda: torch.testing.assert_allclose(x, x), FutureWarning, "`torch.testing.assert_allclose()` is deprecated")
    ],
    "ADV708": [
        (lambda: F.upsample(img, scale_factor=2), UserWarning, "`nn.functional.upsample` is deprecated"),
        (
            lambda: F.upsample_bilinear(img, scale_factor=2),
            UserWarning,
            "`nn.functional.upsample_bilinear` is deprecated",
        ),
    ],
    "ADV709": [
        (
            lambda: torch.nn.utils.weight_norm(torch.nn.Linear(2, 2)),
            FutureWarning,
            "`torch.nn.utils.weight_norm` is deprecated",
        )
    ],
    "ADV710": [
        (
            lambda: torch.nn.utils.stateless.functional_call(torch.nn.Identity(), {}, (x,)),
            FutureWarning,
            "torch.func.functional_call",
        )
    ],
    "ADV711": [(lambda: torch._utils.is_compiling(), UserWarning, "`torch._utils.is_compiling` is deprecated")],
    "ADV712": [
        (
            lambda: torch.library.impl_abstract("advisor_truth::op"),
            FutureWarning,
            "renamed to `torch.library.register_fake`",
        )
    ],
    "ADV713": [
        (
            lambda: torch.cuda.memory_cached(),
            FutureWarning,
            "`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
        )
    ],
    "ADV714": [
        (lambda: torch.cuda.reset_max_memory_allocated(), FutureWarning, "now calls torch.cuda.reset_peak_memory_stats")
    ],
    "ADV715": [
        (
            lambda: torch.jit.trace(torch.nn.Identity(), (x,), optimize=True),
            FutureWarning,
            "`optimize` is deprecated and has no effect",
        )
    ],
    "ADV717": [(lambda: F.softmax(x), UserWarning, "Implicit dimension choice for softmax has been deprecated")],
    "ADV718": [(lambda: torch.range(0, 3), UserWarning, "torch.range is deprecated")],
    "ADV719": [
        (
            lambda: importlib.import_module("functorch").vmap(torch.sin)(x),
            FutureWarning,
            "`functorch.vmap` is deprecated",
        )
    ],
    "ADV720": [
        (lambda: torch.chain_matmul(torch.eye(2), torch.eye(2)), UserWarning, "torch.chain_matmul is deprecated")
    ],
    "ADV723": [(lambda: torch.nn.NLLLoss2d(), FutureWarning, "`NLLLoss2d` has been deprecated")],
    "ADV724": [(lambda: torch.nn.Container(), FutureWarning, "`nn.Container` is deprecated")],
    "ADV725": [
        (
            lambda: torch.nn.utils.clip_grad_norm([torch.ones(2, requires_grad=True)], 1.0),
            FutureWarning,
            "clip_grad_norm_",
        )
    ],
    "ADV726": [
        (
            lambda: torch.autograd.backward(
                (torch.ones(1, requires_grad=True) * 2).sum(), grad_variables=torch.ones(())
            ),
            FutureWarning,
            "`grad_variables` is deprecated. Use `grad_tensors` instead.",
        )
    ],
    "ADV728": [
        (
            lambda: resolve("torch._streambase._StreamBase")(),
            FutureWarning,
            "`torch._streambase._StreamBase` is deprecated",
        )
    ],
    "ADV729": [
        (
            lambda: resolve("torch.nn.attention.flex_attention.flex_attention")(
                *[torch.randn(1, 1, 16, 8)] * 3, return_lse=True
            ),
            FutureWarning,
            "return_lse is deprecated",
        )
    ],
    "ADV731": [
        (
            lambda: _restore_default_type(),
            UserWarning,
            "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1",
        )
    ],
    "ADV732": [
        (
            lambda: resolve("torch.utils.checkpoint.checkpoint")(
                torch.nn.Linear(3, 3), torch.ones(2, 3, requires_grad=True)
            ),
            UserWarning,
            "the use_reentrant parameter should be passed explicitly",
        )
    ],
    "ADV735": [
        (
            lambda: torch.utils._pytree._register_pytree_node(
                type("A", (), {}), lambda a: ([], None), lambda c, v: None
            ),
            FutureWarning,
            "`torch.utils._pytree._register_pytree_node` is deprecated",
        )
    ],
    "ADV736": [
        (
            lambda: torch._vmap_internals.vmap(torch.sin)(x),
            FutureWarning,
            "Please use `torch.vmap` instead of `torch._vmap_internals.vmap`",
        )
    ],
    "ADV737": [
        (
            lambda: torch.distributions.Normal(0.0, 1.0).sample_n(3),
            FutureWarning,
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
        )
    ],
    "ADV738": [
        (lambda: torch.nn.Hardtanh(min_value=-1.0), FutureWarning, "`min_value` is deprecated and renamed to `min_val`")
    ],
    "ADV745": [
        (lambda: torch.nn.Hardtanh(max_value=1.0), FutureWarning, "`max_value` is deprecated and renamed to `max_val`")
    ],
    "ADV742": [
        (
            lambda: torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=0.1)._cuda_graph_capture_health_check(),
            DeprecationWarning,
            "Use _accelerator_graph_capture_health_check instead",
        )
    ],
}


def _restore_default_type():
    before = torch.get_default_dtype()
    try:
        torch.set_default_tensor_type(torch.FloatTensor)
    finally:
        torch.set_default_dtype(before)


def _warning_cases():
    for code, cases in WARNINGS.items():
        for i, case in enumerate(cases):
            yield pytest.param(code, *case, id=f"{code}-{i}")


@pytest.mark.parametrize("code,call,category,fragment", list(_warning_cases()))
def test_deprecated_api_warns(code, call, category, fragment):
    assert code in RULES
    got, _ = warns(call)
    assert any(issubclass(c, category) and fragment in m for c, m in got), got


# Rules whose message says "no warning": hold them to it.
NO_WARNING = {
    "ADV110": lambda: torch.log(1 + x),  # numerics advice: nothing warns
    "ADV111": lambda: torch.exp(x) - 1,
    "ADV112": lambda: torch.log(torch.sum(torch.exp(x), dim=1)),
    "ADV101": lambda: resolve("torch.cuda.is_current_stream_capturing"),
    "ADV201": lambda: torch.backends.cuda.preferred_linalg_library(),
    "ADV202": lambda: torch.cuda.has_magma,
    "ADV721": lambda: torch.ger(torch.ones(2), torch.ones(2)),
    "ADV722": lambda: (F.tanh(x), F.sigmoid(x)),
    "ADV734": lambda: torch.nn.UpsamplingNearest2d(scale_factor=2)(img),
}


@pytest.mark.parametrize("code", sorted(NO_WARNING))
def test_rules_that_say_no_warning_are_right(code):
    got, _ = warns(NO_WARNING[code])
    deprecations = [m for c, m in got if issubclass(c, (DeprecationWarning, FutureWarning)) or "deprecat" in m.lower()]
    assert deprecations == []


def test_cuda_stream_capture_query_is_not_deprecated_in_source():
    import inspect

    src = inspect.getsource(resolve("torch.cuda.is_current_stream_capturing"))
    assert "deprecat" not in src.lower()


# --- removed APIs are really gone ---------------------------------------------------

REMOVED = {
    "ADV206": ["torch.symeig", "torch.eig", "torch.matrix_rank"],
    "ADV404": ["torch.export.export_for_training", "torch._export.capture_pre_autograd_graph"],
    "ADV746": ["torch.sparse.SparseSemiStructuredTensor._pad_dense_input"],
}


@pytest.mark.parametrize("code,qualname", [(c, q) for c, qs in REMOVED.items() for q in qs])
def test_removed_api_is_gone(code, qualname):
    try:
        obj = resolve(qualname)
    except (AttributeError, ImportError):
        return  # absent
    # Still present as a stub that raises "... is now removed".
    with pytest.raises(RuntimeError, match="removed"):
        obj(torch.eye(2))


def test_profiler_cuda_totals_are_gone_from_key_averages():
    # ADV601's message claims this; it is why the rename is urgent.
    with torch.profiler.profile() as p:
        torch.mm(torch.ones(4, 4), torch.ones(4, 4))
    avg = p.key_averages()[0]
    assert not hasattr(avg, "cuda_time_total") and hasattr(avg, "device_time_total")


# --- facts that can only be read from the source on a CPU build ---------------------

SOURCE_FACTS = {
    # code: (object, text that must appear in its source or docs)
    "ADV990": ("torch.utils.data.DataLoader", "means that the data will be loaded in the main process"),
    "ADV405": ("torch._export", "torch._export.aot_compile()/torch._export.aot_load() is being deprecated"),
    "ADV727": ("torch.autograd.grad", "deprecated"),
    "ADV730": ("torch.utils.data.DataLoader", "Deprecated"),
    "ADV739": ("torch.distributed.all_gather_into_tensor", "all_gather_single"),
    "ADV741": ("torch.nn.parallel.DistributedDataParallel.__init__", "forward_sync_buffers"),
    "ADV743": ("torch.Tensor.requires_grad", "if gradients need to be computed"),
    "ADV744": ("torch.utils.data.default_collate", "collate"),
    # ROCm (rocm-2.12-facts.md; the 2.13 code read here is identical to 2.12 in these places)
    "ADV804": ("torch.distributed._symmetric_memory.is_nvshmem_available", "rocSHMEM"),
    "ADV805": ("torch.sparse.semi_structured.to_sparse_semi_structured", "_FORCE_CUTLASS"),
    "ADV806": (
        "torch._inductor.kernel.flex.flex_attention.flex_attention",
        'for attrib in ["kpack", "matrix_instr_nonkdim", "waves_per_eu"]',
    ),
    "ADV807": ("torch.utils.cpp_extension._get_rocm_arch_flags", "all archs for visible cards"),
    "ADV808": ("torch.cuda._get_amdsmi_device_index_from_hip_index", "hip_id"),
}

# C++ facts, read from the headers shipped in the wheel.
HEADER_FACTS = {
    "ADV801": ("c10/cuda/CUDAAllocatorConfig.h", ["ROCM_VERSION < 70000", "expandable_segments not supported"]),
    "ADV802": ("c10/cuda/CUDAAllocatorConfig.h", ["max_split_size"]),
    "ADV803": (
        "c10/cuda/CUDAAllocatorConfig.h",
        ["PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF", "PYTORCH_ALLOC_CONF"],
    ),
}


@pytest.mark.parametrize("code", sorted(HEADER_FACTS))
def test_header_facts(code):
    import os

    header, texts = HEADER_FACTS[code]
    with open(os.path.join(os.path.dirname(torch.__file__), "include", header), encoding="utf-8") as f:
        src = f.read()
    for text in texts:
        assert text in src, text


def test_cuda_alloc_conf_is_read_before_the_hip_one():
    """ADV803: the first variable set wins, CUDA before HIP before the generic one."""
    import os

    with open(
        os.path.join(os.path.dirname(torch.__file__), "include", "c10/cuda/CUDAAllocatorConfig.h"), encoding="utf-8"
    ) as f:
        src = f.read()
    assert (
        src.index('"PYTORCH_CUDA_ALLOC_CONF"')
        < src.index('"PYTORCH_HIP_ALLOC_CONF"')
        < src.index('"PYTORCH_ALLOC_CONF"')
    )


@pytest.mark.skipif(_has_gpu(), reason="assumes no visible GPU")
def test_rocm_extension_archs_are_empty_without_a_visible_gpu(monkeypatch):
    """ADV807: with PYTORCH_ROCM_ARCH unset and no GPU, the arch flag is empty."""
    from torch.utils.cpp_extension import _get_rocm_arch_flags

    monkeypatch.delenv("PYTORCH_ROCM_ARCH", raising=False)
    assert _get_rocm_arch_flags([]) == ["--offload-arch=", "-fno-gpu-rdc"]


def test_require_grad_is_not_a_tensor_attribute():
    # ADV743: assigning `require_grad` creates a stray attribute; torch has only `requires_grad`.
    assert not hasattr(torch.ones(1), "require_grad") and hasattr(torch.ones(1), "requires_grad")


@pytest.mark.parametrize("code", sorted(SOURCE_FACTS))
def test_source_facts(code):
    import inspect

    name, text = SOURCE_FACTS[code]
    obj = resolve(name)
    try:
        src = inspect.getsource(obj)
    except (TypeError, OSError):
        src = obj.__doc__ or ""
    assert text in src or text in (obj.__doc__ or "")


def test_torch_load_defaults_to_weights_only():
    # ADV716: a pickled custom object no longer loads without weights_only=False.
    buf = io.BytesIO()
    torch.save({"obj": _Custom()}, buf)
    buf.seek(0)
    with pytest.raises(Exception, match="Weights only load failed"):
        torch.load(buf)
    buf.seek(0)
    assert isinstance(torch.load(buf, weights_only=False)["obj"], _Custom)


def test_whole_module_load_fails_and_the_two_ways_out_work():
    # ADV716's whole-object message: a pickled nn.Module fails by default; weights_only=False
    # or allow-listing its classes with torch.serialization.add_safe_globals loads it.
    buf = io.BytesIO()
    torch.save(torch.nn.Linear(2, 2), buf)
    buf.seek(0)
    with pytest.raises(Exception, match="Weights only load failed"):
        torch.load(buf)
    buf.seek(0)
    assert isinstance(torch.load(buf, weights_only=False), torch.nn.Linear)
    buf.seek(0)
    with torch.serialization.safe_globals([torch.nn.Linear]):  # scoped add_safe_globals
        assert isinstance(torch.load(buf), torch.nn.Linear)
    assert callable(torch.serialization.add_safe_globals)


class _Custom:
    pass


def test_range_fix_is_exact():
    # ADV718's fix: same values and dtype for integer bounds.
    for start, end, step in [(0, 10, 1), (1, 10, 3), (-5, 5, 2)]:
        old = torch.range(start, end, step)
        new = torch.arange(start, end + 1, step, dtype=torch.get_default_dtype())
        assert old.dtype == new.dtype and torch.equal(old, new)


def test_sdp_kernel_fix_enables_the_same_backends():
    # ADV704's fix: the list reproduces the old flags (checked through the flag getters).
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def flags():
        b = torch.backends.cuda
        return (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled())

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):
            old = flags()
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION]):
        new = flags()
    assert old == new == (True, False, False, True)


@pytest.mark.torch_free
def test_rule_lookup_by_code():
    assert rule_by_code("adv101").code == "ADV101"


# TorchFix 0.7's deprecated/removed torch symbols (its deprecated_symbols.yaml) and its
# torch.load / checkpoint / require_grad checks: each must have a matching rule here.
TORCHFIX_SYMBOLS = [
    "torch.solve",
    "torch.qr",
    "torch.symeig",
    "torch.chain_matmul",
    "torch.cholesky",
    "torch.ger",
    "torch.lu_solve",
    "torch.norm",
    "torch.range",
    "torch.svd",
    "torch.triangular_solve",
    "torch.lu",
    "torch.matrix_rank",
    "torch.lstsq",
    "torch.nn.UpsamplingNearest2d",
    "torch.nn.UpsamplingBilinear2d",
    "torch.testing.assert_allclose",
    "torch.nn.utils.weight_norm",
    "torch.utils._pytree._register_pytree_node",
    "torch.backends.cuda.sdp_kernel",
    "torch.cuda.amp.autocast",
    "torch.cuda.amp.custom_fwd",
    "torch.cuda.amp.custom_bwd",
    "torch.cpu.amp.autocast",
    "functorch.vmap",
    "functorch.grad",
    "functorch.vjp",
    "functorch.jvp",
    "functorch.jacrev",
    "functorch.jacfwd",
    "functorch.hessian",
    "functorch.functionalize",
    "torch.load",
    "torch.utils.checkpoint.checkpoint",
]


@pytest.mark.torch_free
@pytest.mark.parametrize("symbol", TORCHFIX_SYMBOLS)
def test_superset_of_torchfix(symbol):
    assert any(symbol in r.targets for r in RULES.values()), f"no rule targets {symbol}"


@pytest.mark.torch_free
def test_torchfix_require_grad_check_is_covered():
    assert "require_grad" in RULES["ADV743"].attribute_targets


# TorchFix 0.7's three torchvision rules (TOR201 pretrained, TOR202 v2.ToTensor, TOR203 singleton
# import), each with the rule that covers it here, and TOR201's two verified bugs (facts file §6):
# the second positional argument is `progress`, not `pretrained_backbone`, and a call with more
# positional arguments must not be rewritten into `f(weights=None, True)`.
TORCHFIX_TORCHVISION = [
    (
        "TOR201",
        "ADV910",
        "import torchvision\nm = torchvision.models.resnet50(pretrained=True)\n",
        "import torchvision\nm = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V1)\n",
    ),
    (
        "TOR201-bug2",
        "ADV910",
        "from torchvision.models import detection\nm = detection.fasterrcnn_resnet50_fpn(False, False)\n",
        "from torchvision.models import detection\nm = detection.fasterrcnn_resnet50_fpn(weights=None, progress=False)\n",
    ),
    ("TOR201-bug3", "ADV910", "import torchvision\nm = torchvision.models.resnet50(False, True, 10)\n", None),
    ("TOR202", "ADV911", "from torchvision.transforms.v2 import ToTensor\nt = ToTensor()\n", None),
    ("TOR203", "ADV918", "import torchvision.models as models\n", "from torchvision import models\n"),
]


@pytest.mark.torch_free
@pytest.mark.parametrize("tor,code,source,fixed", TORCHFIX_TORCHVISION, ids=[c[0] for c in TORCHFIX_TORCHVISION])
def test_superset_of_torchfix_torchvision(tor, code, source, fixed):
    from advisor.analysis.analyse import analyse
    from advisor.core.versions import NEWEST
    from advisor.fix.fixer import fix_bytes

    rule = RULES[code]
    result, _ = analyse(source.encode(), "t.py", [rule], settings_at(NEWEST))
    assert [f.rule for f in result.findings] == [code], result.findings
    out = fix_bytes(source.encode(), "t.py", [rule], settings_at(NEWEST, unsafe_fixes=True))
    assert out.error is None
    compile(out.fixed, "t.py", "exec")  # never invalid code (TOR201 produced `f(weights=None, True)`)
    assert out.fixed.decode() == (fixed if fixed is not None else source)


# Every TorchFix rule on torch itself (0.7.0 plus HEAD's unreleased TOR108 / TOR402), and what answers it here.
# TOR2xx are TorchVision's (a domain library: out of this tool's scope). Opt-in there, opt-in here.
TORCHFIX_RULES = {
    "TOR001": "removed symbols: test_superset_of_torchfix",
    "TOR002": "ADV743",
    "TOR003": "ADV732",
    "TOR004": "removed symbols (imports): test_superset_of_torchfix",
    "TOR101": "deprecated symbols: test_superset_of_torchfix",
    "TOR102": "ADV716",
    "TOR103": "deprecated symbols (imports): test_superset_of_torchfix",
    "TOR104": "torch.utils.data._utils.collate.default_collate",
    "TOR105": "torch.utils.data._utils.collate.default_collate",
    "TOR106": "ADV110",
    "TOR107": "ADV111",
    "TOR108": "ADV112",
    "TOR401": "ADV990",
    "TOR402": None,  # HEAD only, never released; noisy by TorchFix's own account (off there by default)
    "TOR901": "ADV991",
}


@pytest.mark.torch_free
@pytest.mark.parametrize("torchfix_code", sorted(TORCHFIX_RULES))
def test_every_torchfix_torch_rule_has_an_answer(torchfix_code):
    answer = TORCHFIX_RULES[torchfix_code]
    if answer is None:
        pytest.skip(f"{torchfix_code}: not covered (see the comment in TORCHFIX_RULES)")
    if answer.startswith("ADV"):
        rule = RULES[answer]
        assert torchfix_code in rule.doc(), f"{answer}'s docstring should name {torchfix_code}"
        assert rule.default_enabled == (not torchfix_code.startswith(("TOR4", "TOR9"))), (
            "TorchFix's opt-in set stays opt-in"
        )
    elif answer.startswith("torch."):
        assert any(answer in r.targets for r in RULES.values())
    else:
        assert TORCHFIX_SYMBOLS
