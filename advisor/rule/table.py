"""The table generator: one `Row` of data becomes one rule class.

Two kinds of row share the one `Row` shape:

- a *rename* (`keyword` unset): the `entries` are old qualified names, each with
  its replacement (or none: advice only); the rule is a `SymbolRule`;
- a *keyword change* (`keyword` set): the `entries` name the functions whose
  `keyword=` argument is renamed to `new_keyword`, dropped (no `new_keyword`),
  or only advised against (`fix=NONE`).

Each generated class has its own code, name, docstring (its documentation) and
VALID/INVALID examples, derived from the row. A rules module writes its rows
and calls `generate(TABLE, globals())`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from advisor.core.findings import Applicability, Kind, Safety, Severity, Window
from advisor.core.lazy import cst
from advisor.core.releases import OLDEST
from advisor.rule.base import Example, Rule
from advisor.rule.helpers import append_args, expr, get_arg, rewrite_reference
from advisor.rule.reference import Symbol, SymbolRule
from advisor.rule.table_docs import example_target, rename_doc, rename_examples
from advisor.syntax.names import dotted_name

SAFE, UNSAFE, NONE = Applicability.SAFE, Applicability.UNSAFE, Applicability.NONE


@dataclass(frozen=True)
class Entry:
    old: str  # qualified name (for a keyword change: the function called)
    new: str | None = None  # qualified name; None: no direct replacement (advice only)
    suffix: str = ""  # appended to the new name: "()" turns an attribute into a call
    kwargs: str = ""  # keyword arguments added to a call, e.g. 'mode="nearest"'
    is_call: bool = True  # how the examples use it
    # This entry's release window, where it differs from the row's (None: the row's value).
    since: str | None = None
    deprecated_in: str | None = None
    removed_in: str | None = None
    undeprecated_in: str | None = None
    message: str = ""  # this entry's message template ({old}, {new}), where it differs from the row's
    # The new name's module is not loaded by `import <top>`: a rewrite that needs an import imports that module.
    import_module: bool = False
    # The most positional arguments the new callee takes (its later parameters are keyword-only); None: any.
    positional: int | None = None
    both_or_neither: tuple[str, ...] = ()  # keywords the new callee takes together or not at all (rtol/atol)

    def window(self, row: "Row") -> Window:
        pick = lambda mine, rows: rows if mine is None else mine  # noqa: E731
        return Window(
            pick(self.since, row.since),
            pick(self.deprecated_in, row.deprecated_in),
            pick(self.removed_in, row.removed_in),
            pick(self.undeprecated_in, row.undeprecated_in),
        )


def calls(*funcs: str) -> tuple[Entry, ...]:
    """The entries of a keyword-change row: the functions that take the keyword."""
    return tuple(Entry(f) for f in funcs)


@dataclass(frozen=True)
class Row:
    code: str
    name: str
    entries: tuple[Entry, ...]
    why: str  # the warning text, or why it matters
    fix: Applicability = SAFE
    fix_note: str = "the replacement is a drop-in rename."
    since: str = OLDEST  # the replacement exists from this torch version
    deprecated_in: str | None = None
    removed_in: str | None = None
    undeprecated_in: str | None = None
    kind: Kind | None = None  # None: from the window, else from `severity` (advisor.core.policy)
    safety: Safety | None = None  # the fix only does what the old code did from `safety.same_from` on
    message: str = ""  # the message template ({old}, {new}); default "`{old}` is deprecated; use `{new}`"
    severity: Severity = Severity.WARNING
    validation: str | None = None
    advice: str = ""  # what to do when there is no replacement
    cost: str = ""  # what the rewrite changes beyond the name, said in every message
    keyword: str | None = None  # set: a keyword change of the calls in `entries`
    new_keyword: str | None = None  # its new name; None drops it (or advises, when fix is NONE)
    only_truthy: bool = False  # keyword changes: a literal False / None / 0 is not reported (torch ignores it)
    only_falsy: bool = False  # keyword changes: a literal True / non-zero number is not reported (torch warns on falsy)
    example_call: str = "(x, {kw}=v)"  # keyword changes: the arguments the examples pass
    extra_valid: tuple[str, ...] = ()
    extra_invalid: tuple[Example, ...] = field(default_factory=tuple)
    # Renames of removed names: `from mod import old` is reported too (the import itself fails once it is gone).
    report_imports: bool = False
    # Window fields the wheels' API index cannot settle (tests/rules/test_release_windows.py):
    # ("field" or "old-name field", why); the reason is added to the docs.
    window_exceptions: tuple[tuple[str, str], ...] = ()


class Rename(SymbolRule):
    """Base of the rules generated from rename rows."""

    row: Row
    ast_detection = "rename"

    def on_reference(self, node: Any, qualname: str) -> None:
        entry, message = self._entries[qualname], self.names[qualname].message
        window = entry.window(self.row)
        if node in self._no_fix:
            self.report(node, message + " (assigned to here: not rewritten)", window=window)
            return
        if entry.new is None or entry.kwargs or type(self).fix is NONE:
            self.report(node, message, window=window)  # calls with kwargs are fixed in on_call
            return
        new, imports = rewrite_reference(self.ctx.resolver, node, entry.new)
        if imports and entry.import_module:
            imports = [(entry.new.rpartition(".")[0], None)]
        if entry.suffix:
            new = expr(self.ctx.code_for(new) + entry.suffix)
        new = new.with_changes(lpar=node.lpar, rpar=node.rpar)
        applicability = self.reference_applicability(node, None) if entry.is_call else None
        self.report(node, message, replacement=new, add_imports=imports, applicability=applicability, window=window)

    def on_call(self, node: Any, qualname: str) -> None:
        entry = self._entries[qualname]
        if not entry.kwargs or entry.new is None or type(self).fix is NONE or node.func in self._no_fix:
            super().on_call(node, qualname)  # the callee is handled as a reference
            return
        self._called.add(node.func)
        passed = {a.keyword.value for a in node.args if a.keyword is not None}
        positional = [a for a in node.args if a.keyword is None]
        pair = set(entry.both_or_neither)
        if (
            any(a.star for a in node.args)
            or (entry.positional is not None and len(positional) > entry.positional)
            or (pair and passed & pair and not pair <= passed)
        ):
            # `**kw` may hold an added keyword; extra positionals would land on keyword-only parameters
            self.report(node, self.names[qualname].message, window=entry.window(self.row))
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, entry.new)
        # a keyword the caller passes is the caller's choice (and passing it twice is a SyntaxError)
        added = [a for a in expr(f"f({entry.kwargs})").args if a.keyword.value not in passed]
        new = append_args(node.with_changes(func=func), added) if added else node.with_changes(func=func)
        self.report(
            node, self.names[qualname].message, replacement=new, add_imports=imports, window=entry.window(self.row)
        )

    @property
    def _entries(self) -> dict[str, Entry]:
        return {e.old: e for e in self.row.entries}

    @classmethod
    def windows(cls) -> list[Window]:
        return [e.window(cls.row) for e in cls.row.entries]


class ReportsImports(Rename):
    """A rename row with `report_imports`: `from torch.export import dynamic_dim` fails on the import line once the
    name is gone; it is reported there when nothing else in the file is (re-exported, or used in a way no rule
    sees). Its own class, so that the other rows' rules are not called for every import."""

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._imported: list[tuple[Any, str]] = []  # (alias name, qualified name)

    def visit_ImportFrom(self, node: Any) -> None:
        if node.relative or isinstance(node.names, cst.ImportStar):
            return
        module = dotted_name(node.module)
        for alias in node.names:
            qualname = f"{module}.{dotted_name(alias.name)}"
            if qualname in self.names:
                self._imported.append((alias.name, qualname))

    def leave_Module(self, node: Any) -> None:
        used = self._reported_names({r.node for r in self.ctx.reports if r.rule is self})
        for name, qualname in self._imported:
            if qualname not in used:
                message = f"{self.names[qualname].message} (the import fails with ImportError)"
                self.report(name, message, window=self._entries[qualname].window(self.row))

    def _reported_names(self, reported: set) -> set[str]:
        return {q for n in reported for q in self.qualnames(n.func if isinstance(n, cst.Call) else n)}

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        return super().may_match(refs) or not refs.imports.isdisjoint(cls.names)


class KeywordChange(Rule):
    """Base of the rules generated from keyword-change rows."""

    row: Row
    reports_at_references = True  # at calls of its targets
    statement_local = True  # the call's own arguments

    def visit_Call(self, node: Any) -> None:
        row = self.row
        qualname = self.match(node.func, self.targets)
        if qualname is None:
            return
        arg = get_arg(node, row.keyword)
        if arg is None or (row.only_truthy and _falsy_literal(arg.value)) or (row.only_falsy and _truthy(arg.value)):
            return
        if row.message:
            what = ""
        elif row.new_keyword:
            what = f"rename it to `{row.new_keyword}`"
        else:
            what = "drop it" if row.fix is not NONE else "see the rule docs"
        message = (
            row.message.format(old=qualname)
            if row.message
            else f"`{row.keyword}=` of `{qualname}` is deprecated; {what}"
        )
        window = next(e for e in row.entries if e.old == qualname).window(row)
        if row.fix is NONE:
            self.report(node, message, window=window)
        elif row.new_keyword:
            self.report(
                node,
                message,
                replacement=arg.with_changes(keyword=cst.Name(row.new_keyword)),
                fix_node=arg,
                window=window,
            )
        else:
            args = list(node.args)
            index = args.index(arg)
            del args[index]
            if index == len(args) and args:  # it was last: the new last argument takes its comma
                args[-1] = args[-1].with_changes(comma=arg.comma)
            self.report(node, message, replacement=node.with_changes(args=args), window=window)

    @classmethod
    def windows(cls) -> list[Window]:
        return [e.window(cls.row) for e in cls.row.entries]


def _truthy(value: Any) -> bool:
    if isinstance(value, cst.Name):
        return value.value == "True"
    return isinstance(value, (cst.Integer, cst.Float)) and value.evaluated_value != 0


def _falsy_literal(value: Any) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("False", "None")
    return isinstance(value, cst.Integer) and value.value == "0"


def generate(rows: tuple[Row, ...], namespace: dict[str, Any]) -> None:
    """Define one rule class per row in `namespace` (a rules module's `globals()`)."""
    for row in rows:
        make = _keyword_class if row.keyword else _rename_class
        namespace[row.name] = make(row, namespace["__name__"])


def _common_attrs(row: Row, module: str) -> dict[str, Any]:
    return dict(
        __module__=module,
        row=row,
        code=row.code,
        name=row.name,
        severity=row.severity,
        since=row.since,
        deprecated_in=row.deprecated_in,
        removed_in=row.removed_in,
        undeprecated_in=row.undeprecated_in,
        kind=row.kind,
        safety=row.safety,
        fix=row.fix,
        validation=row.validation,
        window_exceptions=dict(row.window_exceptions),
    )


def _window_notes(row: Row) -> str:
    reasons = dict.fromkeys(why for _, why in row.window_exceptions)
    return "".join(f"\n\n    Window: {why}" for why in reasons)


def entry_window(row: Row, entry: Entry) -> Window | None:
    """The entry's own window, or None when it is the row's."""
    fields = ("since", "deprecated_in", "removed_in", "undeprecated_in")
    if all(getattr(entry, f) is None for f in fields):
        return None
    return Window(**{f: getattr(entry, f) if getattr(entry, f) is not None else getattr(row, f) for f in fields})


def _class_name(row: Row) -> str:
    return "".join(p.capitalize() for p in row.name.split("-"))


# -- renames -------------------------------------------------------------


def _rename_class(row: Row, module: str) -> type:
    if row.message:
        message = row.message
    elif len(row.entries) == 1 and row.entries[0].new is None:
        message = "`{old}` is deprecated; " + row.advice
    elif row.fix is not NONE:
        message = "`{old}` is deprecated; use `{new}`"
    else:
        message = "`{old}` is deprecated; " + (row.advice or "use `{new}`")
    symbols = {}
    for e in row.entries:
        msg = e.message or (message if e.new or row.message else "`{old}` is deprecated; " + row.advice)
        msg = msg.replace("{new}", f"{e.new}{e.suffix}" if e.new else "")
        msg += f"; {row.cost}" if row.cost and e.new else ""
        symbols[e.old] = Symbol(msg.replace("{old}", e.old), e.new, since=e.since, window=entry_window(row, e))
    valid, invalid = rename_examples(row)
    attrs = _common_attrs(row, module)
    attrs.update(
        __doc__=rename_doc(row) + _window_notes(row),
        message=message,
        triggers=tuple(sorted({e.old.rpartition(".")[2] for e in row.entries})),
        names=symbols,
        valid=valid,
        invalid=invalid,
    )
    return type(_class_name(row), (ReportsImports if row.report_imports else Rename,), attrs)


# -- keyword changes -----------------------------------------------------


def _keyword_fixed(row: Row, func: str, call: str) -> str | None:
    if row.fix is NONE:
        return None
    if row.new_keyword:
        new_call = call.replace(f"{row.keyword}=", f"{row.new_keyword}=")
    else:  # drop the argument and the separator before it
        new_call = re.sub(rf",\s*{row.keyword}=[^,)]*", "", call)
        new_call = re.sub(rf"\(\s*{row.keyword}=[^,)]*,?\s*", "(", new_call)
    return f"import {func.split('.')[0]}\nvalue = {func}{new_call}\n"


def _keyword_class(row: Row, module: str) -> type:
    funcs = tuple(e.old for e in row.entries)
    func = funcs[0]
    qualifier, _, short = func.rpartition(".")
    call = row.example_call.format(kw=row.keyword)
    top = func.split(".")[0]
    doc = (
        f"`{row.keyword}=` of {', '.join(f'`{f}`' for f in funcs)} is deprecated.\n\n"
        f"    What it finds: calls passing `{row.keyword}=`, through aliases and `from` imports.\n\n"
        f"    Why: {row.why}\n\n"
        f"    Example:\n        {short}{call}\n\n"
        f"    Fix safety: {'no automatic fix' if row.fix is NONE else row.fix.value}; {row.fix_note}"
    )
    text = row.message[:30] if row.message else f"`{row.keyword}=` of `{func}` is deprecated"
    stated: dict[str, Any] = dict(message=text, line=2, column=9, target=example_target(row, Entry(func)))
    attrs = _common_attrs(row, module)
    attrs.update(
        __doc__=doc + _window_notes(row),
        message=f"`{row.keyword}=` is deprecated",
        triggers=(row.keyword,),
        targets=funcs,
        valid=[
            f"import {top}\nvalue = {func}(x)\n",
            f"def f({top}):\n    return {func}{call}\n",
            *row.extra_valid,
        ],
        invalid=[
            Example(f"import {top}\nvalue = {func}{call}\n", fixed=_keyword_fixed(row, func, call), **stated),
            Example(f"from {qualifier} import {short} as alias_\nvalue = alias_{call}\n", **stated),
            *row.extra_invalid,
        ],
    )
    return type(_class_name(row), (KeywordChange,), attrs)
