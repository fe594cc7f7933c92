"""Qualified names for references, from one cheap pass over a LibCST tree.

LibCST's QualifiedNameProvider costs ~0.36 s a file (it builds full scope
metadata, accesses and assignments). We only need "which imported thing does
this name or attribute chain refer to", so we build Python's scopes ourselves:
module, class, function, lambda and comprehension scopes with their bindings.

Semantics follow Python and LibCST: a name bound anywhere in a function is local
to the whole function; class scopes are invisible from nested scopes; `global`
moves a binding to the module. A name with several bindings resolves to all of
them, so a rule matches if *any* binding is the torch symbol (as LibCST does),
while a parameter or local def that shadows `torch` resolves to no torch name.

Star imports: after `from pkg.mod import *` (or `from .mod import *`), an unbound name `n`
resolves to `pkg.mod.n`; the name `torch` itself also resolves to the `torch` module
(STAR_MODULES). We do not open `pkg.mod` (scanning stays one file at a time);
a star-imported `torch` is the torch module in every project we measured
(DeepSpeed's tests do `from unit.simple_model import *` and then `torch.load`).
"""

from __future__ import annotations

from typing import Iterable

from advisor.core.lazy import cst
from advisor.syntax.references import FIRST_ARG_ONLY, IMPORTING_CALLS, STAR_MODULES
from advisor.syntax.walk import walk

LOCAL = "<local>"  # prefix for names bound by something other than an import


class Scope:
    __slots__ = ("kind", "parent", "bindings", "globals", "nonlocals", "stars")

    def __init__(self, kind: str, parent: "Scope | None") -> None:
        self.kind = kind  # module | class | function | comprehension
        self.parent = parent
        self.bindings: dict[str, set[str]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.stars: list[str] = []  # modules of `from X import *`

    def bind(self, name: str, qualified: str) -> None:
        self.bindings.setdefault(name, set()).add(qualified)


class NameResolver:
    """Walks a module once; afterwards `qualnames(node)` answers for any Name/Attribute."""

    def __init__(self, module: "cst.Module", importing_calls: tuple[str, ...] = IMPORTING_CALLS) -> None:
        self.importing_calls = importing_calls
        # Keyed by id(node): LibCST's node __hash__ is Python-level and slow, and the
        # module (which keeps every node alive) outlives this resolver's use.
        self._scope_of: dict[int, Scope] = {}  # reference Name -> scope it appears in
        self._non_refs: set[int] = set()  # Names that are not references (attrs, keywords...)
        self._body_scopes: dict[int, Scope] = {}  # node that starts a scope -> scope
        self.module_scope = Scope("module", None)
        self._stack = [self.module_scope]
        v = _ScopeBuilder(self)
        walk(module, [v], before_visit=v.before_visit, after_leave=v.after_leave)
        del self._stack, self._body_scopes

    # -- queries ---------------------------------------------------------

    def qualnames(self, node: object) -> set[str]:
        """Every qualified name `node` can refer to; empty if unknown or not a reference."""
        if isinstance(node, cst.Name):
            scope = self._scope_of.get(id(node))
            if scope is None or id(node) in self._non_refs:
                return set()
            return self.lookup(scope, node.value)
        if isinstance(node, cst.Attribute):
            base = self.qualnames(node.value)
            attr = node.attr.value
            return {f"{q}.{attr}" for q in base}
        if isinstance(node, cst.Call):  # `getattr(torch.cuda, "memory_cached")`, the builtin with a literal name
            obj, attr = _getattr_parts(node)
            return (
                {f"{q}.{attr}" for q in self.qualnames(obj)}
                if obj is not None and not self.qualnames(node.func)
                else set()
            )
        return set()

    def scope_of(self, node: object) -> Scope | None:
        """The scope a reference Name appears in (None for anything else)."""
        return self._scope_of.get(id(node))

    def lookup(self, scope: Scope, name: str) -> set[str]:
        """Every qualified name `name` can refer to when used in `scope`."""
        if name in scope.globals:
            scope = self.module_scope
        s: Scope | None = scope
        first = True
        while s is not None:
            # Class bodies are not visible from the scopes nested inside them.
            if s.kind == "class" and not first:
                s = s.parent
                continue
            if name in s.bindings and name not in s.nonlocals:
                return s.bindings[name]
            first = False
            s = s.parent
        stars = self.module_scope.stars
        found = {f"{m}.{name}" for m in stars}
        if stars and name in STAR_MODULES:
            found.add(name)
        return found

    def module_imports(self) -> set[str]:
        """Qualified names of everything imported anywhere at module level."""
        out: set[str] = set()
        for quals in self.module_scope.bindings.values():
            out.update(q for q in quals if not q.startswith(LOCAL))
        return out


class _ScopeBuilder:
    """The scope-building visitor behind `NameResolver` (one pass, read-only)."""

    def __init__(self, r: NameResolver) -> None:
        self.r = r
        self._comp_nodes: list = []

    def get_visitors(self) -> dict:
        return {n: getattr(self, n) for n in dir(self) if n.startswith(("visit_", "leave_"))}

    # Scope entry/exit is keyed on the node that starts the scope's body.
    def before_visit(self, node) -> None:
        scope = self.r._body_scopes.get(id(node))
        if scope is not None:
            self.r._stack.append(scope)

    def after_leave(self, node) -> None:
        if id(node) in self.r._body_scopes:
            self.r._stack.pop()

    @property
    def scope(self) -> Scope:
        return self.r._stack[-1]

    def bind_target(self, target, scope: Scope | None = None) -> None:
        scope = scope or self.scope
        if isinstance(target, cst.Name):
            self._bind_local(scope, target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self.bind_target(el.value, scope)
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, scope)

    def _bind_local(self, scope: Scope, name: str) -> None:
        if name in scope.globals:
            scope = self.r.module_scope
        scope.bind(name, f"{LOCAL}.{name}")

    def new_scope(self, kind: str, starts: object) -> Scope:
        s = Scope(kind, self.scope)
        self.r._body_scopes[id(starts)] = s
        return s

    # -- references --
    def visit_Name(self, node) -> None:
        self.r._scope_of[id(node)] = self.scope

    def visit_Attribute(self, node) -> None:
        self.r._non_refs.add(id(node.attr))

    def visit_Arg(self, node) -> None:
        if node.keyword is not None:
            self.r._non_refs.add(id(node.keyword))

    # -- imports --
    def visit_Import(self, node) -> bool:
        for alias in node.names:
            full = _dotted(alias.name)
            if alias.asname is not None:
                name = alias.asname.name
                if isinstance(name, cst.Name):
                    self.scope.bind(name.value, full)
            else:
                head = full.split(".")[0]
                self.scope.bind(head, head)
        return False  # names inside imports are not references

    def visit_ImportFrom(self, node) -> bool:
        module = _dotted(node.module) if node.module is not None else ""
        dots = "." * len(node.relative)
        base = dots + module
        if isinstance(node.names, cst.ImportStar):
            # `from .evo_norm import *` too: a module of the project that imports torch passes `torch` on
            self.r.module_scope.stars.append(base)
            return False
        for alias in node.names:
            target = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else target
            self.scope.bind(local, f"{base}.{target}" if module else f"{dots}{target}")
        return False

    # -- definitions --
    def visit_FunctionDef(self, node) -> None:
        self._bind_local(self.scope, node.name.value)
        self.r._non_refs.add(id(node.name))
        s = self.new_scope("function", node.body)
        self._bind_params(node.params, s)

    def visit_Lambda(self, node) -> None:
        s = self.new_scope("function", node.body)
        self._bind_params(node.params, s)

    def _bind_params(self, params, s: Scope) -> None:
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        if isinstance(params.star_arg, cst.Param):
            every.append(params.star_arg)
        if params.star_kwarg is not None:
            every.append(params.star_kwarg)
        for p in every:
            s.bind(p.name.value, f"{LOCAL}.{p.name.value}")
            self.r._non_refs.add(id(p.name))

    def visit_ClassDef(self, node) -> None:
        self._bind_local(self.scope, node.name.value)
        self.r._non_refs.add(id(node.name))
        self.new_scope("class", node.body)

    def _visit_comp(self, node) -> None:
        # The comprehension node itself starts the scope, so enter it here.
        s = Scope("comprehension", self.scope)
        self.r._stack.append(s)
        self._comp_nodes.append(node)
        comp = node.for_in
        while comp is not None:
            self.bind_target(comp.target, s)
            comp = comp.inner_for_in

    def _leave_comp(self, node) -> None:
        if self._comp_nodes and self._comp_nodes[-1] is node:
            self._comp_nodes.pop()
            self.r._stack.pop()

    def visit_ListComp(self, node):
        self._visit_comp(node)

    def leave_ListComp(self, node):
        self._leave_comp(node)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp
    leave_SetComp = leave_GeneratorExp = leave_DictComp = leave_ListComp

    # -- other bindings --
    def visit_Global(self, node) -> None:
        for item in node.names:
            self.scope.globals.add(item.name.value)

    def visit_Nonlocal(self, node) -> None:
        for item in node.names:
            self.scope.nonlocals.add(item.name.value)

    def visit_Assign(self, node) -> None:
        imported = _imported_module(node.value, self.r.importing_calls)
        for t in node.targets:
            target = t.target
            if imported and isinstance(target, cst.Tuple) and target.elements:  # `mod, ok = optional_import("m")`
                first = target.elements[0].value
                if isinstance(first, cst.Name):
                    self.scope.bind(first.value, imported)
                    for e in target.elements[1:]:
                        self.bind_target(e.value)
                    continue
            if imported and isinstance(target, cst.Name):
                self.scope.bind(target.value, imported)
            else:
                self.bind_target(target)

    def visit_AnnAssign(self, node) -> None:
        self.bind_target(node.target)

    def visit_AugAssign(self, node) -> None:
        self.bind_target(node.target)

    def visit_For(self, node) -> None:
        self.bind_target(node.target)

    def visit_WithItem(self, node) -> None:
        if node.asname is not None:
            self.bind_target(node.asname.name)

    def visit_ExceptHandler(self, node) -> None:
        if node.name is not None:
            self.bind_target(node.name.name)

    def visit_NamedExpr(self, node) -> None:
        s = self.scope
        while s.kind == "comprehension" and s.parent is not None:
            s = s.parent
        self.bind_target(node.target, s)

    def visit_MatchAs(self, node) -> None:
        if node.name is not None:
            self.bind_target(node.name)

    def visit_MatchStar(self, node) -> None:
        if node.name is not None:
            self.bind_target(node.name)

    def visit_MatchMapping(self, node) -> None:
        if node.rest is not None:
            self.bind_target(node.rest)


def _dotted(node) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _imported_module(value, calls: tuple[str, ...] = IMPORTING_CALLS) -> str | None:
    """`pytest.importorskip("torch")` / `importlib.import_module("torch.cuda")` -> the module;
    MONAI's `optional_import("torchvision", name="models")` -> `torchvision.models` (its `name=` attribute)."""
    if not isinstance(value, cst.Call) or not value.args:
        return None
    func = value.func
    name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
    if name not in calls:
        return None
    module = _plain_string(value.args[0].value)
    if module is None or name in FIRST_ARG_ONLY or value.args[0].keyword is not None:
        return module
    attr = next(
        (_plain_string(a.value) for a in value.args if a.keyword is not None and a.keyword.value == "name"), None
    )
    return f"{module}.{attr}" if attr else module


def _plain_string(node) -> str | None:
    if isinstance(node, cst.SimpleString) and node.value[-1:] in "\"'" and node.prefix.lower() in ("", "u"):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None


def _getattr_parts(node) -> tuple:
    """(object, attribute) of `getattr(obj, "attr")` (two arguments, a literal identifier); (None, None) otherwise."""
    func, args = node.func, node.args
    if not (isinstance(func, cst.Name) and func.value == "getattr") or len(args) != 2:
        return None, None
    if any(a.keyword is not None or a.star for a in args):
        return None, None
    attr = _plain_string(args[1].value)
    return (args[0].value, attr) if attr and attr.isidentifier() else (None, None)


def dotted_name(node) -> str:
    """Source spelling of a Name/Attribute chain ('' for anything else)."""
    return _dotted(node)


def any_match(quals: Iterable[str], targets: Iterable[str]) -> str | None:
    ts = set(targets)
    for q in sorted(quals):
        if q in ts:
            return q
    return None
