"""Python's scopes for `advisor.syntax.names`: the scope-building visitor and what it binds.

Module, class, function, lambda and comprehension scopes with their bindings, built by one
read-only visitor (`_ScopeBuilder`). Inside the analysis' one walk it also binds each scope's
statement-level names (imports, assignments, defs) when the walk enters the scope, so that
a rule asking about a name gets, nearly always, the answer the finished scopes give.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.core.lazy import cst
from advisor.syntax.ast_parts import FIRST_ARG_ONLY, IMPORTING_CALLS
from advisor.syntax.references import STAR_MODULES

if TYPE_CHECKING:
    from advisor.syntax.names import NameResolver

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


def lookup_in(module_scope: Scope, scope: Scope, name: str) -> set[str]:
    """Every qualified name `name` can refer to when used in `scope` (of a module whose scope is `module_scope`):
    Python's rules, one resolver's (LibCST's, advisor.syntax.names; `ast`'s, advisor.syntax.ast_names) as the other's."""
    if name in scope.globals:
        scope = module_scope
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
    stars = module_scope.stars
    found = {f"{m}.{name}" for m in stars}
    if stars and name in STAR_MODULES:
        found.add(name)
    return found


class _ScopeBuilder:
    """The scope-building visitor behind `NameResolver` (one pass, read-only)."""

    def __init__(self, r: NameResolver) -> None:
        self.r = r
        self._comp_nodes: list = []
        self._in_import = 0  # names inside an import statement are not references
        self.ahead = False  # bind each function's and class's statements when the walk enters it

    def prebind_scope(self, scope: Scope, block) -> None:
        self.r._stack.append(scope)
        if isinstance(block, cst.SimpleStatementSuite):
            self._prebind_small(block.body)
        else:
            self.prebind(block.body)
        self.r._stack.pop()

    def prebind(self, body) -> None:
        """Bind what the statements of a module-level block bind (imports, assignments, defs, loop and
        `with` targets), without entering functions, classes or expressions."""
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                self._prebind_small(stmt.body)
            elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
                self._bind_local(self.scope, stmt.name.value)
            else:
                if isinstance(stmt, cst.For):
                    self.bind_target(stmt.target)
                elif isinstance(stmt, cst.With):
                    for item in stmt.items:
                        self.visit_WithItem(item)
                for handler in getattr(stmt, "handlers", ()):
                    self.visit_ExceptHandler(handler)
                for block in _blocks(stmt):
                    if isinstance(block, cst.SimpleStatementSuite):
                        self._prebind_small(block.body)
                    else:
                        self.prebind(block.body)

    def _prebind_small(self, smalls) -> None:
        for small in smalls:
            if isinstance(small, cst.Import):
                self._bind_import(small)
            elif isinstance(small, cst.ImportFrom):
                self._bind_import_from(small)
            elif isinstance(small, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Global, cst.Nonlocal)):
                # a `global` comes before the name's bindings in the block (Python requires it)
                getattr(self, f"visit_{type(small).__name__}")(small)

    def get_visitors(self) -> dict:
        return {n: getattr(self, n) for n in dir(self) if n.startswith(("visit_", "leave_"))}

    # Scope entry/exit is keyed on the node that starts the scope's body.
    def before_visit(self, node) -> bool:
        """True where a scope's body starts: the walk then calls `after_leave` when it leaves the node (only then)."""
        scope = self.r._body_scopes.get(id(node))
        if scope is None:
            return False
        self.r._stack.append(scope)
        return True

    def after_leave(self, node) -> None:
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
        if not self._in_import:
            self.r._scope_of[id(node)] = self.scope

    def visit_Attribute(self, node) -> None:
        self.r._non_refs.add(id(node.attr))

    def visit_Arg(self, node) -> None:
        if node.keyword is not None:
            self.r._non_refs.add(id(node.keyword))

    # -- imports --
    def visit_Import(self, node) -> None:
        self._bind_import(node)
        self._in_import += 1

    def leave_Import(self, node) -> None:
        self._in_import -= 1

    def visit_ImportFrom(self, node) -> None:
        self._bind_import_from(node)
        self._in_import += 1

    def leave_ImportFrom(self, node) -> None:
        self._in_import -= 1

    def _bind_import(self, node) -> None:
        for alias in node.names:
            full = _dotted(alias.name)
            if alias.asname is not None:
                name = alias.asname.name
                if isinstance(name, cst.Name):
                    self.scope.bind(name.value, full)
            else:
                head = full.split(".")[0]
                self.scope.bind(head, head)

    def _bind_import_from(self, node) -> None:
        module = _dotted(node.module) if node.module is not None else ""
        dots = "." * len(node.relative)
        base = dots + module
        if isinstance(node.names, cst.ImportStar):
            # `from .evo_norm import *` too: a module of the project that imports torch passes `torch` on
            if base not in self.r.module_scope.stars:  # seen before the walk too
                self.r.module_scope.stars.append(base)
            return
        for alias in node.names:
            target = _dotted(alias.name)
            local = alias.asname.name.value if alias.asname is not None else target
            self.scope.bind(local, f"{base}.{target}" if module else f"{dots}{target}")

    # -- definitions --
    def visit_FunctionDef(self, node) -> None:
        self._bind_local(self.scope, node.name.value)
        self.r._non_refs.add(id(node.name))
        s = self.new_scope("function", node.body)
        self._bind_params(node.params, s)
        if self.ahead:
            self.prebind_scope(s, node.body)

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
        s = self.new_scope("class", node.body)
        if self.ahead:
            self.prebind_scope(s, node.body)

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


def _blocks(stmt) -> list:
    """The blocks of statements a compound statement holds (its body, else, handlers, finally)."""
    out = [stmt.body] if hasattr(stmt, "body") else []
    for handler in getattr(stmt, "handlers", ()):
        out.append(handler.body)
    orelse = getattr(stmt, "orelse", None)
    while isinstance(orelse, cst.If):  # elif
        out.append(orelse.body)
        orelse = orelse.orelse
    if orelse is not None:
        out.append(orelse.body)
    final = getattr(stmt, "finalbody", None)
    if final is not None:
        out.append(final.body)
    return [b for b in out if isinstance(b, (cst.IndentedBlock, cst.SimpleStatementSuite))]


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
    module = plain_string(value.args[0].value)
    if module is None or name in FIRST_ARG_ONLY or value.args[0].keyword is not None:
        return module
    attr = next(
        (plain_string(a.value) for a in value.args if a.keyword is not None and a.keyword.value == "name"), None
    )
    return f"{module}.{attr}" if attr else module


def plain_string(node) -> str | None:
    if isinstance(node, cst.SimpleString) and node.value[-1:] in "\"'" and node.prefix.lower() in ("", "u"):
        return node.evaluated_value if isinstance(node.evaluated_value, str) else None
    return None
