"""Misses and false positives found on real projects (issue 16), each with its own regression test.

The code below is written for these tests, after the patterns seen (DeepSpeed, torchao, ...).
"""

from __future__ import annotations

import textwrap

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at


def _codes(code: str, path: str = "m.py", target: str = "2.13"):
    result, _ = analyse(textwrap.dedent(code).encode(), path, all_rules(), settings_at(target))
    assert not result.errors, result.errors
    return [(f.line, f.rule) for f in result.findings]


def test_torch_bound_only_by_a_star_import():
    # DeepSpeed's unit tests: `torch` comes from `from <tests helper> import *`.
    code = """\
        from helpers.simple_model import *

        def test_roundtrip(path):
            return torch.load(path)
        """
    assert (4, "ADV716") in _codes(code)


def test_a_star_import_does_not_make_other_names_torch():
    code = """\
        from helpers.simple_model import *

        def f(path):
            return load(path), nn.Linear(2, 2)
        """
    assert _codes(code) == []


def test_a_local_torch_binding_wins_over_the_star_import():
    code = """\
        from helpers.simple_model import *

        def f(torch, path):
            return torch.load(path)
        """
    assert _codes(code) == []


def test_dynamo_is_compiling_reexport():
    # torchao: `torch._dynamo.is_compiling()` is `torch._dynamo.external_utils.is_compiling`.
    code = """\
        import torch

        def scale(x):
            if torch._dynamo.is_compiling():
                return x
            return x * 2
        """
    assert (4, "ADV711") in _codes(code)


def test_attribute_rules_leave_the_users_own_class_alone():
    code = """\
        import torch

        class KernelStats:
            cuda_time: float = 0.0

            def __init__(self):
                self.self_cuda_time_total = 0.0

            def sample_n(self, n):
                return [self.cuda_time] * n

            def report(self):
                return self.self_cuda_time_total, self.sample_n(2)

        stats = KernelStats()
        print(stats.cuda_time, stats.sample_n(3))
        print(evt.self_cuda_time_total, normal.sample_n(4))
        """
    assert _codes(code) == [(17, "ADV601"), (17, "ADV737")]


def test_a_name_bound_to_something_else_too_is_not_provably_ours():
    code = """\
        import torch

        class KernelStats:
            def sample_n(self, n):
                return n

        d = KernelStats()
        d = torch.distributions.Normal(0, 1)
        d.sample_n(3)
        """
    assert (9, "ADV737") in _codes(code)


def test_chrome_trace_parsing_in_a_test_is_the_test_itself():
    checks_the_trace = """\
        import json
        import torch

        def test_export_has_kernel_events(tmp_path):
            with torch.profiler.profile() as prof:
                torch.ones(2) + 1
            prof.export_chrome_trace(str(tmp_path / "t.json"))
            events = json.load(open(tmp_path / "t.json"))["traceEvents"]
            assert events
        """
    assert _codes(checks_the_trace) == []
    assert _codes(checks_the_trace.replace("def test_export", "def helper_export"), path="lib/trace.py") != []
    assert _codes(checks_the_trace.replace("def test_export", "def helper_export"), path="tests/helpers.py") == []


def _kinds(code: str):
    result, _ = analyse(textwrap.dedent(code).encode(), "m.py", all_rules(), settings_at("2.13"))
    return [(f.line, f.rule, f.kind) for f in result.findings]


def test_a_deprecated_class_named_in_an_annotation_is_advice():
    # apex's optimizers: `grad_scaler: Optional[torch.cuda.amp.GradScaler] = None` constructs nothing, so nothing warns.
    code = """\
        from typing import Optional
        import torch

        def step(grad_scaler: Optional[torch.cuda.amp.GradScaler] = None) -> None:
            scaler = torch.cuda.amp.GradScaler()
        """
    assert _kinds(code) == [(4, "ADV702", "advice"), (5, "ADV702", "deprecated")]


def test_patching_the_old_api_on_purpose_is_advice():
    # DeepSpeed's flops profiler wraps `F.upsample` so that user calls get counted.
    code = """\
        import torch.nn.functional as F

        F.upsample = wrap(F.upsample)
        y = F.upsample(x, scale_factor=2)
        """
    kinds = _kinds(code)
    assert {k for line, _, k in kinds if line == 3} == {"advice"}
    assert (4, "ADV708", "deprecated") in kinds


def test_setting_a_deprecated_flag_is_not_a_patch():
    code = "import torch.nn.functional as F\nF.upsample = my_upsample\n"
    assert {k for _, _, k in _kinds(code)} == {"deprecated"}


# --- found by the final hand review on the real repositories (session 3) ------------------


def _findings(code: str, path: str = "m.py", target: str = "2.15", lowest: str | None = "2.6"):
    result, _ = analyse(textwrap.dedent(code).encode(), path, all_rules(), settings_at(target, lowest))
    return result.findings


def test_cholesky_of_an_object_of_unknown_type_is_advice_without_a_fix():
    # gpytorch's own package: relative imports, and a LinearOperator with a `.cholesky()` of its own.
    found = _findings("""
        import torch
        from ..distributions import MultivariateNormal

        def loss(output):
            L = output.lazy_covariance_matrix.cholesky(upper=False)
            return L._cholesky_solve(torch.eye(3))
    """)
    (f,) = [f for f in found if f.rule == "ADV757"]
    assert f.kind == "advice" and f.fix is None


def test_cholesky_of_a_tensor_is_breaking_with_a_fix():
    (f,) = [f for f in _findings("import torch\nL = torch.rand(3, 3).cholesky()\n") if f.rule == "ADV757"]
    assert f.kind == "breaking" and f.fix is not None


def test_checkpoint_with_keyword_unpacking_is_not_reported():
    # The kwargs dict may carry use_reentrant (diffusers builds one a few lines up).
    found = _findings("""
        from torch.utils.checkpoint import checkpoint
        ckpt_kwargs = {"use_reentrant": False}
        y = checkpoint(block, x, **ckpt_kwargs)
    """)
    assert not [f for f in found if f.rule == "ADV732"]


def test_a_file_that_allow_lists_classes_has_no_whole_object_loads():
    # A test of the safe-globals mechanism saves an object and allow-lists its class on purpose.
    code = """
        import torch
        from argparse import Namespace

        def test_roundtrip(p):
            torch.save(Namespace(a=1), p)
            {allow}
            torch.load(p)
    """
    allowed = _findings(code.format(allow="torch.serialization.add_safe_globals([Namespace])"))
    plain = _findings(code.format(allow="pass"))
    assert [f.kind for f in allowed if f.rule == "ADV716"] == ["advice"]
    assert [f.kind for f in plain if f.rule == "ADV716"] == ["breaking"]
