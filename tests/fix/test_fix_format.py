"""Fixes look hand-written: formatters and import linters find nothing new after `advisor fix`.

The fixture project under fixtures/ruffclean is formatted with `ruff format` and passes
`ruff check --select F401,I001,W291`; after `advisor fix --unsafe-fixes` both must still pass.
Also: arguments added to calls in every layout, import placement, unused-import removal,
and `torch.load` of whole pickled objects (issue 21).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import libcst as cst
import pytest

from advisor.analysis.registry import rule_by_code
from advisor.fix.fixer import fix_bytes
from advisor.rule import append_args, kwarg
from advisor.core.settings import settings_at
from tests.conftest import FIXTURES

FIXTURE = os.path.join(FIXTURES, "ruffclean")
LINT = "F401,I001,W291"
needs_ruff = pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff not installed (test extra)")


def ruff(*args, cwd):
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=cwd, capture_output=True, text=True)


def ruff_state(root):
    fmt = ruff("format", "--check", "--no-cache", ".", cwd=root)
    lint = ruff("check", "--no-cache", "--select", LINT, "--output-format", "json", "--exit-zero", ".", cwd=root)
    return fmt.returncode, fmt.stdout + fmt.stderr, json.loads(lint.stdout or "[]")


@needs_ruff
def test_fixed_project_stays_ruff_clean(cli, tmp_path):
    root = tmp_path / "proj"
    shutil.copytree(FIXTURE, root)
    rc, out, findings = ruff_state(root)
    assert rc == 0 and findings == [], f"fixture must be clean before the fix: {out} {findings}"
    before = {p: open(os.path.join(root, p)).read() for p in _py_files(root)}
    proc = cli("fix", ".", "--unsafe-fixes", cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    changed = [p for p in before if open(os.path.join(root, p)).read() != before[p]]
    assert len(changed) == 4, changed  # every file but the package marker and export.py's whole-object load
    rc, out, findings = ruff_state(root)
    assert rc == 0, out
    assert findings == [], findings
    text = (root / "src/app/checkpoints.py").read_text()
    assert "        map_location=device,\n        weights_only=True,\n    )" in text
    assert '.bin"),\n        weights_only=True,\n    )' in text
    models = (root / "src/app/models/__init__.py").read_text()
    # ADV101's rewrite needs torch 2.12, above the project's lowest (2.1): no fix, so its import stays.
    assert models.startswith(
        '"""Models."""\n\nimport torch\nfrom torch.cuda import is_current_stream_capturing\n\n'
        "from app import checkpoints\n"
    )
    assert "F.sigmoid" not in models and "functional" not in models  # the alias a fix made unused is gone
    export = (root / "src/app/export.py").read_text()
    # whole-object load: never `weights_only=True`; the unsafe fix keeps what it did (False)
    assert 'torch.load(path, map_location="cpu", weights_only=False)\n' in export


def _py_files(root):
    return [os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs if f.endswith(".py")]


CALLS = [
    ("f(p)", "f(p, w=True)"),
    ("f(p,)", "f(p, w=True)"),
    ("f(\n    p,\n    m=1,\n)", "f(\n    p,\n    m=1,\n    w=True,\n)"),
    ("f(\n    p,\n    m=1\n)", "f(\n    p,\n    m=1,\n    w=True\n)"),
    ("f(\n    p\n)", "f(\n    p,\n    w=True\n)"),
    ("f(p,\n  m=1)", "f(p,\n  m=1,\n  w=True)"),
    ("f(p,  # why\n  m=1)", "f(p,  # why\n  m=1,\n  w=True)"),
    ("f(g(a,\n    b))", "f(g(a,\n    b), w=True)"),
    ("f(\n    a, b\n)", "f(\n    a, b, w=True\n)"),
    ("f(\n    a,\n)", "f(\n    a,\n    w=True,\n)"),
]


@pytest.mark.parametrize("before, after", CALLS)
def test_added_argument_goes_where_a_person_puts_it(before, after):
    call = cst.parse_expression(before)
    new = append_args(call, [kwarg("w", "True")])
    text = cst.Module([]).code_for_node(new)
    assert text == after
    assert not any(line != line.rstrip() for line in text.splitlines())


def test_single_argument_block_gets_a_magic_comma_where_the_file_uses_them():
    call = cst.parse_expression("f(\n    p\n)")
    new = append_args(call, [kwarg("w", "True")], magic_comma=True)
    assert cst.Module([]).code_for_node(new) == "f(\n    p,\n    w=True,\n)"


def _fix(code, *codes, path="m.py"):
    rules = [rule_by_code(c) for c in codes]
    out = fix_bytes(code.encode(), path, rules, settings_at("2.13", unsafe_fixes=True))
    assert out.error is None, out.error
    return out.fixed.decode()


def test_added_import_joins_third_party_before_first_party_and_relative(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.ruff.lint.isort]\nknown-first-party = ["mylib"]\n')
    code = (
        "import os\n\nimport numpy as np\nfrom torch.cuda import is_current_stream_capturing as cap\n\n"
        "from mylib import thing\nfrom . import sib\n\nok = not cap()\n"
    )
    fixed = _fix(code, "ADV101", path=str(tmp_path / "m.py"))
    assert fixed == (
        "import os\n\nimport numpy as np\nimport torch\n\nfrom mylib import thing\nfrom . import sib\n\n"
        "ok = not torch.cuda.current_stream().is_capturing()\n"
    )


def test_added_import_opens_the_third_party_group_when_there_is_none(tmp_path):
    (tmp_path / "mylib").mkdir()  # a package in the project root: first-party, as Ruff decides
    code = "import os\n\nfrom mylib import thing\nfrom torch.cuda import is_current_stream_capturing\n\nx = is_current_stream_capturing()\n"
    fixed = _fix(code, "ADV101", path=str(tmp_path / "m.py"))
    assert fixed.startswith("import os\n\nimport torch\n\nfrom mylib import thing\n\nx = ")


def test_from_import_names_merge_in_ruff_order():
    code = "import torch\nfrom torch.nn.attention import SDPBackend\n\nwith torch.backends.cuda.sdp_kernel(enable_math=False):\n    pass\n"
    fixed = _fix(code, "ADV704")
    assert fixed.startswith("import torch\nfrom torch.nn.attention import SDPBackend, sdpa_kernel\n\nwith sdpa_kernel(")


def test_plain_import_alias_made_unused_is_removed_unless_still_used():
    code = "import torch\nimport torch.nn.functional as F\n\ny = F.sigmoid(x)\n"
    assert _fix(code, "ADV722") == "import torch\n\ny = torch.sigmoid(x)\n"
    still = "import torch\nimport torch.nn.functional as F\n\ny = F.sigmoid(x)\nz = F.relu(x)\n"
    assert (
        _fix(still, "ADV722")
        == "import torch\nimport torch.nn.functional as F\n\ny = torch.sigmoid(x)\nz = F.relu(x)\n"
    )


# -- torch.load of whole pickled objects (modelled on apex and diffusers) --------------------


def _scan(code):
    from advisor.analysis.analyse import analyse_source

    result, _ = analyse_source(code.encode(), "m.py", [rule_by_code("ADV716")], settings_at("2.13"))
    return result.findings


WHOLE = [
    # diffusers scripts/convert_models_diffuser_to_diffusers.py
    "import torch\ndef unet(hor):\n    model = torch.load(f'temporal_unet-hor{hor}.torch')\n    state_dict = model.state_dict()\n",
    # a pickled module, called
    "import torch\nnet = torch.load('net.pt', map_location='cpu')\ny = net(x)\n",
    # chained
    "import torch\nfor p in torch.load(path).parameters():\n    pass\n",
    # the file saves an optimizer object to the same path (apex-style checkpoint helpers)
    "import torch\ndef save(model):\n    opt = torch.optim.SGD(model.parameters(), lr=0.1)\n    torch.save(opt, 'opt.pt')\n"
    "def load():\n    return torch.load('opt.pt')\n",
    # Lightning's XLA broadcast: the caller's object, round-tripped through a buffer
    "import io\nimport torch\ndef broadcast(obj, src=0):\n    buffer = io.BytesIO()\n    torch.save(obj, buffer)\n"
    "    buffer = io.BytesIO(send(buffer))\n    return torch.load(buffer)\n",
    # a class that saves itself
    "import torch\nclass Ckpt:\n    def save(self, path):\n        torch.save(self, path)\n    @staticmethod\n"
    "    def load(path):\n        return torch.load(path)\n",
]
NOT_WHOLE = [
    "import torch\nckpt = torch.load(p)\nmodel.load_state_dict(ckpt['model'])\nckpt.eval()\n",  # indexed: a dict
    "import torch\nx = torch.load(p).to(device)\n",  # a tensor has .to()
    "import torch\nm = torch.load(p)\nm = build()\nm.eval()\n",  # rebound: unknown
    "import torch\nsd = torch.load(p)\nfor k in sd:\n    pass\nsd.eval()\n",  # iterated
    "import torch\nmodel.load_state_dict(torch.load(p))\n",
    "import torch\ntorch.save({'a': 1}, 'x.pt')\ny = torch.load('x.pt')\n",  # saves a dict
    "import io\nimport torch\ndef g(state):\n    buf = io.BytesIO()\n    torch.save(state, 'f.pt')\n    return torch.load(buf)\n",
]


@pytest.mark.parametrize("code", WHOLE)
def test_whole_object_load_is_breaking_and_only_weights_only_false_is_offered(code):
    (f,) = _scan(code)
    assert "whole pickled object" in f.message and "add_safe_globals" in f.message and "weights_only=False" in f.message
    assert f.fix == "unsafe" and f.severity == "error"
    fixed = _fix(code, "ADV716")
    assert "weights_only=False" in fixed and "weights_only=True" not in fixed


@pytest.mark.parametrize("code", NOT_WHOLE)
def test_plain_loads_keep_the_safe_fix(code):
    (f,) = _scan(code)
    assert "whole pickled object" not in f.message and f.fix == "safe"


def test_a_line_made_too_long_is_wrapped_as_a_formatter_would(tmp_path):
    code = (
        "import torch\n\nx = f(\n    a,\n)\n"
        'params = torch.load("rank0model.pth", map_location=lambda storage, loc: storage.cuda(0))\n'
        "def g():\n    if c:\n        m = torch.load(\n"
        '            "rank0master.pth", map_location=lambda storage, loc: storage.cuda(0), other=1\n        )\n'
    )
    fixed = _fix(code, "ADV716", path=str(tmp_path / "m.py"))  # no project config: the default line length
    assert (
        'params = torch.load(\n    "rank0model.pth",\n    map_location=lambda storage, loc: storage.cuda(0),\n'
        "    weights_only=True,\n)\n" in fixed
    )
    assert (
        '        m = torch.load(\n            "rank0master.pth",\n            map_location=lambda storage, loc: storage.cuda(0),\n'
        "            other=1,\n            weights_only=True,\n        )\n" in fixed
    )


def test_a_call_inside_a_longer_expression_is_not_wrapped(tmp_path):
    code = (
        "import torch\n\nx = f(\n    a,\n)\n"
        'state = torch.load(path, mmap=True, map_location="cpu") if _TORCH_GREATER_EQUAL_2_3 else _lazy_load(path)\n'
    )
    fixed = _fix(code, "ADV716", path=str(tmp_path / "m.py"))  # no project config: the default line length
    assert 'torch.load(path, mmap=True, map_location="cpu", weights_only=True) if _TORCH' in fixed


def test_a_subscripted_load_is_wrapped_before_the_subscript(tmp_path):
    code = (
        "import torch\n\nx = f(\n    a,\n)\n"
        'checkpoint = torch.load(args.vqvae_checkpoint_path, map_location=checkpoint_map_location)["model"]\n'
    )
    fixed = _fix(code, "ADV716", path=str(tmp_path / "m.py"))  # no project config: the default line length
    assert (
        "checkpoint = torch.load(\n    args.vqvae_checkpoint_path,\n    map_location=checkpoint_map_location,\n"
        '    weights_only=True,\n)["model"]\n' in fixed
    )
