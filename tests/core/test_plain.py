"""`advisor.core.plain` classes behave as the dataclasses they replaced: equality, hash, repr, pickling, frozen."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from advisor.core import plain
from advisor.core.findings import FileError, FileResult, ScanResult, Window
from advisor.core.pins import Bounds, Pin
from advisor.core.selector import Selector
from advisor.run.engine import ScanOptions
from advisor.core.settings import Settings


@dataclasses.dataclass(frozen=True)
class WindowAsDataclass:
    since: str = "2.0"
    deprecated_in: str | None = None
    removed_in: str | None = None
    undeprecated_in: str | None = None


def test_a_frozen_class_equals_hashes_and_shows_as_its_dataclass_did():
    w, d = Window("2.1", removed_in="2.4"), WindowAsDataclass("2.1", removed_in="2.4")
    assert repr(w) == repr(d).replace("WindowAsDataclass", "Window")
    assert hash(w) == hash(d) == hash(Window("2.1", None, "2.4", None))
    assert w == Window("2.1", removed_in="2.4") and w != Window("2.2", removed_in="2.4")
    assert w != d  # another class is never equal, as with dataclasses
    assert {w, Window("2.1", removed_in="2.4")} == {w}


def test_a_frozen_class_refuses_changes():
    w = Window("2.1")
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.since = "2.2"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del w.since  # type: ignore[misc]
    with pytest.raises(AttributeError):
        w.other = 1  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "value",
    [
        Window("2.1", "2.3"),
        FileError("a.py", "bad"),
        Pin("torch", ">=2.1", "requirements.txt:1", "install"),
        Bounds((2, 1), None, "x", None, Pin("torch", ">=2.1", "r:1", "install")),
        Selector(("ADV1",)),
        FileResult("a.py", errors=[FileError("a.py", "bad")], suppressed=2, parsed=True),
        ScanResult([FileResult("a.py")], files_scanned=3),
    ],
)
def test_values_survive_pickling_and_copying(value):
    for again in (pickle.loads(pickle.dumps(value)), copy.copy(value), copy.deepcopy(value)):
        assert again == value and type(again) is type(value)


def test_private_state_is_kept_by_pickling_but_not_compared_or_shown():
    options = ScanOptions([], Settings())
    options._prefilter = "built"  # type: ignore[assignment]
    again = pickle.loads(pickle.dumps(options))
    assert again._prefilter == "built" and again == ScanOptions([], Settings())
    assert "_prefilter" not in repr(options)


def test_replace_makes_a_changed_copy_as_dataclasses_replace_does():
    w = Window("2.1", deprecated_in="2.3")
    assert plain.replace(w, since="2.2") == Window("2.2", deprecated_in="2.3") and w.since == "2.1"
    with pytest.raises(TypeError):
        plain.replace(w, bogus=1)


def test_mutable_classes_are_unhashable_and_have_fresh_defaults():
    a, b = FileResult("a.py"), FileResult("a.py")
    a.findings.append("x")  # type: ignore[arg-type]
    assert b.findings == [] and a != b
    with pytest.raises(TypeError):
        hash(b)


def test_settings_take_their_declared_fields_by_keyword_only_and_survive_pickling():
    s = Settings(select=("ADV7",), jobs=2)
    assert s.select == ("ADV7",) and s.jobs == 2 and s.ignore == () and s.versions == Settings().versions
    assert repr(s).startswith("Settings(root='.', config_path=None, select=('ADV7',), extend_select=()")
    assert pickle.loads(pickle.dumps(s)) == s and hash(s) == hash(Settings(select=("ADV7",), jobs=2))
    assert plain.replace(s, jobs=3) == Settings(select=("ADV7",), jobs=3)
    with pytest.raises(TypeError, match="bogus"):
        Settings(bogus=1)


@dataclasses.dataclass(frozen=True)
class FindingAsGenerated:  # Finding as @dataclass(frozen=True) generated it before its methods were written out
    rule: str
    name: str
    severity: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    message: str
    fix: str | None
    validation: str | None
    replacement: str | None = None
    snippet: str = ""
    data: dict = dataclasses.field(default_factory=dict, hash=False, compare=False)
    kind: str = "advice"
    warns_from: str | None = None
    breaks_in: str | None = None


def test_finding_written_out_is_the_dataclass_it_was():
    from advisor.core.findings import Finding

    args = ("ADV1", "n", "error", "a.py", 1, 2, 1, 5, "m", "safe", None)
    for kw in ({}, {"data": {"cell": 2}, "kind": "breaking", "breaks_in": "2.4"}, {"snippet": "x", "replacement": "y"}):
        new, old = Finding(*args, **kw), FindingAsGenerated(*args, **kw)  # type: ignore[arg-type]
        assert repr(new) == repr(old).replace("FindingAsGenerated", "Finding")
        assert hash(new) == hash(old) and dataclasses.asdict(new) == dataclasses.asdict(old)
        assert new == dataclasses.replace(new, data={"other": 1}) != dataclasses.replace(new, line=9)
        assert pickle.loads(pickle.dumps(new)) == new and Finding(*args).data == {}
        with pytest.raises(dataclasses.FrozenInstanceError):
            new.line = 3  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(Finding)] == [f.name for f in dataclasses.fields(FindingAsGenerated)]
