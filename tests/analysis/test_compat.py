"""Compat branches (advisor.analysis.compat): old APIs in code that runs only on an older torch.

Each case is written after a pattern seen in a real project (named in the test), not copied
from it. A finding in the old-torch branch is kind `compat`, severity info, with no fix; the
same API outside such a branch is still a normal, fixable finding.
"""

from __future__ import annotations

import textwrap

import pytest

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at


def _scan(code: str, target: str = "2.13"):
    result, _ = analyse(textwrap.dedent(code).encode(), "m.py", all_rules(), settings_at(target))
    assert not result.errors, result.errors
    return result.findings


def _by_line(findings):
    return {f.line: f for f in findings}


def _compat(f, until):
    assert f.kind == "compat", f
    assert f.data.get("compat_until") == until
    assert f.fix is None and f.replacement is None and f.severity == "info"
    assert f.message.startswith("compat fallback: delete this branch when your lowest supported torch")
    if until:
        assert f"is >= {until}" in f.message


def test_conditional_expression_on_an_imported_flag():
    # Lightning's precision plugins: a flag imported from the project's own `imports` module.
    found = _by_line(
        _scan("""\
        import torch
        from myproj.utils.imports import _TORCH_GREATER_EQUAL_2_4

        def make_scaler(device):
            return torch.amp.GradScaler(device=device) if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()

        plain = torch.cuda.amp.GradScaler()
        """)
    )
    _compat(found[5], "2.4")
    assert found[7].kind != "compat" and found[7].fix == "safe"


def test_if_else_on_a_module_level_flag_defined_by_packaging_version():
    found = _by_line(
        _scan("""\
        import torch
        from packaging.version import Version

        _NEW_AMP = Version(torch.__version__) >= Version("2.3.0")

        if _NEW_AMP:
            ctx = torch.amp.autocast("cuda")
        else:
            ctx = torch.cuda.amp.autocast()
        """)
    )
    _compat(found[9], "2.3")


@pytest.mark.parametrize(
    "test, branch_is_body, until",
    [
        ('torch.__version__ < "2.4"', True, "2.4"),
        ('torch.__version__ >= "2.4"', False, "2.4"),
        ("tuple(int(p) for p in torch.__version__.split('.')[:2]) < (2, 4)", True, "2.4"),
        ("(2, 4) <= TORCH_VERSION", False, "2.4"),
        ("torch_version() >= (2, 4, 0)", False, "2.4"),
        ('not is_torch_min_version("2.4.0")', True, "2.4"),
        ('is_torch_version("<", "2.4") and use_amp', True, "2.4"),
        ('is_torch_version(">", "2.3") or force', False, "2.4"),
        ('torch_version_at_least("2.4.0.dev")', False, "2.4"),
        ("not _TORCH_VERSION_AT_LEAST_2_4", True, "2.4"),
        ("_TORCH_LESS_EQUAL_2_3", True, "2.4"),
        ("required_torch_version(min_version=2.4)", False, "2.4"),  # DeepSpeed
        ("required_torch_version(max_version=2.3)", True, "2.4"),
        ('hasattr(torch.amp, "GradScaler")', False, None),
        ('not hasattr(torch.amp, "GradScaler")', True, None),
    ],
)
def test_version_tests(test, branch_is_body, until):
    # Megatron (`is_torch_min_version`), diffusers (`is_torch_version(op, v)`), torchao
    # (`torch_version_at_least`, `TORCH_VERSION_AT_LEAST_*`), TE (`torch_version() >= (...)`).
    new, old = 'torch.amp.GradScaler("cuda")', "torch.cuda.amp.GradScaler()"
    body, orelse = (old, new) if branch_is_body else (new, old)
    code = f"import torch\nTORCH_VERSION = torch.__version__\nif {test}:\n    s = {body}\nelse:\n    s = {orelse}\n"
    found = _by_line(_scan(code))
    old_line = 4 if branch_is_body else 6
    assert set(found) == {old_line}
    _compat(found[old_line], until)


@pytest.mark.parametrize(
    "test",
    [
        'torch.__version__ == "2.4"',  # not an ordering
        "use_amp",  # unrelated flag
        'is_torch_version(">=", "2.4") and use_amp',  # the else runs on new torch too
        'hasattr(apex.amp, "GradScaler")',  # not torch
        "torch_version_major >= 2",  # no release to read
    ],
)
def test_tests_that_are_not_old_torch_gates(test):
    code = f"import torch\nimport apex\nif {test}:\n    s = 1\nelse:\n    s = torch.cuda.amp.GradScaler()\n"
    (f,) = _scan(code)
    assert f.kind != "compat" and f.fix == "safe"


def test_import_fallback_in_try_except():
    # TransformerEngine / torchao: new import first, old import in the handler.
    found = _by_line(
        _scan("""\
        import torch
        try:
            from torch.amp import custom_fwd
        except (ImportError, AttributeError):
            custom_fwd = torch.cuda.amp.custom_fwd
        try:
            import apex
        except ImportError:
            custom_bwd = torch.cuda.amp.custom_bwd
        """)
    )
    _compat(found[5], None)
    assert found[9].kind != "compat"  # the try imported nothing from torch: not a torch fallback


def test_bare_except_after_a_gated_try():
    # Megatron's tensor_parallel layers: a version gate inside `try`, the old API again under a bare `except:`.
    found = _by_line(
        _scan("""\
        import torch
        try:
            if is_torch_min_version("2.4.0a0"):
                fwd = torch.amp.custom_fwd
            else:
                fwd = torch.cuda.amp.custom_fwd
        except:
            fwd = torch.cuda.amp.custom_fwd
        """)
    )
    _compat(found[6], "2.4")
    _compat(found[8], None)


def test_a_name_bound_by_the_new_import_and_by_the_fallback():
    # DeepSpeed's compiler shim: the call site is outside the branches, the old binding exists only for old torch.
    found = _by_line(
        _scan("""\
        try:
            from torch.compiler import is_compiling as compiling
        except ImportError:
            from torch._dynamo.external_utils import is_compiling as compiling

        def f():
            return compiling()
        """)
    )
    _compat(found[7], None)
    only_old = _scan("from torch._dynamo.external_utils import is_compiling as compiling\nx = compiling()\n")
    assert [f.kind for f in only_old] == ["deprecated"]


def test_hasattr_on_an_aliased_torch_module_and_elif_chains():
    # DeepSpeed's compiler shim: `hasattr(torch, "compiler")`, with elif branches for older releases.
    found = _by_line(
        _scan("""\
        import torch
        import torch.amp as amp

        if hasattr(amp, "custom_fwd"):
            fwd = amp.custom_fwd
        elif other:
            fwd = torch.cuda.amp.custom_fwd
        else:
            fwd = torch.cuda.amp.custom_fwd
        """)
    )
    _compat(found[7], None)
    _compat(found[9], None)


def test_compat_findings_are_never_fixed(cli, tmp_path):
    src = (
        "import torch\n"
        "_TORCH_GREATER_EQUAL_2_4 = True\n"
        "s = torch.amp.GradScaler('cuda') if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp.GradScaler()\n"
        "t = torch.cuda.amp.GradScaler()\n"
    )
    path = tmp_path / "m.py"
    path.write_text(src)
    # --min-torch 2.3: torch.amp.GradScaler exists on every supported torch, so the ungated use gets its fix.
    proc = cli("fix", "--unsafe-fixes", "--min-torch", "2.3", str(path), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    lines = path.read_text().splitlines()
    assert lines[2] == src.splitlines()[2], "the fallback branch is left as it is"
    assert "torch.cuda.amp" not in lines[3], "the ungated use is still migrated"
