"""One settings value (issue 35): keys and flags declared once, merged by their declaration; one Selector for codes;
family manifests checked by the registry; the editors' doors on Project."""

from __future__ import annotations

import dataclasses

import pytest

from advisor.core.config import ConfigError
from advisor.core.selector import Selector
from advisor.core.settings import Settings, Versions, settings_at

pytestmark = pytest.mark.torch_free


def test_each_key_is_read_by_its_declaration():
    s = Settings.from_toml(
        {"select": "ADV7", "per-file-ignores": {"tests/*": ["ADV101"]}, "min-torch": "2.4", "unsafe-fixes": True},
        "p/pyproject.toml",
        root="/r",
    )
    assert s.select == ("ADV7",) and s.per_file_ignores == (("tests/*", ("ADV101",)),)
    assert s.min_torch == "2.4" and s.unsafe_fixes and s.root == "/r" and s.config_path == "p/pyproject.toml"
    with pytest.raises(ConfigError, match=r"p/pyproject.toml: \[tool.advisor\] colour: unknown key"):
        Settings.from_toml({"colour": True}, "p/pyproject.toml")
    with pytest.raises(ConfigError, match="unsafe-fixes: expected true or false"):
        Settings.from_toml({"unsafe-fixes": "yes"})


def test_flags_combine_as_declared():
    config = Settings.from_toml({"select": ["ADV7"], "ignore": ["ADV701"], "force-exclude": True, "device": "cuda"})
    s = config.with_overrides(select=None, ignore=["ADV702,ADV703"], force_exclude=False, device="rocm", jobs=2)
    assert s.select == ("ADV7",)  # not given: the config's
    assert s.ignore == ("ADV701", "ADV702", "ADV703")  # added to the config's, comma-separated values split
    assert s.force_exclude and s.device == "rocm" and s.jobs == 2
    assert config.with_overrides(select=["ADV1"]).select == ("ADV1",)  # replaces the config's
    with pytest.raises(ValueError, match="unknown --device 'tpu'"):
        config.with_overrides(device="tpu")
    with pytest.raises(TypeError):
        config.with_overrides(per_file_ignores={})  # a key with no flag


def test_settings_are_frozen_and_keyword_only():
    s = settings_at("2.12", "2.4")
    assert s.versions == Versions(target="2.12", lowest="2.4") and s.versions.lowest_tuple == (2, 4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.unsafe_fixes = True  # type: ignore[misc]
    with pytest.raises(TypeError):
        Settings("/r")  # type: ignore[misc]


def test_one_selector_matches_codes_prefixes_ranges_and_all():
    assert Selector.of(["adv7"]).matches("ADV701") and not Selector.of(["ADV7"]).matches("ADV801")
    assert Selector.of(["ADV950-ADV989"]).among(["ADV949", "ADV950", "ADV989", "ADV990"]) == ["ADV950", "ADV989"]
    assert Selector.of(["ALL"]).matches("ADV001") and not Selector()
    fixing = settings_at("2.15", fixable=("ADV7",), unfixable=("ADV701",))
    assert fixing.may_fix("ADV702") and not fixing.may_fix("ADV701") and not fixing.may_fix("ADV101")
    ignoring = settings_at("2.15", per_file_ignores=(("tests/*", ("adv1",)),), root="/r")
    assert ignoring.ignored_for("/r/tests/t.py").matches("ADV101") and not ignoring.ignored_for("/r/src/m.py")


def test_every_rule_code_lies_in_its_family_manifest():
    from advisor.analysis.registry import all_rules, families, family_of

    assert {f.name for f in families().values()} >= {"capture", "catalogue", "mined", "rocm"}
    for rule in all_rules():
        family = family_of(rule.code)
        assert rule.__module__.split(".")[2] == family.name and family.codes.matches(rule.code)
    assert family_of("ADV753").title == "Graph capture"  # a catalogue code kept with its topic


def test_rules_for_writes_fix_rules_once(tmp_path):
    from advisor.run.project import Project

    (tmp_path / "pyproject.toml").write_text('[tool.advisor]\nselect = ["ADV7", "ADV8"]\n')
    project = Project.for_editor(str(tmp_path))
    scan, fix = project.rules_for("scan"), project.rules_for("fix")
    assert any(r.device for r in scan) and not any(r.device for r in fix)
    assert fix == project.rules_for("editor") == [r for r in scan if r.device is None]
    result = project.analyse_bytes(str(tmp_path / "m.py"), b"import torch\nx = torch.cuda.memory_cached()\n")
    assert [f.rule for f in result.findings] == ["ADV713"]
    with pytest.raises(ValueError):
        project.rules_for("lint")
