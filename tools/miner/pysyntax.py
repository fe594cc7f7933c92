"""The Python AST half of the miner: message rendering, and the names a module binds (its top level,
`__all__`, imports, lazy `__getattr__`), collected by `Bindings`, the base of `sites.FileVisitor`."""

from __future__ import annotations

import ast
import re

DEPRECATION_CATEGORIES = {"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"}
# Deprecation wording in a message of another category (UserWarning, the default).
WORDING = re.compile(
    r"deprecat|will be removed|(?:has|have) been removed|is removed|are removed|removed in"
    r"|no longer (?:be )?supported|not be supported|obsolete|in a future (?:release|version)"
    r"|will be dropped|legacy .* will",
    re.I,
)


# A raise with this wording marks a removed API (or a removed argument of a live one).
REMOVED_WORDING = re.compile(
    r"(?:has|have) been removed|was removed|is (?:now )?removed|are (?:now )?removed|removed in (?:pytorch|version|v?\d)"
    r"|no longer (?:available|supported|exists)",
    re.I,
)


# Class methods whose warnings belong to the class (calling the class runs them).
CTOR_METHODS = {"__init__", "__new__", "__post_init__", "__init_subclass__"}


def _last_name(node: ast.AST) -> str:
    while isinstance(node, ast.Call):  # deprecated("msg")(f) -> "deprecated"
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Name):
        return node.id
    return ""


def render(node: ast.AST | None, consts: dict[str, str]) -> str:
    """The message text a node builds, with `{…}` for what is only known at run time."""
    if node is None:
        return ""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for v in node.values:
            out.append(v.value if isinstance(v, ast.Constant) else "{…}")
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        left = render(node.left, consts)
        return left + (render(node.right, consts) if isinstance(node.op, ast.Add) else "")
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("format", "strip", "replace")
    ):
        return render(node.func.value, consts)
    if isinstance(node, ast.Call) and _last_name(node.func) in ("dedent", "cleandoc"):
        return render(node.args[0], consts) if node.args else ""
    if isinstance(node, ast.Name):
        return consts.get(node.id, "{…}")
    return "{…}"


def _str_list(node: ast.AST) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        out = []
        for e in node.elts:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
            else:
                return None
        return out
    return None


def _class_members(node: ast.ClassDef) -> list[str]:
    """Names a class body binds: methods, properties, nested classes, class-level assignments."""
    out: set[str] = set()
    for b in node.body:
        if isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(b.name)
        elif isinstance(b, ast.Assign):
            out.update(t.id for t in b.targets if isinstance(t, ast.Name))
        elif isinstance(b, ast.AnnAssign) and isinstance(b.target, ast.Name):
            out.add(b.target.id)
    return sorted(n for n in out if not (n.startswith("__") and n.endswith("__")))


def _is_super_init(stmt: ast.stmt) -> bool:
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    return (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == "__init__"
        and isinstance(call.func.value, ast.Call)
        and isinstance(call.func.value.func, ast.Name)
        and call.func.value.func.id == "super"
    )


def _only_raises(body: list[ast.stmt]) -> bool:
    """A stub body: a docstring, assignments that build the message, then only raises (possibly
    under ifs)."""
    stmts = [b for b in body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
    if not stmts:
        return False
    for b in stmts:
        if isinstance(b, ast.Raise):
            continue
        if isinstance(b, (ast.Assign, ast.AnnAssign)) and b is not stmts[-1]:
            continue  # building the message: `reduced = "reduced" if some else "complete"`
        if _is_super_init(b) and b is not stmts[-1]:
            continue  # `super().__init__(other)` first (torch.jit.quantized.QuantizedLSTMCell in 2.3)
        if isinstance(b, ast.If) and _only_raises(b.body) and (not b.orelse or _only_raises(b.orelse)):
            continue
        return False
    return True


class Bindings(ast.NodeVisitor):
    """The module's top-level names (one half of the single pass; `sites.FileVisitor` adds the sites)."""

    def __init__(self, modname: str, is_pkg: bool):
        self.mod = modname
        self.is_pkg = is_pkg
        self.sites: list[dict] = []
        self.scope: list[tuple[str, ast.AST]] = []  # ("class"|"def", node)
        self.ifs: list[ast.expr] = []
        self.warn_names = {"warnings.warn", "_warnings.warn"}  # dotted callee spellings of warnings.warn
        self.consts: dict[str, str] = {}
        self.defined: dict[str, int] = {}  # every top-level binding (incl. private, imports) -> line
        self.public_defs: dict[str, int] = {}  # def/class/assign without a leading underscore
        self.imported: dict[str, tuple[str, str, int]] = {}  # local -> (module, name, line) for from-imports
        self.stars: list[str] = []
        self.all: list[str] | None = None
        self.all_dynamic = False
        self.all_line = 0
        self.has_getattr = False
        self.strings: set[str] = set()
        self.decorators: list[dict] = []
        self.conditional: set[str] = set()  # names imported inside try/except ImportError
        self.str_colls: dict[str, list[str]] = {}  # module-level list/set/tuple/dict of strings
        self.own: set[str] = set()  # top-level def/class/assignment names, private ones too
        self.members: dict[str, list[str]] = {}  # top-level class -> its body's defs and assignments
        self.lazy: set[str] = set()  # names a module-level __getattr__ compares its argument with

    # -- bookkeeping of names
    def _resolve_from(self, node: ast.ImportFrom) -> str:
        if node.level:
            base = self.mod.split(".")
            if not self.is_pkg:
                base = base[:-1]
            base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
            return ".".join(base + ([node.module] if node.module else []))
        return node.module or ""

    def _top_level(self) -> bool:
        return not self.scope

    def _bind(self, name: str, line: int, public_def: bool):
        self.defined.setdefault(name, line)
        if public_def:
            self.own.add(name)
        if public_def and not name.startswith("_"):
            self.public_defs.setdefault(name, line)

    def visit_Import(self, node: ast.Import):
        for a in node.names:
            if a.name in ("warnings",) and a.asname:
                self.warn_names.add(f"{a.asname}.warn")
            if self._top_level():
                self._bind((a.asname or a.name).split(".")[0], node.lineno, False)

    def visit_ImportFrom(self, node: ast.ImportFrom):
        src = self._resolve_from(node)
        for a in node.names:
            if src == "warnings" and a.name == "warn":
                self.warn_names.add(a.asname or "warn")
            if not self._top_level():
                continue
            if a.name == "*":
                self.stars.append(src)
                continue
            local = a.asname or a.name
            self._bind(local, node.lineno, False)
            self.imported[local] = (src, a.name, node.lineno)

    def _assign_targets(self, targets, value, line):
        for t in targets:
            if isinstance(t, ast.Name):
                if self._top_level():
                    self._bind(t.id, line, True)
                    if isinstance(value, ast.Constant) and isinstance(value.value, str):
                        self.consts[t.id] = value.value
                    if t.id == "__all__":
                        lst = _str_list(value) if value is not None else None
                        if lst is None:
                            self.all_dynamic = True
                        else:
                            self.all = list(lst)
                            self.all_line = line
                    if t.id == "__getattr__":
                        self.has_getattr = True
                    if value is not None and _str_list(value):
                        self.str_colls[t.id] = _str_list(value)
                    elif (
                        isinstance(value, ast.Dict)
                        and value.keys
                        and all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in value.keys)
                    ):
                        self.str_colls[t.id] = [k.value for k in value.keys]
                elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                    self.consts.setdefault(t.id, value.value)
            elif isinstance(t, (ast.Tuple, ast.List)) and self._top_level():
                for e in t.elts:
                    if isinstance(e, ast.Name):
                        self._bind(e.id, line, True)

    def visit_Assign(self, node: ast.Assign):  # sites.FileVisitor extends it with deprecating wrappers
        self._assign_targets(node.targets, node.value, node.lineno)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign):
        self._assign_targets([node.target], node.value, node.lineno)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign):
        if self._top_level() and isinstance(node.target, ast.Name) and node.target.id == "__all__":
            lst = _str_list(node.value)
            if lst is None or self.all is None:
                self.all_dynamic = True
            else:
                self.all.extend(lst)
        self.generic_visit(node)

    def visit_Expr(self, node: ast.Expr):
        # __all__.extend([...]) / __all__.append("x")
        v = node.value
        if (
            self._top_level()
            and isinstance(v, ast.Call)
            and isinstance(v.func, ast.Attribute)
            and isinstance(v.func.value, ast.Name)
            and v.func.value.id == "__all__"
        ):
            if self.all is not None and v.func.attr == "extend" and v.args and _str_list(v.args[0]) is not None:
                self.all.extend(_str_list(v.args[0]))
            elif self.all is not None and v.func.attr == "append" and v.args and isinstance(v.args[0], ast.Constant):
                self.all.append(str(v.args[0].value))
            else:
                self.all_dynamic = True
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant):
        if isinstance(node.value, str) and len(node.value) < 80:
            self.strings.add(node.value)

    def visit_Try(self, node: ast.Try):
        # `try: from elsewhere import X / except ImportError: pass`: X may well be unbound
        catches_import = any(
            h.type is None
            or any(
                _last_name(t) in ("ImportError", "ModuleNotFoundError", "Exception")
                for t in (h.type.elts if isinstance(h.type, ast.Tuple) else [h.type])
            )
            for h in node.handlers
        )
        before = set(self.imported)
        for s_ in node.body:
            self.visit(s_)
        if catches_import and self._top_level():
            for local in set(self.imported) - before:
                self.conditional.add(local)
        for h in node.handlers:
            self.visit(h)
        for s_ in node.orelse + node.finalbody:
            self.visit(s_)

    visit_TryStar = visit_Try

    def visit_If(self, node: ast.If):
        self.visit(node.test)
        self.ifs.append(node.test)
        for s in node.body:
            self.visit(s)
        if node.orelse and not (len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If)):
            for s in node.orelse:  # an `else:` runs under the negated condition: still a condition
                self.visit(s)
            self.ifs.pop()
            return
        self.ifs.pop()
        for s in node.orelse:
            self.visit(s)
