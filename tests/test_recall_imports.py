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
