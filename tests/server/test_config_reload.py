"""A language server lives on while the user edits pyproject.toml: what the pipeline read of it by directory
(lazy-import helpers, line length, first-party names) is read again once the server forgets its settings."""

from __future__ import annotations

import os

from advisor.analysis.lazy_helpers import importing_calls
from advisor.rule.style import line_length
from advisor.server import adapter


def test_forgetting_settings_rereads_the_config_files(tmp_path):
    pyproject = tmp_path / "pyproject.toml"
    source = tmp_path / "pkg" / "m.py"
    source.parent.mkdir()
    source.write_text("import torch\n")
    pyproject.write_text('[tool.advisor]\nlazy-import-helpers = ["old_helper"]\n[tool.ruff]\nline-length = 100\n')
    path = os.fspath(source)
    assert "old_helper" in importing_calls(path) and line_length(path) == 100
    pyproject.write_text('[tool.advisor]\nlazy-import-helpers = ["new_helper"]\n[tool.ruff]\nline-length = 120\n')
    assert "old_helper" in importing_calls(path)  # read once per directory, as a scan wants
    adapter.forget_settings()  # what the server does on a saved or watched config file
    assert "new_helper" in importing_calls(path) and "old_helper" not in importing_calls(path)
    assert line_length(path) == 120
