"""Deprecation sites of one file (warnings, deprecation decorators, removal stubs) and the per-file
cache: `analyse` is the one pass over a file's AST."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from pathlib import Path

from .common import MINER_VERSION, module_name, whole
from .pysyntax import (
    CTOR_METHODS,
    DEPRECATION_CATEGORIES,
    REMOVED_WORDING,
    WORDING,
    Bindings,
    _class_members,
    _dotted,
    _last_name,
    _only_raises,
    _str_list,
    render,
)


class FileVisitor(Bindings):
    """Collects deprecation sites and the module's top-level names in one pass."""

    def visit_Assign(self, node: ast.Assign):
        self._assign_targets(node.targets, node.value, node.lineno)
        in_class = bool(self.scope) and all(k == "class" for k, _ in self.scope)
        if (self._top_level() or in_class) and isinstance(node.value, ast.Call) and self._is_deprecator(node.value):
            call = node.value
            while isinstance(call.func, ast.Call):  # deprecated("msg")(f): the message is on the inner call
                call = call.func
            for t in node.targets:
                if isinstance(t, ast.Name):
                    owner = self._api_for(None) if in_class else self.mod
                    api = self.mod if t.id == "__getattr__" and not in_class else f"{owner}.{t.id}"
                    self._site("deprecated-decorator", api, call, node.lineno, via=_last_name(call))
            # the wrapped call is recorded; don't report it again as a helper call
            for arg in list(node.value.args) + [k.value for k in node.value.keywords]:
                self.visit(arg)
            return
        self.generic_visit(node)

    # -- scopes
    def _decorated(self, node, kind: str):
        if self._top_level():
            self._bind(node.name, node.lineno, True)
            if node.name == "__getattr__" and kind == "def":
                self.has_getattr = True
                self.lazy.update(self._compared_strings(node))
            if kind == "class":
                self.members[node.name] = _class_members(node)
        for d in node.decorator_list:
            if self._is_deprecator(d):
                api = self._api_for(node.name, node)
                if api:
                    call = d if isinstance(d, ast.Call) else None
                    self._site("deprecated-decorator", api, call, node.lineno, via=_last_name(d))
                    self.sites[-1]["callee"] = _dotted(d.func if isinstance(d, ast.Call) else d)
                    if call is not None and any(
                        k.arg == "category" and isinstance(k.value, ast.Constant) and k.value.value is None
                        for k in call.keywords
                    ):
                        self.sites[-1]["category"] = "None"  # `@deprecated(..., category=None)`: documented, silent
            else:
                callee = _dotted(d.func if isinstance(d, ast.Call) else d)
                if callee:  # resolved later: a decorator whose body warns about deprecation
                    self.decorators.append(
                        {"callee": callee, "api": self._api_for(node.name, node), "line": node.lineno}
                    )
                self.visit(d)
        self.scope.append((kind, node))
        saved = self.ifs
        self.ifs = []
        for s in node.body:
            self.visit(s)
        self.ifs = saved
        self.scope.pop()
        # defaults/annotations are evaluated in the outer scope; nothing of interest there

    def visit_FunctionDef(self, node):
        self._decorated(node, "def")

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        for b in node.bases:
            self.visit(b)
        self._decorated(node, "class")

    # -- sites
    def _is_deprecator(self, node: ast.AST) -> bool:
        name = _last_name(node).lower()
        return "deprecat" in name or name.startswith("dropping")

    def _is_warn(self, call: ast.Call) -> bool:
        return _dotted(call.func) in self.warn_names

    def _api_for(self, extra: str | None, node=None) -> str | None:
        """Dotted API for the current scope (+ `extra`, a def/class being decorated)."""
        parts = [self.mod]
        names: list[tuple[str, str]] = [(k, n.name) for k, n in self.scope]
        if extra is not None:
            names.append(("class" if isinstance(node, ast.ClassDef) else "def", extra))
        # stop at the first function: nested helpers belong to the function that defines them
        for kind, name in names:
            if kind == "def":
                if name in CTOR_METHODS and len(parts) > 1 and names and names[0][0] == "class":
                    break
                parts.append(name)
                break
            parts.append(name)
        return ".".join(parts)

    def _outer_function(self):
        for kind, n in self.scope:
            if kind == "def":
                return n
        return None

    def _param_of(self, message: str) -> str | None:
        fn = self._outer_function()
        if fn is None:
            return None
        a = fn.args
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs if x.arg not in ("self", "cls")]
        # "<param> is deprecated" (quoted or not) names the parameter outright
        for p in sorted(params, key=lambda p: message.find(p) if p in message else 1 << 30):
            if len(p) >= 2 and re.search(
                rf"\b{re.escape(p)}\b[`'\"]?\s*(?:=\s*[\w.]+\s*)?(?:argument |parameter |flag |option |kwarg )?"
                r"(?:is|are|was|has been|have been)\s+(?:now\s+|being\s+|going to be\s+)?"
                r"(?:deprecat|renamed|removed|ignored|no longer)",
                message,
            ):
                return p
        # the quoted identifier that the message says is deprecated/renamed ("`max_value` is deprecated")
        m = re.search(
            r"[`'\"]([A-Za-z_]\w*)=?[`'\"](?: (?:argument|parameter|kwarg|keyword|flag|option))? (?:is|are|was|has been) (?:being |now )?(?:deprecat|renamed|removed|ignored|no longer)",
            message,
        )
        if m and (m.group(1) in params or a.kwarg is not None) and len(m.group(1)) >= 2:
            return m.group(1)
        m = re.search(
            r"(?:argument|parameter|kwarg|keyword) [`'\"]([A-Za-z_]\w*)[`'\"] (?:is|are|was|has been) (?:being )?(?:deprecat|renamed|removed)",
            message,
        )
        if m and (m.group(1) in params or a.kwarg is not None) and len(m.group(1)) >= 2:
            return m.group(1)
        for p in params:
            if len(p) < 2:
                continue
            pat = rf"(?:[`'\"]{re.escape(p)}[`'\"=(]|\b{re.escape(p)}=|\b{re.escape(p)}\b (?:argument|parameter|kwarg|keyword|option|flag))"
            if re.search(pat, message):
                return p
        # a warning guarded by `if <param> ...:` (or `"<param>" in kwargs`) is about that parameter
        for test in reversed(self.ifs):
            names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
            consts = {n.value for n in ast.walk(test) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
            hits = [p for p in params if p in names or (p in consts and a.kwarg is not None)]
            if len(hits) == 1 and len(p := hits[0]) >= 2:
                return p
        return None

    def _compared_strings(self, fn: ast.AST) -> set[str]:
        """The identifiers `name == "x"` / `name in (...)` / `name in _table` compare with."""
        out: set[str] = set()
        for n in ast.walk(fn):
            if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.In)):
                rhs = n.comparators[0]
                if isinstance(rhs, ast.Constant) and isinstance(rhs.value, str):
                    out.add(rhs.value)
                elif _str_list(rhs):
                    out.update(_str_list(rhs))
                elif isinstance(rhs, ast.Dict):
                    out.update(k.value for k in rhs.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))
                elif isinstance(rhs, ast.Name) and rhs.id in self.str_colls:
                    out.update(self.str_colls[rhs.id])
        return {x for x in out if x.isidentifier()}

    def _on_arguments(self) -> bool:
        """Is the current site under an `if` that reads a parameter of its function (a warning
        on argument values, not on every call)?"""
        fn = self._outer_function()
        if fn is None or not self.ifs:
            return False
        a = fn.args
        params = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x}
        if fn.name == "__getattr__":
            params = set()  # its argument is the looked-up name: comparing it is the lookup
        return any(isinstance(n, ast.Name) and n.id in params for t in self.ifs for n in ast.walk(t))

    def _getattr_names(self) -> list[str]:
        """Inside a module-level __getattr__(name): the names the enclosing ifs compare against."""
        fn = self._outer_function()
        if fn is None or fn.name != "__getattr__" or len(self.scope) != 1:
            return []
        out: list[str] = []
        for test in self.ifs:
            for n in ast.walk(test):
                if isinstance(n, ast.Compare) and len(n.ops) == 1 and isinstance(n.ops[0], (ast.Eq, ast.In)):
                    rhs = n.comparators[0]
                    if isinstance(rhs, ast.Constant) and isinstance(rhs.value, str):
                        out.append(rhs.value)
                    elif _str_list(rhs):
                        out.extend(_str_list(rhs))
                    elif isinstance(rhs, ast.Dict):
                        out.extend(
                            k.value for k in rhs.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)
                        )
                    elif isinstance(rhs, ast.Name) and rhs.id in self.str_colls:
                        out.extend(self.str_colls[rhs.id])  # `if name in _deprecated_attrs:`
        return sorted(set(out))

    def _site(
        self,
        kind: str,
        api: str,
        call: ast.Call | None,
        line: int,
        via: str = "",
        category: str = "",
        keyed: bool = True,
    ):
        msg = ""
        if call is not None:
            first = (
                call.args[0]
                if call.args
                else next((k.value for k in call.keywords if k.arg in ("message", "msg", "reason")), None)
            )
            msg = render(first, self.consts) if first is not None else ""
            if kind == "deprecated-decorator" and not msg:
                # torchaudio-style deprecated(direction, version=...): join the string args
                msg = " ".join(render(a, self.consts) for a in call.args if isinstance(a, ast.Constant))
        param = self._param_of(msg) if kind == "warn" and keyed else None
        if param:
            api = f"{api}({param}=)"
        self.sites.append(
            {"kind": kind, "api": api, "line": line, "message": whole(msg), "category": category, "via": via}
        )
        if kind == "warn" and self._on_arguments():
            self.sites[-1]["on_args"] = True
        if kind == "warn" and self.ifs and not (self._getattr_names() and len(self.ifs) == 1):
            self.sites[-1]["in_if"] = True  # under any condition (an environment variable, a flag, ...)

    def visit_Raise(self, node: ast.Raise):
        # a function kept only to fail with a removal message: `torch.cholesky` in 2.14
        # (torch/_linalg_utils.py, re-exported by torch/__init__.py) raises "...is now removed"
        exc = node.exc
        fn = self._outer_function()
        if fn is not None and isinstance(exc, ast.Call) and exc.args and _only_raises(fn.body):
            msg = render(exc.args[0], self.consts)
            if REMOVED_WORDING.search(msg):
                # the whole function is the stub: not keyed on a parameter
                self._site("removed", self._api_for(None), exc, node.lineno, via=_last_name(exc), keyed=False)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call):
        if self._is_warn(node):
            cat_node = (
                node.args[1]
                if len(node.args) > 1
                else next((k.value for k in node.keywords if k.arg == "category"), None)
            )
            category = _last_name(cat_node) if cat_node is not None else "UserWarning"
            msg = render(node.args[0], self.consts) if node.args else ""
            if category in DEPRECATION_CATEGORIES or WORDING.search(msg):
                self._emit_warn(node, category)
        elif self._is_deprecator(node) and "set_warn" not in _last_name(node):
            self._emit_warn(node, "", via=_last_name(node), callee=_dotted(node.func))
        self.generic_visit(node)

    def _emit_warn(self, node: ast.Call, category: str, via: str = "", callee: str = ""):
        if not self.scope:
            base = [self.mod]  # module-level: warns on import
        else:
            base = [self._api_for(None)]
        names = self._getattr_names()
        if names:
            base = [f"{self.mod}.{n}" for n in names]
        fn = self._outer_function()
        keyed = not (fn is not None and fn.name == "__getattr__")  # its parameter is the looked-up name
        for api in base:
            self._site("warn", api, node, node.lineno, via=via, category=category, keyed=keyed)
            if callee:
                self.sites[-1]["callee"] = callee


def analyse(rel: str, data: bytes) -> dict:
    mod = module_name(rel)
    try:
        tree = ast.parse(data, filename=rel)
    except (SyntaxError, ValueError) as e:
        return {"error": f"{type(e).__name__}: {e.msg if hasattr(e, 'msg') else e}"}
    v = FileVisitor(mod, rel.endswith("/__init__.py"))
    v.visit(tree)
    return {
        "sites": v.sites,
        "defined": v.defined,
        "public_defs": v.public_defs,
        "imported": {k: list(x) for k, x in v.imported.items()},
        "stars": v.stars,
        "all": None if v.all_dynamic else v.all,
        "all_line": v.all_line,
        "has_getattr": v.has_getattr,
        "getattr_strings": sorted(v.strings) if v.has_getattr else [],
        "decorators": v.decorators,
        "conditional": sorted(v.conditional),
        "own": sorted(v.own),
        "members": v.members,
        "lazy": sorted(v.lazy),
    }


class Cache:
    """Per-file results keyed by content hash, so a second version only parses what changed."""

    def __init__(self, path: Path | None):
        self.path = path
        self.data: dict[str, dict] = {}
        if path and path.is_file():
            try:
                self.data = json.loads(path.read_text())
                if self.data.get("_v") != MINER_VERSION:
                    self.data = {}
            except (ValueError, OSError):
                self.data = {}
        self.dirty = False

    def get(self, rel: str, data: bytes) -> dict:
        key = hashlib.sha1(rel.encode() + b"\0" + data).hexdigest()
        hit = self.data.get(key)
        if hit is None:
            hit = analyse(rel, data)
            self.data[key] = hit
            self.dirty = True
        return hit

    def save(self):
        if self.path and self.dirty:
            self.data["_v"] = MINER_VERSION
            tmp = self.path.with_suffix(".tmp")
            tmp.write_text(json.dumps(self.data))
            os.replace(tmp, self.path)
