"""The `ast` compat gates (advisor.analysis.ast_compat) decide as LibCST's (advisor.analysis.compat_marks), node for node.

Each case is a gate pattern written where the two trees differ (one-line suites, `elif` against `else: if`, lines of
several statements, literals by their spelling, `and` chains, bindings in fallbacks); `benchmarks/compat_agreement.py`
compares every name, attribute and call of the file, as it does on whole trees (docs/speed.md).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import textwrap

import pytest

_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "benchmarks")


def _load(name: str):
    sys.path.insert(0, _DIR)  # compat_agreement imports resolver_agreement
    try:
        spec = importlib.util.spec_from_file_location(name, os.path.join(_DIR, f"{name}.py"))
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module
    finally:
        sys.path.remove(_DIR)


agreement = _load("compat_agreement")

CASES = {
    "early returns, indented and on one line": """
        import torch
        def a():
            if is_torch_min_version("2.4"):
                return torch.amp.GradScaler("cuda")
            return torch.cuda.amp.GradScaler()
        def b():
            if is_torch_min_version("2.4"): return torch.amp.GradScaler("cuda")
            return torch.cuda.amp.GradScaler()
        def c():
            if NEW_TORCH:
                try:
                    return torch.amp.autocast("cuda")
                except (AttributeError, TypeError):
                    pass
            return torch.cuda.amp.autocast()
        """,
    "elif and else-if": """
        import torch
        if hasattr(torch, "compiler"):
            f = torch.compiler.disable
        elif hasattr(torch, "_dynamo"):
            f = torch._dynamo.disable
        if is_torch_min_version("2.4"):
            g = torch.amp
        else:
            if hasattr(torch.cuda, "amp"):
                g = torch.cuda.amp
        if torch.__version__ >= "2.4": h = torch.amp
        else: h = torch.cuda.amp
        """,
    "reassigned names, one statement per line or several": """
        import torch
        fwd = torch.cuda.amp.custom_fwd; other = torch.cuda.amp.custom_bwd
        bwd = torch.cuda.amp.custom_bwd
        if TORCH_VERSION >= (2, 4):
            fwd = torch.amp.custom_fwd
            bwd = torch.amp.custom_bwd; x = bwd
        """,
    "try fallbacks": """
        try: from torch.compiler import is_compiling
        except ImportError: from torch._dynamo import is_compiling
        try:
            import torch.cuda.amp as amp_a; import torch.x as b
        except ImportError:
            amp_a = torch.cuda.amp
        try:
            a = 1; b = 2; c = 3; d = 4
            e = 5; f = 6; g = 7
            h = torch.amp
        except AttributeError:
            h = torch.cuda.amp
        try:
            torch.amp.autocast("cuda")
        except:
            torch.cuda.amp.autocast()
        x = is_compiling()
        """,
    "locals of the enclosing function": """
        import torch
        def f():
            v = tuple(int(p) for p in torch.__version__.split(".")[:2])
            def inner():
                w = torch_version()
            if v < (2, 4): return torch.cuda.amp.autocast()
            if v < (2, 4):
                return torch.cuda.amp.autocast()
            if w < (2, 4):
                return torch.cuda.amp.autocast()
        def g(): v = torch_version()
        def h():
            if x: v = torch_version()
            if v < (2, 4):
                a = torch.cuda.amp
        """,
    "literals by their spelling": """
        import torch
        if torch.__version__ >= 2.10: a = torch.cuda.amp
        if torch.__version__ < 2.10:
            a = torch.cuda.amp
        if TORCH_VERSION < (2, 0x4):
            b = torch.cuda.amp
        if torch.__version__ < r"2.4":
            c = torch.cuda.amp
        if torch.__version__ < "2." "4":
            d = torch.cuda.amp
        if torch.__version__ < f"2.{minor}":
            e = torch.cuda.amp
        if version.parse(torch.__version__) < version.parse("2.4.0"):
            f = torch.cuda.amp
        if int(torch.__version__.split(".")[1]) < 4:
            g = torch.cuda.amp
        if torch.__version__.startswith("2.3"):
            h = torch.cuda.amp
        if is_torch_version("<", "2.4"):
            i = torch.cuda.amp
        if required_torch_version(max_version=2.3):
            j = torch.cuda.amp
        """,
    "and and or chains": """
        import torch
        if _TORCH_GREATER_EQUAL_2_4 and x and TORCH_LESS_2_6:
            a = torch.cuda.amp
        else:
            b = torch.cuda.amp
        if not (_TORCH_GREATER_EQUAL_2_4 or y or _TORCH_GREATER_EQUAL_2_5):
            c = torch.cuda.amp
        if _TORCH_GREATER_EQUAL_2_4 and _TORCH_GREATER_EQUAL_2_5 and _TORCH_GREATER_EQUAL_2_6:
            d = 1
        else:
            d = torch.cuda.amp
        e = torch.amp if _TORCH_GREATER_EQUAL_2_4 else torch.cuda.amp
        """,
    "probes": """
        import torch, torchaudio
        if hasattr(torchaudio, "list_audio_backends"):
            torchaudio.list_audio_backends()
        if hasattr(torch.cuda, 'amp') and x:
            torch.cuda.amp.autocast()
        def f(m):
            if m.new_api():
                pass
            elif hasattr(m, "_old_method"):
                m._old_method()
        def g(m):
            if hasattr(m, "new_api"):
                m.new_api()
            elif hasattr(m, "_old"):
                torch.cuda.amp.autocast()
            if hasattr(m, "new_api"):
                m.new_api()
            else:
                if hasattr(m, "_old"):
                    torch.cuda.amp.autocast()
        """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_decide_alike(name: str, tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(textwrap.dedent(CASES[name]).lstrip())
    _, compared, old, differ, error = agreement.compare(str(path))
    assert not error
    assert compared and old, "the case has an old-only branch"
    assert not differ


def test_a_flag_from_a_project_module(tmp_path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "typing.py").write_text("import torch\nWITH_PT24 = torch_version >= (2, 4)\n")
    path = tmp_path / "pkg" / "m.py"
    path.write_text("import torch\nfrom .typing import WITH_PT24\nif not WITH_PT24:\n    a = torch.cuda.amp\n")
    _, compared, old, differ, error = agreement.compare(str(path))
    assert not error and old and not differ
