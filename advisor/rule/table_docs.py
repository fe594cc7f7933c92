"""A generated rename rule's documentation and examples, derived from its table row (advisor.rule.table)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from advisor.core.findings import Applicability
from advisor.rule.base import Example

if TYPE_CHECKING:
    from advisor.rule.table import Entry, Row

NONE = Applicability.NONE


def rename_doc(row: Row) -> str:
    olds = ", ".join(f"`{e.old}`" for e in row.entries)
    first = row.entries[0]
    example = ""
    if first.new:
        call = "(x)" if first.is_call else ""
        kwargs = f"(x, {first.kwargs})" if first.kwargs else call
        example = f"\n\n    Example:\n        y = {first.old}{call}\n        # becomes\n        y = {first.new}{first.suffix}{kwargs}"
    safety = {"safe": "safe", "unsafe": "unsafe", "none": "no automatic fix"}[row.fix.value]
    if row.fix is not NONE and any(e.is_call for e in row.entries):
        safety += (
            " for calls; a reference that is not called (a value in a table, a dict key, a"
            " callback) is rewritten only with --unsafe-fixes, since identity checks or"
            " duplicate keys could change behaviour"
        )
    note = (
        row.fix_note if row.fix is NONE and row.fix_note.startswith("no automatic fix") else f"{safety}; {row.fix_note}"
    )
    return (
        f"{_summary(row)}\n\n"
        f"    What it finds: references to {olds} (through aliases and `from` imports).\n\n"
        f"    Why: {row.why}{example}\n\n"
        f"    Fix safety: {note}" + (f"\n\n    Validation: `{row.validation}`." if row.validation else "")
    )


def _summary(row: Row) -> str:
    """The first line (`advisor rules`, `explain`): what happened to the names, and each one's replacement."""
    olds = ", ".join(f"`{e.old}`" for e in row.entries)
    several = len(row.entries) > 1
    removed = bool(row.removed_in and not row.deprecated_in)
    what = (
        f"{'were' if several else 'was'} removed in {row.removed_in}"
        if removed
        else ("are deprecated" if several else "is deprecated")
    )
    news = [(e.old, f"{e.new}{e.suffix}") for e in row.entries if e.new]
    if not news or (len({new for _, new in news}) == 1 and len(news) == len(row.entries)):
        advice = f"use `{news[0][1]}`" if news else row.advice
        return f"{olds} {what}: {advice or 'no replacement'}."
    if len({new.rpartition(".")[0] for _, new in news}) == 1 and all(
        old.rpartition(".")[2] == new.rpartition(".")[2] for old, new in news
    ):
        return f"{olds} {what}: use the same names in `{news[0][1].rpartition('.')[0]}`."
    groups: dict[tuple[str, str], list[str]] = {}
    for old, new in news:  # a rename inside one module names it once: "in `m`: `a` -> `b`"
        old_module, new_module = old.rpartition(".")[0], new.rpartition(".")[0]
        same = old_module == new_module
        groups.setdefault((old_module, new_module) if same else ("", ""), []).append(
            f"`{old.rpartition('.')[2]}` -> `{new.rpartition('.')[2]}`" if same else f"`{old}` -> `{new}`"
        )
    parts = [(f"in `{m}`: " if m else "") + ", ".join(pairs) for (m, _), pairs in groups.items()]
    rest = f"; otherwise {row.advice}" if row.advice and len(news) < len(row.entries) else ""
    return f"{f'Removed in {row.removed_in}' if removed else 'Deprecated'}: {'; '.join(parts)}{rest}."


def rename_examples(row: Row) -> tuple[list[str], list[Example]]:
    valid: list[str] = list(row.extra_valid)
    invalid: list[Example] = list(row.extra_invalid)
    for entry in row.entries:
        top = entry.old.split(".")[0]
        module, _, name = entry.old.rpartition(".")
        call = "(x)" if entry.is_call else ""
        fixed = None
        if entry.new and row.fix is not NONE and entry.new.split(".")[0] == top:
            new_call = f"(x, {entry.kwargs})" if entry.kwargs else call
            fixed = f"import {top}\nvalue = {entry.new}{entry.suffix}{new_call}\n"
        template = entry.message or row.message
        text = (
            f"`{entry.old}` is deprecated"
            if not template
            else f"`{entry.old}`"
            if "{old}" in template
            else template[:40]
        )
        stated: dict[str, Any] = dict(message=text, line=2, column=9, target=example_target(row, entry))
        invalid.append(Example(f"import {top}\nvalue = {entry.old}{call}\n", fixed=fixed, **stated))
        invalid.append(Example(f"from {module} import {name} as alias_\nvalue = alias_{call}\n", **stated))
        valid.append(f"def f({top}):\n    return {entry.old}{call}\n")
        if entry.new:
            valid.append(f"import {entry.new.split('.')[0]}\nvalue = {entry.new}{entry.suffix}{call}\n")
    return valid, invalid


def example_target(row: Row, entry: Entry) -> str | None:
    """The target its examples run for: a window that ends (undeprecated) at the newest release it names
    inside it; every other window at the default target (None: the newest release the catalogue knows)."""
    found = [
        v
        for v in (entry.since, entry.deprecated_in, entry.removed_in, row.since, row.deprecated_in, row.removed_in)
        if v is not None
    ]
    newest = max(found, key=lambda v: tuple(int(p) for p in v.split("."))) if found else None
    if entry.undeprecated_in or row.undeprecated_in:
        return newest  # inside the window: from the undeprecation on there is nothing to report
    return None  # the default target, the newest release, lies inside every window without an end
