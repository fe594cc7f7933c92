"""Qualified names for references, from one pass over an `ast` tree: `advisor.syntax.names`' answers without LibCST.

The same scopes as `advisor.syntax.scopes` builds from a LibCST tree (module, class, function, lambda and
comprehension scopes, `global` / `nonlocal`, star imports, importing calls), so that `AstResolver(tree).qualnames(n)`
is, for every name, attribute and `getattr(obj, "name")` call, what `NameResolver(module).qualnames(m)` is for the
same code in LibCST's tree. Detection can then run on the `ast` tree the analysis parses anyway (issue #35: LibCST
only for what a finding needs). `benchmarks/resolver_agreement.py` compares the two on whole trees;
`tests/syntax/test_ast_names.py` on the cases where they could part.

Where LibCST's scopes differ from Python's, this follows LibCST's (they are what the rules were written against):
a comprehension's first iterable is resolved inside the comprehension's scope, and a string is a plain string only
as LibCST's `plain_string` says (no prefix but `u`, not concatenated).
"""

from __future__ import annotations

import ast
from typing import Any

from advisor.syntax.ast_parts import FIRST_ARG_ONLY, IMPORTING_CALLS
from advisor.syntax.ast_source import Source
from advisor.syntax.scopes import LOCAL, Scope, lookup_in

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
_BODIES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SKIP = frozenset({"ctx", "op", "ops"})  # fields that hold no name: contexts and operators


class AstResolver:
    """Scopes of one module's `ast` tree; `qualnames(node)` answers for any Name, Attribute or getattr Call.

    `text`: the module's source, read only to tell a plain string literal from a prefixed or concatenated one,
    as LibCST's node types do."""

    def __init__(
        self,
        tree: ast.Module,
        text: str,
        importing_calls: tuple[str, ...] = IMPORTING_CALLS,
        parents: dict[int, tuple[Any, str]] | None = None,
    ):
        """`parents` (id(node) -> (parent, field)): walk a function's or class's body only when a name in it is
        asked about (a scan asks about a few names of a file). Only for a module with no `global` statement below
        its top level, which would bind in the module's scope from a body not yet walked."""
        self.importing_calls = importing_calls
        self.source = Source(text)  # read only for string literals: few modules have one to look at
        self.module_scope = Scope("module", None)
        self._scope_of: dict[int, Scope] = {}  # id(ast.Name) -> the scope it is used in
        self._parents = parents
        self._pending: dict[int, list[tuple[Any, Scope]]] = {}  # id(def, class or lambda) -> its body, not walked
        self._walk([(tree, self.module_scope)])

    # -- queries (as advisor.syntax.names.NameResolver's) --------------------------------------------------

    def qualnames(self, node: Any) -> set[str]:
        """Every qualified name `node` can refer to; empty if unknown or not a reference."""
        t = type(node)
        if t is ast.Name:
            scope = self.scope_of(node)
            return set() if scope is None else lookup_in(self.module_scope, scope, node.id)
        if t is ast.Attribute:
            attr = node.attr
            return {f"{q}.{attr}" for q in self.qualnames(node.value)}
        if t is ast.Call:  # `getattr(torch.cuda, "memory_cached")`, the builtin with a literal name
            obj, attr = self._getattr_parts(node)
            if obj is None or self.qualnames(node.func):
                return set()
            return {f"{q}.{attr}" for q in self.qualnames(obj)}
        return set()

    def scope_of(self, node: Any) -> Scope | None:
        scope = self._scope_of.get(id(node))
        if scope is None and self._pending:
            self._walk_around(node)
            scope = self._scope_of.get(id(node))
        return scope

    def _walk_around(self, node: Any) -> None:
        """Walk the bodies not yet walked that hold `node`, the outermost first (walking one may leave its own
        nested bodies for later)."""
        assert self._parents is not None
        while id(node) not in self._scope_of:
            owner = None
            up = self._parents.get(id(node))
            while up is not None:
                if id(up[0]) in self._pending:
                    owner = up[0]
                up = self._parents.get(id(up[0]))
            if owner is None:
                return
            self._walk(self._pending.pop(id(owner)))

    def lookup(self, scope: Scope, name: str) -> set[str]:
        return lookup_in(self.module_scope, scope, name)

    def module_imports(self) -> set[str]:
        """Qualified names of everything imported anywhere at module level."""
        return {q for quals in self.module_scope.bindings.values() for q in quals if not q.startswith(LOCAL)}

    # -- the walk ------------------------------------------------------------------------------------------

    def _walk(self, start: list[tuple[Any, Scope]]) -> None:
        """Each node once, in source order (a `global` comes before the bindings it moves), with its scope."""
        stack = list(reversed(start))
        scope_of = self._scope_of
        handlers = _HANDLERS
        lazy = self._parents is not None
        while stack:
            node, scope = stack.pop()
            t = type(node)
            if t is ast.Name:
                scope_of[id(node)] = scope
                continue
            handler = handlers.get(t)
            children = handler(self, node, scope) if handler is not None else None
            if children is None:  # `_children`, inlined: most nodes have no handler
                for name in _FIELDS.get(t) or _fields(t):
                    value = getattr(node, name, None)
                    if type(value) is list:
                        stack.extend((v, scope) for v in reversed(value) if isinstance(v, AST) and type(v) is not CONST)
                    elif isinstance(value, AST) and type(value) is not CONST:
                        stack.append((value, scope))
                continue
            if lazy and t in _BODIES:  # the body in a scope of its own: walked when a name in it is asked about
                later = [c for c in children if c[1] is not scope]
                if later:
                    self._pending[id(node)] = later
                    children = [c for c in children if c[1] is scope]
            stack.extend(reversed(children))

    def _bind_local(self, scope: Scope, name: str) -> None:
        if name in scope.globals:
            scope = self.module_scope
        scope.bind(name, f"{LOCAL}.{name}")

    def _bind_target(self, target: Any, scope: Scope) -> None:
        t = type(target)
        if t is ast.Name:
            self._bind_local(scope, target.id)
        elif t is ast.Tuple or t is ast.List:
            for element in target.elts:
                self._bind_target(element, scope)
        elif t is ast.Starred:
            self._bind_target(target.value, scope)

    def _import(self, node: ast.Import, scope: Scope) -> list:
        for alias in node.names:
            if alias.asname is not None:
                scope.bind(alias.asname, alias.name)
            else:
                head = alias.name.split(".")[0]
                scope.bind(head, head)
        return []

    def _import_from(self, node: ast.ImportFrom, scope: Scope) -> list:
        dots = "." * (node.level or 0)
        module = node.module or ""
        base = dots + module
        for alias in node.names:
            if alias.name == "*":
                if base not in self.module_scope.stars:
                    self.module_scope.stars.append(base)
                continue
            scope.bind(alias.asname or alias.name, f"{base}.{alias.name}" if module else f"{dots}{alias.name}")
        return []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> list:
        self._bind_local(scope, node.name)
        inner = Scope("function", scope)
        self._bind_params(node.args, inner)
        outside = [*node.decorator_list, *_param_parts(node.args)]
        if node.returns is not None:
            outside.append(node.returns)
        return [*((n, scope) for n in outside), *((n, inner) for n in node.body)]

    def _lambda(self, node: ast.Lambda, scope: Scope) -> list:
        inner = Scope("function", scope)
        self._bind_params(node.args, inner)
        return [*((n, scope) for n in _param_parts(node.args)), (node.body, inner)]

    def _bind_params(self, args: ast.arguments, scope: Scope) -> None:
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        if args.vararg is not None:
            every.append(args.vararg)
        if args.kwarg is not None:
            every.append(args.kwarg)
        for a in every:
            scope.bind(a.arg, f"{LOCAL}.{a.arg}")

    def _class(self, node: ast.ClassDef, scope: Scope) -> list:
        self._bind_local(scope, node.name)
        inner = Scope("class", scope)
        outside = [*node.decorator_list, *node.bases, *node.keywords]
        return [*((n, scope) for n in outside), *((n, inner) for n in node.body)]

    def _comprehension(self, node: Any, scope: Scope) -> list:
        inner = Scope("comprehension", scope)  # the whole node, its first iterable too (as LibCST's scopes)
        for generator in node.generators:
            self._bind_target(generator.target, inner)
        return [(child, inner) for child in _children(node)]

    def _global(self, node: ast.Global, scope: Scope) -> list:
        scope.globals.update(node.names)
        return []

    def _nonlocal(self, node: ast.Nonlocal, scope: Scope) -> list:
        scope.nonlocals.update(node.names)
        return []

    def _assign(self, node: ast.Assign, scope: Scope) -> None:
        imported = self._imported_module(node.value)
        for target in node.targets:
            if imported and type(target) is ast.Tuple and target.elts and type(target.elts[0]) is ast.Name:
                scope.bind(target.elts[0].id, imported)  # `mod, ok = optional_import("m")`
                for element in target.elts[1:]:
                    self._bind_target(element, scope)
            elif imported and type(target) is ast.Name:
                scope.bind(target.id, imported)
            else:
                self._bind_target(target, scope)

    def _target(self, node: Any, scope: Scope) -> None:  # AnnAssign, AugAssign, For, AsyncFor
        self._bind_target(node.target, scope)

    def _with(self, node: ast.With | ast.AsyncWith, scope: Scope) -> None:
        for item in node.items:
            if item.optional_vars is not None:
                self._bind_target(item.optional_vars, scope)

    def _handler(self, node: ast.ExceptHandler, scope: Scope) -> None:
        if node.name:
            self._bind_local(scope, node.name)

    def _named(self, node: ast.NamedExpr, scope: Scope) -> None:
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self._bind_target(node.target, scope)

    def _match_name(self, node: Any, scope: Scope) -> None:  # MatchAs, MatchStar
        if node.name:
            self._bind_local(scope, node.name)

    def _match_mapping(self, node: ast.MatchMapping, scope: Scope) -> None:
        if node.rest:
            self._bind_local(scope, node.rest)

    # -- strings and calls, as LibCST's node types tell them ---------------------------------------------

    def plain_string(self, node: Any) -> str | None:
        """The value of a plain string literal (no prefix but `u`, one literal, not an f-string), else None."""
        if type(node) is not ast.Constant or type(node.value) is not str:
            return None
        raw = self.source.simple_string(node)
        if raw is None or not (raw[:1] in "\"'" or (raw[:1] in "uU" and raw[1:2] in "\"'")):
            return None
        return node.value

    def _getattr_parts(self, node: ast.Call) -> tuple[Any, str | None]:
        func, args = node.func, node.args
        if type(func) is not ast.Name or func.id != "getattr" or len(args) != 2 or node.keywords:
            return None, None
        if any(type(a) is ast.Starred for a in args):
            return None, None
        attr = self.plain_string(args[1])
        return (args[0], attr) if attr and attr.isidentifier() else (None, None)

    def _imported_module(self, value: Any) -> str | None:
        """As advisor.syntax.scopes._imported_module: `import_module("torch.cuda")` -> "torch.cuda"."""
        if type(value) is not ast.Call:
            return None
        func = value.func
        name = func.attr if type(func) is ast.Attribute else func.id if type(func) is ast.Name else None
        if name not in self.importing_calls:
            return None
        if value.args:  # LibCST's first argument: the first positional one, or else the first keyword
            first, keyword = value.args[0], False
            if type(first) is ast.Starred:
                first = first.value
        elif value.keywords:
            first, keyword = value.keywords[0].value, True
        else:
            return None
        module = self.plain_string(first)
        if module is None or name in FIRST_ARG_ONLY or keyword:
            return module
        attr = next((self.plain_string(k.value) for k in value.keywords if k.arg == "name"), None)
        return f"{module}.{attr}" if attr else module


def _param_parts(args: ast.arguments) -> list:
    """What a signature evaluates in the enclosing scope: defaults and annotations."""
    out: list = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    for a in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
        if a is not None and a.annotation is not None:
            out.append(a.annotation)
    return out


def _children(node: Any) -> list:
    """`node`'s children, in source order, less constants (they hold no name)."""
    out = []
    for name in reversed(_FIELDS.get(type(node)) or _fields(type(node))):
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            if type(value) is not CONST:
                out.append(value)
        elif type(value) is list:
            out.extend(v for v in value if isinstance(v, ast.AST) and type(v) is not CONST)
    return out


def _fields(t: type) -> tuple[str, ...]:
    """`t`'s fields that may hold a name, last first (the walk's stack pops them in source order)."""
    fields = _FIELDS[t] = tuple(reversed([f for f in t._fields if f not in _SKIP]))  # type: ignore[attr-defined]
    return fields


_FIELDS: dict[type, tuple[str, ...]] = {}
AST, CONST = ast.AST, ast.Constant


_HANDLERS: dict[type, Any] = {
    ast.Import: AstResolver._import,
    ast.ImportFrom: AstResolver._import_from,
    ast.FunctionDef: AstResolver._function,
    ast.AsyncFunctionDef: AstResolver._function,
    ast.Lambda: AstResolver._lambda,
    ast.ClassDef: AstResolver._class,
    **dict.fromkeys(_COMPREHENSIONS, AstResolver._comprehension),
    ast.Global: AstResolver._global,
    ast.Nonlocal: AstResolver._nonlocal,
    ast.Assign: AstResolver._assign,
    **dict.fromkeys((ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor), AstResolver._target),
    ast.With: AstResolver._with,
    ast.AsyncWith: AstResolver._with,
    ast.ExceptHandler: AstResolver._handler,
    ast.NamedExpr: AstResolver._named,
    ast.MatchAs: AstResolver._match_name,
    ast.MatchStar: AstResolver._match_name,
    ast.MatchMapping: AstResolver._match_mapping,
}
