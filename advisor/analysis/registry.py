"""Rule discovery: every `Rule` subclass with a code in the `advisor.rules` package and its subpackages.

No hand-kept list: dropping a file into `rules/` (or a family folder under it)
registers its rules. Modules whose name starts with `_` hold helpers, not rules.

Start-up reads the rule index instead of the rules (`rules/_index.py`, generated from them by
`python -m advisor.analysis.rule_index`): each rule's code, module, triggers and what selection and
post-processing read (`RuleEntry`). A rule's module is imported when a file needs the rule
(`rule_by_code`), so a run whose files hold no trigger imports no rule module and no LibCST. `all_rules()`
imports them all (listings, the report, the tests). A rule module the index does not name (or names and
is gone) makes the run read every rule instead; a rule whose class says otherwise than its row stops
the run. tests/analysis/test_rule_index.py fails when the index is stale.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import sys
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from advisor.analysis.rule_index import INDEX_MODULE, RuleEntry, mismatch, row, rule_modules
from advisor.core.lazy import import_module
from advisor.core.selector import EVERY, Selector

if TYPE_CHECKING:
    from advisor.rule import Rule

_CODE = re.compile(r"^ADV\d{3}$")


class RuleSelectionError(ValueError):
    pass


class Family(NamedTuple):  # not a dataclass: made at every start-up, read only by the report and rule loading
    """A rule family: a folder of `rules/`, with the title and the code ranges its `__init__.py` declares."""

    name: str  # the folder, "capture"
    title: str  # TITLE, "Graph capture"
    codes: Selector  # CODES, ("ADV300-ADV399", ...)


@lru_cache(maxsize=1)
def families() -> dict[str, Family]:
    """Every family of `rules/`, by folder; a family without its manifest (TITLE, CODES) is a bug of ours."""
    package = rules_package()
    out = {}
    import pkgutil

    for info in pkgutil.iter_modules(package.__path__):
        if info.ispkg:
            module = import_module(f"{package.__name__}.{info.name}")
            title, codes = getattr(module, "TITLE", None), getattr(module, "CODES", None)
            if not title or not codes:
                raise RuntimeError(f"{module.__name__}: a rule family declares TITLE and CODES in its __init__.py")
            out[info.name] = Family(info.name, title, Selector.of(codes))
    return out


def family_of(code: str) -> Family:
    """The family whose folder holds rule `code`."""
    return families()[entry_by_code(code).module.split(".")[2]]


def _check_family(module: str, rule: type[Rule]) -> None:
    family = families().get(module.split(".")[2]) if module.count(".") >= 3 else None
    if family is None or not family.codes.matches(rule.code):
        where = f"outside its family's CODES {family.codes.patterns}" if family else "not in a family folder"
        raise RuntimeError(f"{module}.{rule.__name__}: rule code {rule.code} is {where}")


def rules_package():
    """`advisor.rules`: installed from `rules/`, or (in a source checkout) loaded from it."""
    try:
        import advisor.rules as package

        return package
    except ModuleNotFoundError:
        folder = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "rules")
        spec = importlib.util.spec_from_file_location(
            "advisor.rules", os.path.join(folder, "__init__.py"), submodule_search_locations=[folder]
        )
        if spec is None or spec.loader is None:
            raise
        package = importlib.util.module_from_spec(spec)
        sys.modules["advisor.rules"] = package
        spec.loader.exec_module(package)
        return package


def _rule_modules(package) -> list[str]:
    """Dotted names of the rule modules under `package`, family subpackages included, sorted."""
    import pkgutil

    names = []
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}."):
        if not info.ispkg and not info.name.rpartition(".")[2].startswith("_"):
            names.append(info.name)
    return sorted(names)


@lru_cache(maxsize=1)
def all_rules() -> tuple[type[Rule], ...]:
    """Every rule's class: every rule module imported."""
    from advisor.rule import Rule

    found: dict[str, type[Rule]] = {}
    for name in _rule_modules(rules_package()):
        module = import_module(name)
        for obj in vars(module).values():
            if isinstance(obj, type) and issubclass(obj, Rule) and obj.code and obj.__module__ == module.__name__:
                if not _CODE.match(obj.code):
                    raise RuntimeError(f"{module.__name__}.{obj.__name__}: bad rule code {obj.code!r}")
                other = found.get(obj.code)
                if other is not None and other is not obj:
                    raise RuntimeError(f"rule code {obj.code} is used by {other.__name__} and {obj.__name__}")
                _check_family(module.__name__, obj)
                found[obj.code] = obj
    rules = tuple(found[c] for c in sorted(found))
    for r in rules:
        # A catalogue family (rules/mined) drops what another rule already reports: no double findings.
        defer_to = getattr(r, "defer_to", None)
        if defer_to is not None:
            defer_to(rules)
    return rules


@lru_cache(maxsize=1)
def entries() -> tuple[RuleEntry, ...]:
    """Every rule as the index records it, in code order; from the classes themselves when a rule module is new
    or gone since the index was written."""
    package = rules_package()
    index = import_module(f"{package.__name__}.{INDEX_MODULE}")
    if rule_modules(package.__path__[0], package.__name__) != {r[0] for r in index.RULES}:
        return tuple(RuleEntry(row(r)) for r in all_rules())
    return tuple(map(RuleEntry, index.RULES))


@lru_cache(maxsize=1)
def _by_code() -> dict[str, RuleEntry]:
    return {e.code: e for e in entries()}


def entry_by_code(code: str) -> RuleEntry:
    entry = _by_code().get(code.upper())
    if entry is None:
        raise RuleSelectionError(f"unknown rule code: {code}")
    return entry


def rule_by_code(code: str) -> type[Rule]:
    """Rule `code`'s class: its module imported (every module, for a rule that reads the others: `defer_to`)."""
    return _load(entry_by_code(code).code)


@lru_cache(maxsize=None)
def _load(code: str) -> type[Rule]:
    entry = _by_code()[code]
    if all_rules.cache_info().currsize:
        return next(r for r in all_rules() if r.code == code)
    rule = getattr(import_module(entry.module), entry.cls, None)
    if rule is None or rule.code != code:
        raise RuntimeError(
            f"rules/{INDEX_MODULE}.py is stale ({entry.module}.{entry.cls} is not {code}): {_REGENERATE}"
        )
    if hasattr(rule, "defer_to"):
        return next(r for r in all_rules() if r.code == code)
    _check_family(entry.module, rule)
    stale = mismatch(rule, entry)
    if stale:
        raise RuntimeError(f"rules/{INDEX_MODULE}.py is stale ({stale}): {_REGENERATE}")
    return rule


_REGENERATE = "run `python -m advisor.analysis.rule_index`"


def _expand(selector: str, codes: list[str]) -> set[str]:
    sel = selector.strip().upper()
    found = set(Selector.of([sel]).among(codes))
    if not found or not (sel in EVERY or re.match(r"^ADV\d{0,3}$", sel)):
        raise RuleSelectionError(f"unknown rule code or prefix: {selector.strip()}")
    return found


def _codes() -> list[str]:
    return [e.code for e in entries()]


def rules_matching(selector: str) -> list[type[Rule]]:
    """`explain`'s lookup: a code, a prefix (ADV7) or a rule name (amp-autocast, or its start)."""
    rules = entries()
    try:
        chosen = _expand(selector, _codes())
        return [r.load() for r in rules if r.code in chosen]
    except RuleSelectionError:
        pass
    name = selector.strip().lower().replace("_", "-")
    exact = [r for r in rules if r.name == name]
    found = exact or [r for r in rules if r.name.startswith(name)]
    if not found:
        raise RuleSelectionError(f"no rule has the code, prefix or name {selector.strip()!r} (see `advisor rules`)")
    return [r.load() for r in found]


def check_codes(selectors: list[str]) -> None:
    """RuleSelectionError for the first selector that names no rule."""
    for s in selectors:
        _expand(s, _codes())


def select_entries(
    select: list[str] | None = None, ignore: list[str] | None = None, extend: list[str] | None = None
) -> list[RuleEntry]:
    """Rules picked by `--select` / `--ignore` (codes or prefixes like ADV2); `extend`: Ruff's extend-select.
    Their index entries: no rule module is imported."""
    rules, codes = entries(), _codes()
    chosen = set()
    for s in select or [None]:  # type: ignore[list-item]  # None: the default set
        # The default set and `ADV` leave the opt-in rules off; `ALL` means all of them (Ruff's ALL), as does a code or prefix.
        picked = _expand(s or "ALL", codes)
        if s is None or s.strip().upper() == "ADV":
            picked = {c for c in picked if entry_by_code(c).default_enabled}
        chosen |= picked
    for s in extend or []:
        chosen |= _expand(s, codes)
    for s in ignore or []:
        chosen -= _expand(s, codes)
    return [r for r in rules if r.code in chosen]


def select_rules(
    select: list[str] | None = None, ignore: list[str] | None = None, extend: list[str] | None = None
) -> list[type[Rule]]:
    """The classes of the rules `select_entries` picks."""
    return [r.load() for r in select_entries(select, ignore, extend)]
