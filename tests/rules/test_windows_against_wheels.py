"""Every release window of every torch rule and table entry, checked against the wheels' API index.

The index (docs/evidence/torch-api-index.json.gz) is mined from the torch wheels 2.0.0 ... 2.15.0
by `tools/mine_deprecations.py --index` (docs/coverage.md, "The API index"); it is committed, so
this test needs no network and no wheel. For each window of a rule (a table's entries each have
their own), with the old API names it is about and the replacement's:

* `since`           = the first release where every replacement name exists;
* `deprecated_in`   = the first release where an old name warns or is decorated deprecated
                      (None: it warns from 2.0 on, or never);
* `removed_in`      = the first release where the old names are gone or raise with removal wording;
* `undeprecated_in` = the first release, after the deprecation, where the warning is gone again.

Names map to the index through `names` (a rule's or a table's `Symbol`s), a table's entries
(`old` / `new`; a keyword change checks `func(keyword=)`), or a rule's `window_apis`. A window
field the index cannot settle (a warning raised from C++, a behaviour change without a warning)
is a declared exception: `window_exceptions` maps "field" or "old-name field" to the reason,
which the rule's documentation must state.
"""

from __future__ import annotations

from dataclasses import dataclass

import json
import re

import pytest

from advisor.analysis.registry import all_rules
from advisor.core import plain
from advisor.core.findings import Window
from advisor.core.versions import parse_version
from advisor.rule import Symbol
from tests.tool_modules import load_tool
from tests.conftest import REPO as ROOT

INDEX_PATH = ROOT / "docs" / "evidence" / "torch-api-index.json.gz"
CXX_PATH = ROOT / "docs" / "evidence" / "torch-cxx-texts.json"
FIELDS = ("since", "deprecated_in", "removed_in", "undeprecated_in")

# Rules whose windows disagree with the index and are not reconciled yet (issue #24, left open): each mismatch is
# either a wrong window or a warning the miner cannot see (C++ TORCH_WARN, a keyword's or a method's warning, a module
# `__getattr__`), which the rule must then declare in `window_exceptions` with its evidence. Their mismatches are
# printed with `-s`; the list may only shrink (test_unreconciled_codes_still_mismatch).
UNRECONCILED: frozenset[str] = frozenset()  # issue #37: each mismatch is now a fixed window or a declared exception

miner = load_tool("miner")
INDEX = miner.Index.read(INDEX_PATH)
# Windows speak in minor releases: the .0 of each (2.14.1 is in the index, but a window cannot name it).
MINORS = [(i, ".".join(v.split(".")[:2])) for i, v in enumerate(INDEX.releases) if v.endswith(".0")]


@dataclass(frozen=True)
class Checked:
    rule: str
    old: str  # the window's key: an old qualified name, or the rule's code
    olds: tuple[str, ...]
    news: tuple[str, ...]
    window: Window


def windows_of(rule) -> list[Checked]:
    """Each window of a torch rule with the API names it is about; [] when the rule names none."""
    row = getattr(rule, "row", None)
    if row is not None:
        if row.keyword:
            return [Checked(rule.code, e.old, (f"{e.old}({row.keyword}=)",), (), e.window(row)) for e in row.entries]
        return [Checked(rule.code, e.old, (e.old,), (e.new,) if e.new else (), e.window(row)) for e in row.entries]
    apis = getattr(rule, "window_apis", None)
    if apis:
        return [Checked(rule.code, rule.code, tuple(apis.get("old", ())), tuple(apis.get("new", ())), rule.window())]
    names = getattr(rule, "names", ())
    if isinstance(names, dict) and all(isinstance(s, Symbol) for s in names.values()):
        out = []
        for q, s in names.items():
            w = s.window or (plain.replace(rule.window(), since=s.since) if s.since else rule.window())
            out.append(Checked(rule.code, q, (q,), (s.replacement,) if s.replacement else (), w))
        return out
    if isinstance(names, dict) and all(isinstance(s, str) for s in names.values()):  # old -> replacement
        return [Checked(rule.code, q, (q,), (new,), rule.window()) for q, new in names.items()]
    return [Checked(rule.code, q, (q,), (), rule.window()) for q in names]


def warns(name: str) -> set[int]:
    """Releases where `name` warns or is decorated, or its module warns on import about itself."""
    out = set(INDEX.warns(name))
    parts = name.partition("(")[0].split(".")
    for i in range(2, len(parts)):
        module = ".".join(parts[:i])
        out |= {
            r
            for e in INDEX.events(module, ("warn", "deprecated-decorator"))
            if module in e["message"] or f"`{parts[i - 1]}`" in e["message"]
            for r in e["releases"]
        }
    return out


def first(indices: set[int]) -> str | None:
    return next((minor for i, minor in MINORS if i in indices), None)


def expected(c: Checked) -> dict[str, str | None]:
    """What the index says for each field it can settle (a field it cannot is left out)."""
    out: dict[str, str | None] = {}
    news_present = [INDEX.present(n) for n in c.news]
    if news_present and all(news_present):
        out["since"] = first(set.intersection(*news_present))
    olds_present = [INDEX.present(n) for n in c.olds]
    warns_in = set().union(*(warns(n) for n in c.olds)) if c.olds else set()
    raises = set().union(*(INDEX.raises(n) for n in c.olds)) if c.olds else set()
    out["deprecated_in"] = first(warns_in)
    out["undeprecated_in"] = None
    if warns_in:  # the first release after the last warning that still binds the old API
        later = [i for i, _ in MINORS if i > max(warns_in) and i not in raises and any(i in p for p in olds_present)]
        out["undeprecated_in"] = first(set(later[:1]))
    if any(olds_present):  # names the index knows: gone = no release binds any of them any more
        seen = set().union(*olds_present)
        gone = {i for i, _ in MINORS if i > min(seen) and i not in seen}
        gone = {i for i in gone if all(j not in seen for j in range(i, len(INDEX.releases)))}
        out["removed_in"] = first(gone | raises)
    elif raises:
        out["removed_in"] = first(raises)
    return out


def _same(field: str, claimed: str | None, found: str | None) -> bool:
    if field == "since":
        return parse_version(claimed or "2.0") <= parse_version("2.0") if found == "2.0" else claimed == found
    if field == "deprecated_in" and found == "2.0":
        return claimed is None or parse_version(claimed) <= (2, 0)  # warned before 2.0 (e.g. "1.9")
    return claimed == found


def mismatches(c: Checked, rule) -> list[str]:
    want = expected(c)
    exceptions = getattr(rule, "window_exceptions", {}) or {}
    out = []
    for field in FIELDS:
        if field not in want:
            continue
        claimed = getattr(c.window, field)
        if _same(field, claimed, want[field]):
            continue
        if field in exceptions or f"{c.old} {field}" in exceptions:
            continue
        out.append(f"{c.rule} {c.old}: {field} = {claimed!r}, the wheels say {want[field]!r}")
    return out


def torch_rules():
    """The hand-written torch rules (ADV001-ADV003 take their windows from this index: nothing to check)."""
    return [r for r in all_rules() if r.library is None and not r.code.startswith("ADV0")]


def all_checked() -> list[tuple[type, Checked]]:
    return [(r, c) for r in torch_rules() for c in windows_of(r)]


def test_the_index_covers_every_release_and_reads_back_byte_for_byte(tmp_path):
    minors = [m for _, m in MINORS]
    assert minors[0] == "2.0" and minors[-1] == "2.15" and len(minors) == 16, INDEX.releases
    assert INDEX.present("torch.nn.functional.interpolate") == set(range(len(INDEX.releases)))
    # generated, never edited by hand: writing what was read gives the same bytes
    again = tmp_path / INDEX_PATH.name
    miner.write_index(INDEX.data, again)
    assert again.read_bytes() == INDEX_PATH.read_bytes()


def test_declared_window_exceptions_are_documented():
    for r in torch_rules():
        for key, reason in (getattr(r, "window_exceptions", {}) or {}).items():
            assert key.rsplit(" ", 1)[-1] in FIELDS, f"{r.code}: window_exceptions key {key!r}"
            assert reason.strip() and reason in r.doc(), (
                f"{r.code}: the exception for {key!r} must be stated in its docs"
            )


def test_declared_window_exceptions_are_still_needed():
    """An exception whose field now matches the wheels everywhere it applies (the miner learnt to see it) goes."""
    needed: set[tuple[str, str]] = set()
    for r, c in all_checked():
        want = expected(c)
        for field in FIELDS:
            if field in want and not _same(field, getattr(c.window, field), want[field]):
                needed.update({(r.code, field), (r.code, f"{c.old} {field}")})
    stale = [
        f"{r.code} {key!r}"
        for r in torch_rules()
        for key in (getattr(r, "window_exceptions", {}) or {})
        if (r.code, key) not in needed
    ]
    assert not stale, "window exceptions the wheels no longer need:\n" + "\n".join(stale)


def test_every_window_matches_the_wheels():
    checked = all_checked()
    failing, pending = [], []
    for r, c in checked:
        bad = mismatches(c, r)
        (pending if r.code in UNRECONCILED else failing).extend(bad)
    mapped = {r.code for r, _ in checked}
    print(
        f"\nwindows checked: {len(checked)} of {len(mapped)} rules; mismatching: {len(failing)} "
        f"(+{len(pending)} in rules not reconciled yet)"
    )
    for line in pending:
        print("  unreconciled:", line)
    assert len(checked) >= 100, "the window test checks too little: did the name mapping break?"
    assert not failing, "windows that disagree with the wheels (fix the window, or declare why):\n" + "\n".join(failing)


@pytest.mark.parametrize("code", sorted(UNRECONCILED))
def test_unreconciled_codes_still_mismatch(code):
    assert code in {r.code for r in torch_rules()}
    bad = [line for r, c in all_checked() if r.code == code for line in mismatches(c, r)]
    assert bad, f"{code} now matches the wheels: drop it from UNRECONCILED"


def test_cxx_texts_named_by_window_exceptions_are_in_the_wheels():
    """An exception that says `C++ text "..."` names a text mined from the wheels' C++ libraries
    (docs/evidence/torch-cxx-texts.json); for `deprecated_in`, the text first appears in the claimed release
    (or in 2.0.0, for a claim at or before 2.0)."""
    texts = json.loads(CXX_PATH.read_text(encoding="utf-8"))["texts"]
    cited = 0
    for r in torch_rules():
        for key, reason in (getattr(r, "window_exceptions", {}) or {}).items():
            quoted = re.findall(r'C\+\+ text "([^"]+)"', " ".join(reason.split()))
            for text in quoted:
                found = [v for t, v in texts.items() if text in t]
                assert found, f"{r.code} {key}: no C++ text contains {text!r}"
                cited += 1
                if not key.endswith("deprecated_in"):
                    continue
                first = ".".join(min(found, key=lambda v: parse_version(v["first"]))["first"].split(".")[:2])
                for _, c in (p for p in all_checked() if p[0] is r):
                    if key in ("deprecated_in", f"{c.old} deprecated_in"):
                        claimed = c.window.deprecated_in
                        assert claimed == first or (first == "2.0" and parse_version(claimed or "2.0") <= (2, 0)), (
                            f"{r.code} {c.old}: deprecated_in {claimed!r}, but the C++ text {text!r} first appears in {first}"
                        )
    assert cited >= 10, "C++ texts cited by window exceptions: the pattern broke?"
