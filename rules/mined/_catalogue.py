"""The mined catalogue (catalogue.json next to this file) and what the ADV0xx rules share.

catalogue.json is generated from the wheels' API index and the coverage ledger by
`tools/mine_deprecations.py --index ... --catalogue rules/mined/catalogue.json` (docs/coverage.md):
every user-facing torch API that the ledger lists without a rule and the index shows removed,
decorated deprecated, warned about on every call, or deprecated as a keyword. Never edited by hand.

Speed: each family is one rule with one dict of names, looked up per reference node (never one
rule per name, never a scan over the list), and one set intersection per file in `may_match`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from advisor.rule import (
    Kind,
    Rule,
    Symbol,
    SymbolRule,
    Window,
    any_match,
    callee_targets,
    cst,
    dotted_name,
    nodes_of,
    prefixes_of,
)

DATA = json.loads((Path(__file__).with_name("catalogue.json")).read_text(encoding="utf-8"))
# Catalogue entries with `silent_from` are `@deprecated(..., category=None)`: documented deprecated, no warning at
# run time (the miner reads the decorator's category; checked on 2.13 for profiler_legacy.profile and
# select_model_mode_for_export): advice, and "warns from" is never claimed.


# Keywords the catalogue calls "un-deprecated" whose parameter in fact disappeared then (the index records no
# signatures, so the miner reads the warning's disappearance as a withdrawal): the wheel's evidence. Removed there.
RAISES = {
    "torch.autograd.gradcheck(check_sparse_nnz=)": ("2.3", "TypeError: no such parameter in 2.3.0 gradcheck.py"),
    "torch.utils.data.Sampler(data_source=)": ("2.10", "TypeError: Sampler.__init__ is gone in 2.10.0 sampler.py"),
}


# Constructors whose deprecated parameter is also passed by position, mostly from a subclass
# (`super().__init__(data_source)`): class -> its `__init__` parameters after `self`, in order.
POSITIONS = {
    "torch.utils.data.Sampler": ("data_source",),  # `__init__(self, data_source=None)`, 2.1.0-2.9.0 sampler.py
}


# Each name of a function with deprecated keywords -> the catalogue's own name (RAISES and messages use it).
ALIAS_OF = {
    alias: func for func, params in DATA["keywords"].items() for e in params.values() for alias in (func, *e["aka"])
}


def window(entry: dict) -> Window:
    return Window("2.0", entry["deprecated_in"], entry["removed_in"], entry["undeprecated_in"])


def silent(api: str, entry: dict) -> dict:
    """The entry as it behaves at run time: a `category=None` deprecation never warns (no `deprecated_in`); an
    "un-deprecated" API that started to raise is removed from that release."""
    if api in RAISES:
        release, evidence = RAISES[api]
        return {**entry, "undeprecated_in": None, "removed_in": release, "raises": evidence}
    return {**entry, "deprecated_in": None, "category": None} if entry.get("silent_from") else entry


def quote(entry: dict) -> str:
    """The wheel's own words, when they say more than the API's name (and, for an API that started to raise, that),
    then the replacement they name (last, so the concise form keeps it: advisor.report.output.concise)."""
    text = entry["message"]
    use = f"; use `{entry['replacement']}`" if entry.get("replacement") else ""
    raises = f"; from torch {entry['removed_in']} it raises ({entry['raises']})" if entry.get("raises") else ""
    return (f': "{text}"' if " " in text.strip() else "") + raises + use


def how(entry: dict) -> str:
    category = entry["category"]
    what = "decorated @deprecated" if category == "@deprecated" else (category or "UserWarning")
    return f"from torch {entry['deprecated_in']}, {what}" if entry["deprecated_in"] else what


def claimed_by(rules: Any, own: str) -> tuple[set[str], set[str], set[tuple[str, str]]]:
    """What the hand rules already report: qualified names, attribute names and (function, keyword)."""
    names: set[str] = set()
    attributes: set[str] = set()
    keywords: set[tuple[str, str]] = set()
    for r in rules:
        if r.code.startswith(own):
            continue
        names.update(r.targets)
        names.update(getattr(r, "names", ()) or ())
        attributes.update(r.attribute_targets)
        row = getattr(r, "row", None)
        if row is not None:
            names.update(e.old for e in row.entries)
            if row.keyword:
                keywords.update((e.old, row.keyword) for e in row.entries)
    return names, attributes, keywords


def symbols(section: str, message: Any) -> dict[str, Symbol]:
    """One `Symbol` per API of a catalogue section, under its name and each alias."""
    out: dict[str, Symbol] = {}
    for api, entry in DATA[section].items():
        entry = silent(api, entry)
        # `Symbol.message` is a format string ({old}, {new}); a wheel's quoted text may hold braces
        text = message(api, entry).replace("{", "{{").replace("}", "}}")
        symbol = Symbol(text, None, window=window(entry))
        for name in (api, *entry["aka"]):
            out[name] = symbol
    return out


def triggers(names: Any) -> tuple[str, ...]:
    return tuple(sorted({q.rpartition(".")[2] for q in names})) or ("\0",)


class MinedNames(SymbolRule):
    """A family over one section of the catalogue: one dict of names for the prefilter and the visit."""

    family: ClassVar[str] = "ADV0"
    _lookup: ClassVar[frozenset[str]] = frozenset()
    ast_detection = "mined"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._lookup = frozenset(cls.names)
        cls.triggers = triggers(cls.names)

    @classmethod
    def defer_to(cls, rules: Any) -> None:
        """Registry hook: drop what a hand rule reports (no double findings)."""
        names, attributes, _ = claimed_by(rules, cls.family)
        keep = {q: s for q, s in cls.names.items() if q not in names and q.rpartition(".")[2] not in attributes}
        by_symbol: dict[int, list[str]] = {}
        for q, s in cls.names.items():
            by_symbol.setdefault(id(s), []).append(q)
        for qs in by_symbol.values():  # an API claimed under one of its names is claimed under all
            if any(q not in keep for q in qs):
                for q in qs:
                    keep.pop(q, None)
        cls.names = keep
        cls.targets = tuple(sorted(keep))
        cls.triggers = triggers(keep)
        cls._lookup = frozenset(keep)

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        return not cls._lookup.isdisjoint(refs.dotted_prefixes())  # `import m.gone` too

    @classmethod
    def text_gate(cls) -> Any:
        # A name of the section, or a module named by an import below one (advisor.analysis.text_gate reads both);
        # never a string naming one
        return tuple(sorted(cls._lookup)), (), (), (), (), False

    # Removed APIs fail at the import: report `import m.gone` / `from m import gone` there.
    report_imports: ClassVar[bool] = False

    def visit_Import(self, node: Any) -> None:
        if not self.report_imports:
            return
        self._seen.update(nodes_of(node, cst.Attribute, cst.Name))
        for alias in node.names:
            hit = next((p for p in prefixes_of(dotted_name(alias.name)) if p in self.names), None)
            if hit:
                self.on_reference(alias, hit)

    def visit_ImportFrom(self, node: Any) -> None:
        if not self.report_imports or node.relative or node.module is None:
            return
        self._seen.update(nodes_of(node, cst.Attribute, cst.Name))
        module = dotted_name(node.module)
        hit = next((p for p in prefixes_of(module) if p in self.names), None)
        if hit:
            self.on_reference(node.module, hit)
            return
        for alias in () if isinstance(node.names, cst.ImportStar) else node.names:
            name = f"{module}.{dotted_name(alias.name)}"
            if name in self.names:
                self.on_reference(alias, name)

    def on_reference(self, node: Any, qualname: str) -> None:
        symbol = type(self).names[qualname]
        if symbol.window is not None and symbol.window.deprecated_in is None and symbol.window.removed_in is None:
            self.report(node, symbol.message.format(), kind=Kind.ADVICE)  # documented deprecated, silent
            return
        super().on_reference(node, qualname)

    def match(self, node: Any, targets: Any) -> str | None:
        t = type(node)  # as Rule.match, but no `getattr(m, "name")` call: the catalogue lists names
        if t is not cst.Name and t is not cst.Attribute:
            return None
        return any_match(self.qualnames(node), type(self).names)


class MinedKeywords(Rule):
    """Calls passing a keyword the catalogue lists as deprecated, reported on the keyword."""

    family: ClassVar[str] = "ADV0"
    calls: ClassVar[dict[str, dict[str, dict]]] = {}
    _lookup: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._lookup = frozenset(cls.calls)

    @classmethod
    def defer_to(cls, rules: Any) -> None:
        names, _, keywords = claimed_by(rules, cls.family)
        keep: dict[str, dict[str, dict]] = {}
        for func, params in DATA["keywords"].items():
            aliases = {func, *(a for e in params.values() for a in e["aka"])}
            if aliases & names:
                continue  # a hand rule looks at these calls
            mine = {p: e for p, e in params.items() if not any((a, p) in keywords for a in aliases)}
            for a in aliases if mine else ():
                keep[a] = mine
        cls.calls = keep
        cls.targets = tuple(sorted(keep))
        cls.triggers = triggers(keep)
        cls._lookup = frozenset(keep)

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # A call's name (never a string) that passes one of the function's listed parameters, by keyword or by
        # position (`visit_Call`); any `__init__` given arguments (a subclass's `super().__init__(x)`)
        if cls._lookup.isdisjoint(refs.referenced):
            return False
        inits = [call for call in refs.calls.get("__init__", ()) if _init_with_arguments(call)]
        if inits and cls._listed_init(refs, inits):
            return True
        return any(
            cls._passes_listed(call, callee_targets(refs, call.func, cls._lookup))
            for call in refs.calls_of(cls._lookup)
        )

    @classmethod
    def _listed_init(cls, refs: Any, inits: list[Any]) -> bool:
        """May one of these `__init__` calls (`_callee`) run a listed class's: `super().__init__(x)` where a class's
        first base may be one, `Base.__init__(self, x)` where `Base` may be one (through the imports)?"""
        bases = [c.bases[0] for c in refs.classes if c.bases]
        bases = [b.value if type(b).__name__ == "Subscript" else b for b in bases]  # `Sampler[int]`
        supers = any(cls._may_be_listed(refs, b) for b in bases)
        for call in inits:
            receiver = getattr(call.func, "value", None)
            if receiver is None:  # `getattr(x, "__init__")(...)`: the text cannot tell
                return True
            if type(receiver).__name__ == "Call" and getattr(receiver.func, "id", None) == "super":
                if supers:
                    return True
            elif cls._may_be_listed(refs, receiver):
                return True
        return False

    @classmethod
    def _may_be_listed(cls, refs: Any, node: Any) -> bool:
        if type(node).__name__ not in ("Name", "Attribute"):
            return False
        bound = refs.resolve(node)
        return bound is None or not cls._lookup.isdisjoint(bound)

    @classmethod
    def _passes_listed(cls, call: Any, funcs: set[str] | None) -> bool:
        """Does the `ast` call pass a listed parameter of a function it may call (`funcs`; None: any listed)?"""
        for func in cls._lookup if funcs is None else funcs:
            params, order = cls.calls[func], POSITIONS.get(ALIAS_OF.get(func, func), ())
            if any(k.arg in params for k in call.keywords):
                return True
            for position, arg in enumerate(call.args):
                if type(arg).__name__ == "Starred":
                    break  # positions unknown from here on
                if position < len(order) and order[position] in params:
                    return True
        return False

    @classmethod
    def text_gate(cls) -> Any:
        return tuple(sorted(cls._lookup)), (), (), (), (), False  # a call's name, never a string

    @classmethod
    def needs_whole_module(cls, refs: Any) -> bool:
        return False

    @classmethod
    def kept_lines(cls, refs: Any) -> tuple[int, ...]:
        # A slice keeps a class's header (its first base) but leaves out a method without a trigger, such as
        # `__init__` calling `super().__init__(data_source)`: the statements of such calls with arguments stay.
        return tuple(call.lineno for call in refs.calls.get("__init__", ()) if _init_with_arguments(call))

    def visit_Module(self, node: Any) -> None:
        self._classes: list[str | None] = []  # per enclosing class: its first base, when that is a listed class

    def visit_ClassDef(self, node: Any) -> None:
        base = node.bases[0].value if node.bases else None
        base = base.value if isinstance(base, cst.Subscript) else base  # `Sampler[int]`
        self._classes.append(self._listed(base))

    def leave_ClassDef(self, node: Any) -> None:
        if self._classes:
            self._classes.pop()

    def _listed(self, node: Any) -> str | None:
        if not isinstance(node, (cst.Name, cst.Attribute)):
            return None
        return next((q for q in sorted(self.qualnames(node)) if q in self.calls), None)

    def _callee(self, node: Any) -> tuple[str, int] | None:
        """The listed function a call runs and how many leading positional arguments are not its parameters:
        `f(...)`, a subclass's `super().__init__(...)` and `Base.__init__(self, ...)` (whose `self` is skipped)."""
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
            receiver = func.value
            if isinstance(receiver, cst.Call) and getattr(receiver.func, "value", None) == "super":
                base = self._classes[-1] if getattr(self, "_classes", None) else None
                return (base, 0) if base else None
            base = self._listed(receiver)
            return (base, 1) if base else None
        listed = self._listed(func)
        return (listed, 0) if listed else None

    def visit_Call(self, node: Any) -> None:
        callee = self._callee(node)
        if callee is None:
            return
        func, skip = callee
        params = self.calls[func]
        canonical = ALIAS_OF.get(func, func)
        order = POSITIONS.get(canonical, ())
        position = -skip
        for arg in node.args:
            if arg.star:
                position = len(order)  # positions unknown from here on
            name = (
                arg.keyword.value
                if arg.keyword is not None
                else (order[position] if 0 <= position < len(order) else None)
            )
            position += arg.keyword is None
            if name not in params:
                continue
            entry = silent(f"{canonical}({name}=)", params[name])
            how_passed = f"`{name}=`" if arg.keyword is not None else f"`{name}` (passed by position)"
            self.report(
                arg,
                f"{how_passed} of `{canonical}` is deprecated ({how(entry)}){quote(entry)}",
                window=window(entry),
            )


def _init_with_arguments(call: Any) -> bool:
    """`super().__init__(x)` or `Base.__init__(self, x)` (an `ast` call): arguments a listed class may deprecate."""
    receiver = getattr(call.func, "value", None)
    own = 0 if type(receiver).__name__ == "Call" and getattr(receiver.func, "id", None) == "super" else 1
    return len(call.args) + len(call.keywords) > own
