"""Compat gates found on code we never tuned for (issue 27), each written as a minimal case of its pattern.

A finding in a branch that only an older torch runs is kind `compat`, with no fix; `advisor fix
--unsafe-fixes` leaves that branch byte for byte.
"""

from __future__ import annotations

import textwrap

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules
from advisor.core.settings import settings_at
from advisor.fix.fixer import fix_bytes


def _scan(code: str, path: str = "m.py"):
    result, _ = analyse(textwrap.dedent(code).encode(), path, all_rules(), settings_at("2.13"))
    assert not result.errors, result.errors
    return {f.line: f for f in result.findings}


def _is_compat(f):
    return f.kind == "compat" and f.fix is None and f.replacement is None


def test_early_return_gate():
    found = _scan("""\
        import torch
        def scaler():
            if is_torch_min_version("2.4"):
                return torch.amp.GradScaler("cuda")
            return torch.cuda.amp.GradScaler()
        def other():
            return torch.cuda.amp.GradScaler()
        """)
    assert _is_compat(found[5]) and found[5].data["compat_until"] == "2.4"
    assert found[7].kind == "deprecated" and found[7].fix == "safe"


def test_a_gate_whose_new_path_is_a_try_that_returns():
    code = """\
        import torch
        NEW_TORCH = torch.__version__ >= "2.4"
        def scaler():
            if NEW_TORCH:
                try:
                    return torch.amp.GradScaler("cuda")
                except (AttributeError, TypeError):
                    pass
            return torch.cuda.amp.GradScaler()
        def autocast():
            if NEW_TORCH:
                with nullcontext():
                    try:
                        return torch.amp.autocast("cuda")
                    except Exception:
                        pass
            return torch.cuda.amp.autocast()
        def plain():
            return torch.cuda.amp.GradScaler()
        """
    found = _scan(code)
    assert _is_compat(found[9]) and found[9].data["compat_until"] == "2.4"
    assert _is_compat(found[17])
    assert found[19].kind == "deprecated" and found[19].fix == "safe"
    out = fix_bytes(textwrap.dedent(code).encode(), "m.py", all_rules(), settings_at("2.13", unsafe_fixes=True))
    fixed = out.fixed.decode()
    assert "    return torch.cuda.amp.GradScaler()\ndef autocast" in fixed  # the old path, kept
    assert "    return torch.cuda.amp.autocast()\ndef plain" in fixed
    assert fixed.endswith('return torch.amp.GradScaler("cuda")\n')  # outside any gate: fixed


def test_name_assigned_then_reassigned_under_a_version_test():
    found = _scan("""\
        import torch
        fwd = torch.cuda.amp.custom_fwd
        if TORCH_VERSION >= (2, 4):
            fwd = torch.amp.custom_fwd
        bwd = torch.cuda.amp.custom_bwd
        """)
    assert _is_compat(found[2])
    assert not _is_compat(found[5])


def test_try_new_except_attribute_or_type_error():
    found = _scan("""\
        import torch
        def f(self):
            try:
                self.new_method()
            except (AttributeError, TypeError):
                torch.cuda.amp.autocast()
            try:
                import apex
            except ImportError:
                torch.cuda.amp.autocast()
        """)
    assert _is_compat(found[6])
    assert not _is_compat(found[10])  # an ImportError of something else says nothing about torch


def test_load_in_a_type_error_fallback_never_gets_weights_only_true():
    found = _scan("""\
        import torch
        def load(f, weights_only):
            try:
                return torch.load(f, weights_only=weights_only)
            except TypeError:
                if not weights_only:
                    return torch.load(f)
        """)
    assert _is_compat(found[7])


def test_elif_hasattr_on_any_object():
    found = _scan("""\
        import torch
        def f(self):
            if hasattr(self, "new_method"):
                self.new_method()
            elif hasattr(self, "_old_method"):
                torch.cuda.amp.autocast()
            if ready:
                pass
            elif hasattr(self, "_old_method"):
                torch.cuda.amp.autocast()
        """)
    assert _is_compat(found[6])
    assert not _is_compat(found[10])  # the first test is neither a gate nor a probe


def test_version_flags_imported_from_the_project(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "nn").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "nn" / "__init__.py").write_text("")
    (pkg / "typing.py").write_text(
        "import torch\n"
        "WITH_PT20 = int(torch.__version__.split('.')[0]) >= 2\n"
        "WITH_PT24 = WITH_PT20 and int(torch.__version__.split('.')[1]) >= 4\n"
        "USE_AMP = True\n"
    )
    (pkg / "nn" / "flags.py").write_text("from ..typing import WITH_PT24 as PT24\n")
    found = _scan(
        """\
        import torch
        from ..typing import WITH_PT24, USE_AMP
        from pkg.nn.flags import PT24
        if WITH_PT24:
            s = torch.amp.GradScaler("cuda")
        else:
            s = torch.cuda.amp.GradScaler()
        if not PT24:
            s = torch.cuda.amp.GradScaler()
        if USE_AMP:
            pass
        else:
            s = torch.cuda.amp.GradScaler()
        """,
        str(pkg / "nn" / "model.py"),
    )
    assert _is_compat(found[7]) and found[7].data["compat_until"] == "2.4"
    assert _is_compat(found[9]) and found[9].data["compat_until"] == "2.4"  # through a re-export, absolute import
    assert not _is_compat(found[13])  # a project flag that is not a version test


def test_fix_leaves_every_gated_branch(cli, tmp_path):
    src = textwrap.dedent("""\
        import torch


        def scaler():
            if is_torch_min_version("2.4"):
                return torch.amp.GradScaler("cuda")
            return torch.cuda.amp.GradScaler()


        fwd = torch.cuda.amp.custom_fwd
        if TORCH_VERSION >= (2, 4):
            fwd = torch.amp.custom_fwd
        """)
    path = tmp_path / "m.py"
    path.write_text(src)
    proc = cli("fix", "--unsafe-fixes", str(path), cwd=tmp_path)
    assert proc.returncode in (0, 1), proc.stderr
    assert path.read_text() == src


def test_chained_version_range_and_probed_old_api():
    found = _scan("""\
        import torch
        import torchaudio
        if digit_version("1.5.0") <= digit_version(TORCH_VERSION) < digit_version("1.10.0"):
            ctx = torch.cuda.amp.autocast()
        if hasattr(torchaudio, "list_audio_backends"):
            names = torchaudio.list_audio_backends()
            s = torch.cuda.amp.GradScaler()
        """)
    assert _is_compat(found[4]) and found[4].data["compat_until"] == "1.10"
    assert _is_compat(found[6])  # the probed old API itself
    assert not _is_compat(found[7])  # another API in the same branch is not what was probed


def test_a_branch_that_reads_the_name_keeps_the_earlier_value():
    found = _scan("""\
        import torch
        sd = torch.load(p)
        if TORCH_VERSION >= (2, 4):
            sd = convert(sd)
        """)
    assert not _is_compat(found[2])


def test_a_branch_the_lowest_torch_never_runs_is_dead_code_now():
    """Under a lowest supported torch at or above the gate, the message says so (not "delete it when ...")."""
    code = textwrap.dedent("""\
        import torch
        from packaging import version
        if version.parse(torch.__version__) >= version.parse("2.4"):
            ctx = torch.amp.autocast("cuda")
        else:
            ctx = torch.cuda.amp.autocast()
        """).encode()
    messages = {}
    for lowest in ("2.1", "2.4", "2.8"):
        result, _ = analyse(code, "m.py", all_rules(), settings_at("2.13", lowest))
        (messages[lowest],) = [f.message for f in result.findings if f.line == 6 and f.kind == "compat"]
    assert "when your lowest supported torch is >= 2.4" in messages["2.1"] and "dead code" not in messages["2.1"]
    assert messages["2.4"].startswith("compat fallback, dead code now: your lowest supported torch 2.4 is >= 2.4")
    assert "your lowest supported torch 2.8 is >= 2.4, so this branch never runs" in messages["2.8"]


def test_gates_read_from_locals_lists_startswith_unpacking_and_an_imported_version():
    """Old-only branches, dead from 2.4 on, in shapes a project writes: never reported as deprecated."""
    found = _scan("""\
        import torch
        from torch import __version__ as tv
        major, minor = map(int, torch.__version__.split(".")[:2])
        _VER = [int(x) for x in torch.__version__.split(".")[:2]]
        def by_local():
            v = tuple(map(int, torch.__version__.split(".")[:2]))
            if v < (2, 4):
                return torch.cuda.amp.autocast()
        def by_list():
            if _VER < [2, 4]:
                return torch.cuda.amp.autocast()
        def by_prefix():
            if torch.__version__.startswith("2.3"):
                return torch.cuda.amp.autocast()
            return torch.cuda.amp.autocast()
        def by_unpacking():
            if (major, minor) < (2, 4):
                return torch.cuda.amp.autocast()
        def by_import():
            if tv < "2.4":
                return torch.cuda.amp.autocast()
        def shadowed():
            v = (2, 3)
            if v < (2, 4):
                return torch.cuda.amp.autocast()
        """)
    for line in (8, 11, 14, 18, 21):
        assert _is_compat(found[line]) and found[line].data["compat_until"] == "2.4", found[line]
    assert found[15].kind == "deprecated"  # after a `startswith` gate without a return: every release runs it
    assert found[25].kind == "deprecated"  # `v` is a local tuple, not a torch version
