"""A project's lazy-import helpers are read from its pyproject.toml once, however many directories it has."""

from __future__ import annotations

import tomllib

from advisor.analysis import lazy_helpers


def test_one_pyproject_is_parsed_once_for_a_hundred_directories(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nlazy-import-helpers = ["pkg.load_optional"]\n')
    loads = []
    real = tomllib.load
    monkeypatch.setattr(tomllib, "load", lambda f: loads.append(f.name) or real(f))
    lazy_helpers.forget_cached()
    try:
        for i in range(100):  # more directories than a per-directory cache of 64 held
            found = lazy_helpers.importing_calls(str(tmp_path / f"d{i}" / "m.py"))
            assert "load_optional" in found
        assert len(loads) == 1
    finally:
        lazy_helpers.forget_cached()
