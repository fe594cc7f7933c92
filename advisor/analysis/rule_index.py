"""The rule index, `rules/_index.py`: what a run reads of every rule before it knows which files need which rules.

One row per rule: its code, module and class, whether it reads non-Python files (`check_text`, `check_env`),
and the attributes selection, the prefilter and post-processing read (`INDEXED`). The registry builds a
`RuleEntry` from each row, and a run imports a rule's module only when a file needs the rule. Generated from
the rules themselves, never by hand:

    python -m advisor.analysis.rule_index

tests/analysis/test_rule_index.py fails when the committed index is not what this writes.
"""

from __future__ import annotations

import os
import sys
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:
    from typing import Union

    from advisor.rule import Rule

    AnyRule = Union[type[Rule], "RuleEntry"]  # what a run passes around: a rule's class, or its entry

# What start-up reads of every rule, in the index's column order (after module, class and reads_text); RuleEntry
# reads each by its column.
INDEXED = (
    "code",
    "name",
    "since",
    "default_enabled",
    "device",
    "report_only",
    "triggers",
    "unless_project_mentions",
    "said_once_in_tests",
)
# and, last, `text_gate()`: what the file's text must hold for `may_match` (advisor.analysis.text_gate)
COLUMNS = ("module", "cls", "reads_text", *INDEXED, "text_gate")
INDEX_MODULE = "_index"  # rules/_index.py


class RuleEntry(tuple):
    """A rule as the index records it (its row): its indexed attributes answered without importing its module.

    Anything else (its documentation, its window, its visitor) loads the class (`load`) and is read there, so an
    entry stands in for the class wherever a run's rules are passed around. `check_env` and `check_text` load
    only the rules that read non-Python files. A tuple: a run makes one per rule at start-up."""

    __slots__ = ()
    module: str = property(itemgetter(0))  # type: ignore[assignment]
    cls: str = property(itemgetter(1))  # type: ignore[assignment]  # the name its module holds it under
    reads_text: bool = property(itemgetter(2))  # type: ignore[assignment]
    code: str = property(itemgetter(3))  # type: ignore[assignment]
    name: str = property(itemgetter(4))  # type: ignore[assignment]
    since: str = property(itemgetter(5))  # type: ignore[assignment]
    default_enabled: bool = property(itemgetter(6))  # type: ignore[assignment]
    device: str | None = property(itemgetter(7))  # type: ignore[assignment]
    report_only: bool = property(itemgetter(8))  # type: ignore[assignment]
    triggers: tuple[str, ...] = property(itemgetter(9))  # type: ignore[assignment]
    unless_project_mentions: tuple[str, ...] = property(itemgetter(10))  # type: ignore[assignment]
    said_once_in_tests: str | None = property(itemgetter(11))  # type: ignore[assignment]

    def text_gate(self) -> Any:
        return self[12]

    def load(self) -> type[Rule]:
        """The rule's class (its module imported on first use)."""
        from advisor.analysis.registry import rule_by_code

        return rule_by_code(self.code)

    def check_env(self, assignments: Any) -> Iterable[tuple[int, int, str, str]]:
        return self.load().check_env(assignments) if self.reads_text else ()

    def check_text(self, *args: Any) -> Iterable[tuple[int, int, int, str, Any]]:
        return self.load().check_text(*args) if self.reads_text else ()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copying, pickling: a tuple's own
            raise AttributeError(name)
        return getattr(self.load(), name)

    def __repr__(self) -> str:
        return f"<rule {self.code} {self.module}.{self.cls}>"


def reads_text(rule: type[Rule]) -> bool:
    """Whether the rule reads Dockerfiles, scripts or metadata files (overrides `check_env` or `check_text`)."""
    from advisor.rule import Rule

    return any(getattr(rule, m).__func__ is not getattr(Rule, m).__func__ for m in ("check_env", "check_text"))


def row(rule: type[Rule]) -> tuple:
    """The rule's row of the index."""
    indexed = (getattr(rule, name) for name in INDEXED)
    return (rule.__module__, _attribute(rule), reads_text(rule), *indexed, rule.text_gate())


def _attribute(rule: type[Rule]) -> str:
    """The name its module holds the rule under (a table's generated classes are held under their rule names)."""
    return next(name for name, value in vars(sys.modules[rule.__module__]).items() if value is rule)


def mismatch(rule: type[Rule], entry: RuleEntry) -> str | None:
    """What the class says otherwise than its row (None: nothing): the index is stale."""
    for name, now, then in zip(COLUMNS, row(rule), entry):
        if now != then:
            return f"{rule.code} {name}: {now!r}, indexed {then!r}"
    return None


def rule_modules(folder: str, package: str) -> frozenset[str]:
    """The dotted names of the rule modules under `folder` (families one level down), as the index lists them."""
    out: set[str] = set()
    with os.scandir(folder) as top:
        for item in top:
            if item.is_dir() and os.path.exists(os.path.join(item.path, "__init__.py")):
                with os.scandir(item.path) as family:
                    out.update(f"{package}.{item.name}.{f.name[:-3]}" for f in family if _is_rule_module(f.name))
            elif _is_rule_module(item.name):
                out.add(f"{package}.{item.name[:-3]}")
    return frozenset(out)


def _is_rule_module(name: str) -> bool:
    return name.endswith(".py") and not name.startswith("_")


def render(rules: Iterable[type[Rule]]) -> str:
    """The text of rules/_index.py for these rules."""
    lines = [
        '"""Generated by `python -m advisor.analysis.rule_index` from the rules: never edit by hand',
        '(tests/analysis/test_rule_index.py fails when it is stale)."""',
        "",
        "# fmt: off",
        f"COLUMNS = {COLUMNS!r}",
        "RULES = (",
        *(f"    {row(r)!r}," for r in rules),
        ")",
        "",
    ]
    return "\n".join(lines)


def index_path() -> str:
    from advisor.analysis.registry import rules_package

    return os.path.join(rules_package().__path__[0], f"{INDEX_MODULE}.py")


def main() -> None:
    from advisor.analysis.registry import all_rules

    with open(index_path(), "w", encoding="utf-8") as f:
        f.write(render(all_rules()))
    print(f"wrote {index_path()} ({len(all_rules())} rules)")


if __name__ == "__main__":
    main()
