"""Fixes that don't break (issue 27): `torch.load` evidence and lower bound, the project's line length, no F811."""

from __future__ import annotations

import textwrap

from advisor.analysis.analyse import analyse
from advisor.analysis.registry import all_rules, rule_by_code
from advisor.fix.fixer import fix_bytes
from advisor.rule import line_length
from advisor.core.settings import settings_at


def _loads(code: str, min_version: str | None = None, path: str = "m.py"):
    result, _ = analyse(
        textwrap.dedent(code).encode(), path, [rule_by_code("ADV716")], settings_at("2.13", min_version)
    )
    return {f.line: f for f in result.findings}


def test_an_entry_read_like_an_object_is_a_whole_object_load():
    found = _loads("""\
        import torch
        ckpt = torch.load(p)
        model = build(ckpt["cfg"].model)
        sd = torch.load(q)
        n = sd["weight"].shape
        """)
    # the only fix is the one that keeps what the load does: `weights_only=False`, unsafe (it runs the pickle)
    assert found[2].fix == "unsafe" and found[2].kind == "breaking" and '`ckpt["cfg"].model`' in found[2].message
    assert "unsafe fix: `weights_only=False`" in found[2].message and "behaves differently" not in found[2].message
    assert found[4].fix == "safe"  # a tensor's own attribute is no evidence


def test_weights_only_true_only_where_it_changes_nothing_supported():
    code = "import torch\nsd = torch.load(p)\n"
    (f,) = _loads(code, "2.6").values()
    assert f.fix is None and f.kind == "advice" and "TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD" in f.message
    (f,) = _loads(code, "2.4").values()
    assert f.fix == "unsafe" and "behaves differently below torch 2.6 (the default is False there" in f.message
    assert "does not exist" not in f.message  # `weights_only=` exists since 1.13: not the reason


def test_a_load_under_the_callers_weights_only_is_not_fixed():
    found = _loads("import torch\ndef f(p, weights_only):\n    if not weights_only:\n        return torch.load(p)\n")
    assert found[4].fix is None


def _fixed(tmp_path, config: dict[str, str], code: str) -> str:
    for name, text in config.items():
        (tmp_path / name).write_text(text)
    path = tmp_path / "m.py"
    path.write_text(code)
    out = fix_bytes(code.encode(), str(path), all_rules(), settings_at("2.13", unsafe_fixes=True))
    assert out.error is None
    return out.fixed.decode()


# A file that writes trailing commas the way Black does: without a configured length the fix wraps past 88.
CALL = (
    "import torch\n\nx = f(\n    1,\n)\n"
    "state = torch.load(os.path.join(checkpoint_directory, 'model.bin'), map_location=dev)\n"
)


def test_line_length_from_the_projects_config(tmp_path):
    wide = tmp_path / "wide"
    wide.mkdir()
    text = _fixed(wide, {"pyproject.toml": "[tool.ruff]\nline-length = 120\n"}, CALL)
    assert (
        "state = torch.load(os.path.join(checkpoint_directory, 'model.bin'), map_location=dev, weights_only=True)\n"
        in text
    )
    narrow = tmp_path / "narrow"
    narrow.mkdir()
    text = _fixed(narrow, {"setup.cfg": "[flake8]\nmax-line-length = 79\n"}, CALL)
    assert "    map_location=dev,\n    weights_only=True,\n)\n" in text
    assert max(len(line) for line in text.splitlines()) <= 79


def test_black_line_length_is_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.black]\nline-length = 100\n")
    (tmp_path / "pkg").mkdir()
    assert line_length(str(tmp_path / "pkg" / "m.py")) == 100


def test_an_added_import_never_redefines_a_bound_name(tmp_path):
    code = (
        "import torch\nfrom torch.backends.cuda import SDPBackend\n\n"
        "with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False, enable_mem_efficient=False):\n"
        "    pass\n"
    )
    text = _fixed(tmp_path, {}, code)
    assert "from torch.nn.attention import sdpa_kernel\n" in text
    assert text.count("SDPBackend\n") == 1  # imported once, from where the project had it


def test_use_device_is_no_fix_where_torch_2_0_is_supported():
    # `use_device=` is absent from torch 2.0's autograd profiler (2.0.0 wheel): the rewrite would fail on 2.0.
    code = "import torch\np = torch.autograd.profiler.profile(use_cuda=flag)\n"
    result, _ = analyse(code.encode(), "m.py", [rule_by_code("ADV601")], settings_at("2.15", "2.0"))
    (f,) = result.findings
    assert f.fix is None and "no fix: the replacement does not exist before torch 2.1" in f.message


def test_a_load_whose_name_is_otherwise_bound_to_a_model_is_a_whole_object():
    found = _loads("""\
        import torch
        from model import Classifier
        if resume:
            model = torch.load(snapshot, map_location=device)
        else:
            model = Classifier(config)
        opt = make(model.parameters())
        if resume:
            sd = torch.load(snapshot)
        else:
            sd = dict(a=1)
        sd.eval()
        """)
    assert found[4].fix == "unsafe" and found[4].kind == "breaking"
    assert found[9].fix == "safe"  # the other binding is a plain container


def test_rebinding_the_loaded_object_to_itself_keeps_the_evidence():
    found = _loads("import torch\nmodel = torch.load(p)\nif cuda:\n    model = model.cuda()\nout = model(x)\n")
    assert found[2].fix == "unsafe" and found[2].kind == "breaking"


def test_items_used_as_more_than_tensors_never_get_weights_only_true():
    # A resume function in the shape of detection / GAN training code: the checkpoint's `args` and `opts`
    # build the model or land on attributes; a Namespace there fails under `weights_only=True`.
    code = """\
        import torch

        def resume(self, path):
            ckpt = torch.load(path, map_location="cpu")
            self.model = build_model(ckpt["args"])
            self.model.load_state_dict(ckpt["model"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            self.epoch = ckpt["epoch"]

        def load_config(path):
            cfg = torch.load(path).get("config")
            return Config(**cfg)

        def plain(path, model, opt):
            ckpt = torch.load(path)
            model.load_state_dict(ckpt["model"])
            opt.load_state_dict(ckpt["opt"])
            start = int(ckpt["epoch"]) + 1
            print(ckpt["loss"])
            return start
        """
    found = _loads(code)
    assert found[4].fix is None and '`ckpt["args"]` passed to `build_model(...)`' in found[4].message
    assert found[11].fix is None and "`cfg` passed to `Config(...)`" in found[11].message
    assert found[15].fix == "safe"  # state dicts, a number and a print: tensors and plain data only
    out = fix_bytes(
        textwrap.dedent(code).encode(), "m.py", [rule_by_code("ADV716")], settings_at("2.13", unsafe_fixes=True)
    )
    assert out.fixed.decode().count("weights_only=True") == 1
