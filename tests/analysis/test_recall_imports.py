"""Recall (issue 27): names bound by star imports of the project's own modules, and lazy-import helpers."""

from __future__ import annotations

import json


def _scan(cli, root):
    proc = cli("scan", ".", "--no-cache", "--output-format", "json", cwd=root)
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((f["path"], f["line"], f["rule"]) for f in json.loads(proc.stdout)["findings"])


def test_torch_through_a_relative_star_import(cli, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "evo_norm.py").write_text("import torch\n")
    (tmp_path / "pkg" / "layers.py").write_text("from .evo_norm import *\n\nscaler = torch.cuda.amp.GradScaler()\n")
    assert ("pkg/layers.py", 3, "ADV702") in _scan(cli, tmp_path)


def test_lazy_import_helpers_known_and_configured(cli, tmp_path):
    (tmp_path / "a.py").write_text(
        'models, _ = optional_import("torchvision.models")\nnet = models.resnet18(pretrained=True)\n'
        'amp = importlib.import_module("torch.cuda.amp")\ns = amp.GradScaler()\n'
        'cuda = load_optional("torch.cuda")\nc = cuda.memory_cached()\n'
    )
    found = {(line, rule) for _, line, rule in _scan(cli, tmp_path)}
    assert (2, "ADV910") in found  # `pretrained=` on a torchvision model
    assert (4, "ADV702") in found
    assert not any(line == 6 for line, _ in found)  # not a known helper
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nlazy-import-helpers = ["mypkg.utils.load_optional"]\n')
    assert any(line == 6 for _, line, _ in _scan(cli, tmp_path))


def test_optional_import_with_a_name_and_getattr_with_a_literal(cli, tmp_path):
    """MONAI's `optional_import("pkg", name="attr")` and `getattr(module, "name")(...)` resolve like imports."""
    (tmp_path / "a.py").write_text(
        "from monai.utils import optional_import\n"
        'models, has_tv = optional_import("torchvision", name="models")\n'
        "net = models.resnet50(pretrained=True)\n"
        'amp, _ = optional_import("torch.cuda", name="amp")\n'
        "s = amp.GradScaler()\n"
        "import torch\n"
        'c = getattr(torch.cuda, "memory_cached")()\n'
        's2 = getattr(torch.cuda.amp, "GradScaler")()\n'
    )
    found = {(line, rule) for _, line, rule in _scan(cli, tmp_path)}
    assert (3, "ADV910") in found  # `pretrained=` on a torchvision model
    assert (5, "ADV702") in found
    assert any(line == 7 for line, _ in found)  # torch.cuda.memory_cached
    assert (8, "ADV702") in found


def test_what_does_not_resolve_like_an_import(cli, tmp_path):
    """getattr with a default, a computed name or a shadowed getattr is not followed; `optional_import`'s
    `name=` is an attribute of the module, so a wrong one resolves to nothing torch or torchvision has."""
    (tmp_path / "b.py").write_text(
        "import importlib\nimport torch\n"
        'amp = importlib.import_module("torch.cuda.amp", package=None)\n'
        "s = amp.GradScaler()\n"
        'c = getattr(torch.cuda, "memory_cached", None)\n'
        "name = 'memory_cached'\n"
        "d = getattr(torch.cuda, name)()\n"
        "def f(getattr):\n"
        '    return getattr(torch.cuda, "memory_cached")()\n'
        'models, _ = optional_import("torchvision", name="not_models")\n'
        "net = models.resnet50(pretrained=True)\n"
    )
    found = {(line, rule) for _, line, rule in _scan(cli, tmp_path)}
    assert (4, "ADV702") in found
    assert not any(line in (5, 7, 9, 11) for line, _ in found), found


def test_the_resolver_answers_for_getattr_and_named_optional_imports():
    import libcst as cst

    from advisor.syntax.names import NameResolver
    from advisor.syntax.walk import nodes_of

    module = cst.parse_module(
        'import torch\nm, _ = optional_import("torchvision", name="models")\nm.resnet18()\n'
        'getattr(torch.cuda, "memory_cached")()\ngetattr(getattr(torch, "cuda"), "amp").GradScaler()\n'
    )
    resolver = NameResolver(module)
    calls = {module.code_for_node(c.func): c.func for c in nodes_of(module, cst.Call)}
    assert resolver.qualnames(calls["m.resnet18"]) == {"torchvision.models.resnet18"}
    assert resolver.qualnames(calls['getattr(torch.cuda, "memory_cached")']) == {"torch.cuda.memory_cached"}
    assert resolver.qualnames(calls['getattr(getattr(torch, "cuda"), "amp").GradScaler']) == {
        "torch.cuda.amp.GradScaler"
    }
