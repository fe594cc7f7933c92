#!/usr/bin/env python3
"""Mine the user-facing deprecations of a torch / torchvision / torchaudio release, statically.

Reads a wheel (``.whl`` zip) or an installed tree with :mod:`ast`; never imports it. Finds:

* ``warn``: ``warnings.warn(msg, category)`` where the category is ``DeprecationWarning``,
  ``PendingDeprecationWarning`` or ``FutureWarning``, or where any other category's message has
  deprecation wording (see ``WORDING``); also calls of the library's own deprecation helpers
  (any callee whose name contains ``deprecat``, e.g. ``warn_deprecated("vmap")``,
  ``lazy_deprecated_import(...)``).
* ``deprecated-decorator``: ``@deprecated(...)`` / ``@typing_extensions.deprecated(...)`` and any
  decorator or module-level wrapper call whose callee name contains ``deprecat`` or starts with
  ``dropping`` (torchaudio's ``dropping_support``), e.g. ``uniform = _make_deprecate(uniform_)``.
* ``removed``: public names that one version exports and the next mined version no longer defines
  (module ``__all__`` when it is a literal, else the public top-level definitions), and public
  modules that disappear.

"User-facing" (documented in docs/coverage.md):

* the API's canonical name has no ``_``-prefixed component (dunders are not private). A private
  definition re-exported by a public module (``from torch._tensor import Tensor`` in
  ``torch/__init__.py``) takes its shortest public alias (``torch.Tensor``), so it counts;
* nothing under a ``test``/``tests``/``benchmarks``/``third_party`` directory;
* only the distribution's own top-level packages (torch wheel: ``torch``, ``functorch``; not
  ``torchgen``, which is build tooling).

Items are keyed by a deterministic id ``<dist>:<kind>:<api>`` so the coverage ledger can key on
it across versions; the evidence is the newest mined site (``path:line`` inside the wheel).

Usage::

    python tools/mine_deprecations.py WHEEL_OR_DIR [WHEEL_OR_DIR ...] [-o out.json]

Several versions of one distribution are mined in version order; removals are computed
between consecutive ones. A directory is an installed ``site-packages`` (give ``--dist``).
"""

from __future__ import annotations

import argparse
import ast
import gzip
import hashlib
import json
import os
import re
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

MINER_VERSION = "14"  # bump when the per-file analysis changes (invalidates the cache)

TOP_PACKAGES = {
    "torch": ("torch", "functorch"),
    "torchvision": ("torchvision",),
    "torchaudio": ("torchaudio", "torio"),
}
DEPRECATION_CATEGORIES = {"DeprecationWarning", "PendingDeprecationWarning", "FutureWarning"}
# Deprecation wording in a message of another category (UserWarning, the default).
WORDING = re.compile(
    r"deprecat|will be removed|(?:has|have) been removed|is removed|are removed|removed in"
    r"|no longer (?:be )?supported|not be supported|obsolete|in a future (?:release|version)"
    r"|will be dropped|legacy .* will",
    re.I,
)
# Type stubs of the C extension: the only static record of names bound in C++
# (`torch.cholesky`, `Tensor.qr`). stub path -> (public name prefix, class holding the names or None)
STUBS = {
    "torch/_C/_VariableFunctions.pyi": ("torch", None),
    "torch/_C/__init__.pyi": ("torch.Tensor", ("TensorBase", "_TensorBase")),
}
# A raise with this wording marks a removed API (or a removed argument of a live one).
REMOVED_WORDING = re.compile(
    r"(?:has|have) been removed|was removed|is (?:now )?removed|are (?:now )?removed|removed in (?:pytorch|version|v?\d)"
    r"|no longer (?:available|supported|exists)",
    re.I,
)
EXCLUDED_DIRS = {"test", "tests", "benchmarks", "third_party", "_vendor", "_vendored"}
# Class methods whose warnings belong to the class (calling the class runs them).
CTOR_METHODS = {"__init__", "__new__", "__post_init__", "__init_subclass__"}


# ----------------------------------------------------------------------------- sources


@dataclass
class Source:
    dist: str
    version: str
    origin: str
    files: dict[str, bytes] = field(default_factory=dict)  # relpath -> bytes


def _parse_version(v: str) -> tuple:
    v = v.split("+", 1)[0]
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.]", v))


def _read_metadata(text: str) -> tuple[str, str]:
    name = version = ""
    for line in text.splitlines():
        if line.startswith("Name:") and not name:
            name = line.split(":", 1)[1].strip()
        elif line.startswith("Version:") and not version:
            version = line.split(":", 1)[1].strip()
        if not line.strip():
            break
    return name.lower(), version


def _is_c_stub(rel: str) -> bool:
    """A type stub of the C extension (`torch/_C/_nn.pyi`): the names it declares exist at run time."""
    return rel.startswith("torch/_C/") and rel.endswith(".pyi")


def load_wheel(path: Path, c_stubs: bool = False) -> Source:
    """`c_stubs`: also every `torch/_C/*.pyi` (the API index reads them; the ledger does not)."""
    with zipfile.ZipFile(path) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        dist, version = _read_metadata(zf.read(meta).decode("utf-8", "replace"))
        src = Source(dist, version.split("+", 1)[0], path.name)
        tops = TOP_PACKAGES.get(dist, (dist,))
        for n in names:
            if (n.endswith(".py") and n.split("/", 1)[0] in tops) or n in STUBS or (c_stubs and _is_c_stub(n)):
                src.files[n] = zf.read(n)
    return src


def load_tree(site: Path, dist: str) -> Source:
    version = ""
    for info in sorted(site.glob("*.dist-info")):
        meta = info / "METADATA"
        if meta.is_file():
            name, ver = _read_metadata(meta.read_text("utf-8", "replace"))
            if name == dist:
                version = ver
                break
    src = Source(dist, version.split("+", 1)[0] or "0", str(site))
    for top in TOP_PACKAGES.get(dist, (dist,)):
        root = site / top
        if not root.is_dir():
            continue
        for p in root.rglob("*.py"):
            src.files[p.relative_to(site).as_posix()] = p.read_bytes()
    for rel in STUBS:
        if (site / rel).is_file():
            src.files[rel] = (site / rel).read_bytes()
    return src


def load(path: str, dist: str | None = None, c_stubs: bool = False) -> Source:
    p = Path(path)
    if p.is_dir():
        if not dist:
            raise SystemExit(f"{path}: a directory needs --dist (torch, torchvision, torchaudio)")
        src = load_tree(p, dist)
        if c_stubs:
            for f in sorted((p / "torch" / "_C").rglob("*.pyi")):
                src.files.setdefault(f.relative_to(p).as_posix(), f.read_bytes())
        return src
    if p.suffix == ".whl" and p.is_file():
        return load_wheel(p, c_stubs)
    raise SystemExit(f"{path}: not a wheel (.whl) or a directory")


def peek(path: str, dist: str | None = None) -> tuple[str, str]:
    """(dist, version) of an input without reading its sources: orders versions before mining."""
    p = Path(path)
    if p.suffix == ".whl":
        name, version = p.name.split("-")[:2]
        return name.lower().replace("_", "-"), version.split("+", 1)[0]
    s = load(path, dist)
    return s.dist, s.version


# ----------------------------------------------------------------------------- per-file analysis


def module_name(rel: str) -> str:
    parts = rel[: -4 if rel.endswith(".pyi") else -3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_excluded_path(rel: str) -> bool:
    return any(part in EXCLUDED_DIRS for part in rel.split("/")[:-1])


def is_private(dotted: str) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in dotted.split("."))


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


def fragment(msg: str, limit: int = 160) -> str:
    msg = " ".join(msg.split())
    return msg if len(msg) <= limit else msg[: limit - 1] + "…"


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
        if isinstance(b, ast.If) and _only_raises(b.body) and (not b.orelse or _only_raises(b.orelse)):
            continue
        return False
    return True


class FileVisitor(ast.NodeVisitor):
    """Collects deprecation sites and the module's top-level names in one pass."""

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
            {"kind": kind, "api": api, "line": line, "message": fragment(msg), "category": category, "via": via}
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


# ----------------------------------------------------------------------------- per-version model


@dataclass
class Release:
    dist: str
    version: str
    origin: str
    modules: dict[str, dict]  # module -> analysis
    paths: dict[str, str]  # module -> relpath
    errors: dict[str, str]
    stubs: dict = field(default_factory=dict)  # public prefix -> (stub path, {name: line})

    def exported(self, mod: str) -> dict[str, int]:
        """Public names a module promises: a literal __all__, else its public top-level definitions."""
        a = self.modules[mod]
        if a["all"] is not None:
            return {n: a["defined"].get(n, a.get("all_line", 0)) for n in a["all"] if not n.startswith("_")}
        names = dict(a["public_defs"])
        if self.paths[mod].endswith("__init__.py"):
            # a package re-exports what it imports from inside the distribution
            top = mod.split(".")[0]
            for local, (src, _name, line) in a["imported"].items():
                if not local.startswith("_") and src.split(".")[0] == top:
                    names.setdefault(local, line)
        return names

    def resolvable(self, mod: str, name: str, _seen=None) -> bool:
        """Can `mod.name` still be reached (any binding, a star import, a submodule, a lazy __getattr__)?"""
        a = self.modules.get(mod)
        if a is None:
            return False
        if f"{mod}.{name}" in self.modules:
            return True
        if name in a["defined"]:
            src = a["imported"].get(name, ("",))[0]
            top = mod.split(".")[0]
            # only an optional import from outside the distribution (torchvision 0.26's
            # `try: from pytorch.vision.fb.io import VideoReader except ImportError: pass`)
            if not (name in a.get("conditional", ()) and src.split(".")[0] != top):
                return True
        if a["all"] is not None and name in a["all"]:
            return True  # still promised: bound at run time (e.g. by the C extension), as before
        if a["has_getattr"] and name in a["getattr_strings"]:
            return True
        _seen = _seen or set()
        if mod in _seen:
            return False
        _seen.add(mod)
        for star in a["stars"]:
            if star in self.modules:
                sa = self.modules[star]
                if sa["all"] is not None:
                    if name in sa["all"]:
                        return True
                elif not name.startswith("_") and self.resolvable(star, name, _seen):
                    return True
        return False

    def aliases(self, private: bool = False) -> dict[str, str]:
        """Canonical (shortest public) name of each definition that a public module re-exports
        (`private`: private modules' re-exports too, `torch._dynamo.is_compiling`; the API index)."""
        edges: dict[str, set[str]] = {}
        for mod, a in self.modules.items():
            if is_private(mod) and not private:
                continue
            is_pkg = self.paths[mod].endswith("__init__.py")
            listed = set(a["all"] or ())
            for local, (src, name, _line) in a["imported"].items():
                if local.startswith("_") or src not in self.modules:
                    continue
                if not (is_pkg or local in listed):
                    continue  # a module importing a helper for its own use does not re-export it
                edges.setdefault(f"{src}.{name}", set()).add(f"{mod}.{local}")
            for star in a["stars"]:
                if star in self.modules:
                    sa = self.modules[star]
                    names = sa["all"] if sa["all"] is not None else list(sa["public_defs"])
                    for n in names:
                        edges.setdefault(f"{star}.{n}", set()).add(f"{mod}.{n}")
        best: dict[str, str] = {}

        def key(n: str):
            return (is_private(n), n.count("."), len(n), n)

        def canon(name: str, depth=0) -> str:
            if name in best:
                return best[name]
            best[name] = name  # cycle guard
            cands = [name]
            if depth < 8:
                for alias in edges.get(name, ()):
                    cands.append(canon(alias, depth + 1))
            best[name] = min(cands, key=key)
            return best[name]

        for n in list(edges):
            canon(n)
        return best


def _may_matter(rel: str, data: bytes) -> bool:
    """For sites only: files with no warning, no deprecation word and no re-exports add nothing."""
    return (
        b"warn" in data
        or b"eprecat" in data
        or b"ropping" in data
        or rel.endswith("/__init__.py")
        or b"__all__" in data
    )


def stub_names(rel: str, data: bytes) -> dict[str, int]:
    """Public function names a C-extension stub declares (top level, or in the given class)."""
    prefix, classes = STUBS[rel]
    try:
        tree = ast.parse(data)
    except SyntaxError:
        return {}
    body = tree.body
    if classes:
        body = next((n.body for n in tree.body if isinstance(n, ast.ClassDef) and n.name in classes), [])
    out: dict[str, int] = {}
    for n in body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and not n.name.startswith("_"):
            out.setdefault(n.name, n.lineno)
    return out


def build_release(src: Source, cache: Cache, sites_only: bool = False) -> Release:
    modules, paths, errors = {}, {}, {}
    stubs: dict[str, tuple[str, dict[str, int]]] = {}
    for rel in sorted(src.files):
        data = src.files[rel]
        if rel in STUBS:
            if not sites_only:
                stubs[STUBS[rel][0]] = (rel, stub_names(rel, data))
            continue
        if sites_only and not _may_matter(rel, data):
            continue
        a = cache.get(rel, data)
        mod = module_name(rel)
        if "error" in a:
            errors[rel] = a["error"]
            continue
        modules[mod] = a
        paths[mod] = rel
    tensor_py = src.files.get("torch/_tensor.py", b"").decode("utf-8", "replace")
    if "torch.Tensor" in stubs:  # methods torch/_tensor.py's Tensor adds on top of TensorBase
        stubs["torch.Tensor"][1].update(
            {m: 0 for m in re.findall(r"^    def (\w+)\(", tensor_py, re.M) if m not in stubs["torch.Tensor"][1]}
        )
    r = Release(src.dist, src.version, src.origin, modules, paths, errors)
    r.stubs = stubs
    return r


def canonical_api(api: str, aliases: dict[str, str]) -> str:
    """Rewrite the longest re-exported prefix of `api` to its public alias."""
    base, _, param = api.partition("(")
    parts = base.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in aliases and aliases[head] != head:
            base = ".".join([aliases[head]] + parts[i:])
            break
    return base + (f"({param}" if param else "")


def _resolve(callee: str, mod: str, a: dict) -> str:
    head, _, rest = callee.partition(".")
    if head in a["imported"]:
        src, name, _line = a["imported"][head]
        return f"{src}.{name}" + (f".{rest}" if rest else "")
    if head in a["defined"]:
        return f"{mod}.{callee}"
    return callee


def sites_of(rel: Release, public_only: bool = True) -> list[dict]:
    """Warn and decorator sites; `public_only=False` (the API index) keeps private APIs too."""
    aliases = rel.aliases()
    out = []
    # Functions whose body warns about deprecation (private helpers included): a decorator that is
    # one of them deprecates what it decorates (torchvision's @handle_legacy_interface(...)).
    helpers: dict[str, dict] = {}
    for mod, a in rel.modules.items():
        for s in a["sites"]:
            if s["kind"] == "warn" and "." in s["api"] and s["api"] != mod:
                helpers.setdefault(s["api"].split("(")[0], s)
    for mod, a in rel.modules.items():
        path = rel.paths[mod]
        if is_excluded_path(path):
            continue
        for d in a.get("decorators", ()):
            h = helpers.get(_resolve(d["callee"], mod, a))
            if h is None:
                continue
            api = canonical_api(d["api"], aliases)
            if public_only and is_private(api):
                continue
            out.append(
                {
                    "kind": "deprecated-decorator",
                    "api": api,
                    "line": d["line"],
                    "path": path,
                    "message": h["message"],
                    "category": h.get("category", ""),
                    "via": d["callee"].rpartition(".")[2],
                }
            )
    for mod, a in rel.modules.items():
        path = rel.paths[mod]
        if is_excluded_path(path):
            continue
        for s in a["sites"]:
            api = canonical_api(s["api"], aliases)
            if public_only and is_private(api.split("(")[0]):
                continue
            s = {**s, "api": api, "path": path}
            if s.get("callee") and (not s["message"] or s["message"] == "{…}"):
                # `_warn_deprecated()` / `@dropping_support`: the helper's own warning says what
                h = helpers.get(_resolve(s["callee"], mod, a))
                if h is not None:
                    s["message"] = h["message"]
            s.pop("callee", None)
            out.append(s)
    return out


def mine_sites(src: Source, cache: Cache | None = None) -> dict:
    """One version's warn and decorator items, parsing only the files that can hold them (fast:
    what tests/test_coverage_ledger.py runs over the installed torch)."""
    rel = build_release(src, cache or Cache(None), sites_only=True)
    return mine([Source(src.dist, src.version, src.origin)], Cache(None), _prebuilt={src.dist: rel})


def removals(old: Release, new: Release) -> list[dict]:
    out = []
    for prefix, (path, names) in sorted(old.stubs.items()):
        if prefix not in new.stubs:
            continue  # the new wheel has no such stub: nothing to compare
        new_names = new.stubs[prefix][1]
        for name, line in sorted(names.items()):
            if name in new_names or name.startswith("_"):
                continue
            if prefix == "torch" and new.resolvable("torch", name):
                continue  # now defined in Python (torch/__init__.py, torch/functional.py, ...)
            if line == 0:  # a Python method of torch/_tensor.py's Tensor
                continue
            out.append(
                {
                    "kind": "removed",
                    "api": f"{prefix}.{name}",
                    "path": path,
                    "line": line,
                    "message": f"no longer declared by the C extension ({path})",
                }
            )
    old_aliases = old.aliases()
    gone_modules = sorted(
        m for m in old.modules if m not in new.modules and not is_private(m) and not is_excluded_path(old.paths[m])
    )
    gone_set = set(gone_modules)
    for m in gone_modules:
        parent = m.rpartition(".")[0]
        if parent in gone_set:
            continue  # its package is reported
        if parent and new.resolvable(parent, m.rpartition(".")[2]):
            continue  # still reachable as an attribute (e.g. a lazy alias)
        out.append({"kind": "removed", "api": m, "message": "module removed", "path": old.paths[m], "line": 1})
    for m in sorted(old.modules):
        if m not in new.modules or is_private(m) or is_excluded_path(old.paths[m]):
            continue
        oa = old.modules[m]
        for name, line in sorted(old.exported(m).items()):
            if new.resolvable(m, name):
                continue
            how = (
                "def/class/assignment"
                if name in oa["public_defs"]
                else "import"
                if name in oa["imported"]
                else "listed in __all__ only"
            )
            api = canonical_api(f"{m}.{name}", old_aliases)
            if is_private(api):
                continue
            # re-exported elsewhere under the canonical name, and still there: only this alias went
            cmod, _, cname = api.rpartition(".")
            if api != f"{m}.{name}" and cmod in new.modules and new.resolvable(cmod, cname):
                api = f"{m}.{name}"
            out.append(
                {
                    "kind": "removed",
                    "api": api,
                    "message": f"no longer defined in {m} (was: {how})",
                    "path": old.paths[m],
                    "line": line,
                }
            )
    return out


# ----------------------------------------------------------------------------- per-release API index

INDEX_FORMAT = 1
INDEX_ABOUT = (
    "Per-release API index of torch, mined from the wheels by tools/mine_deprecations.py --index "
    "(docs/coverage.md, 'The API index'). Generated: never edit by hand."
)


def indexed(parent: str, member: bool = False) -> bool:
    """Does the index list the names bound in `parent` (a module, or with `member` a class)?

    Everything under a public path; under a private one only what rules name in practice: the
    top-level names of a private module and of its direct submodules (`torch._export.X`,
    `torch._inductor.config.X`, `torch.utils.data._utils.collate.X`), never class members there,
    nor deeper internals (`torch._inductor.codegen.cpp.X`) or test helpers (`torch.testing._internal`).
    Keeps the index small (about 45,000 names a release instead of 90,000)."""
    parts = parent.split(".")
    private = [i for i, p in enumerate(parts) if is_private(p)]
    if not private:
        return True
    if member or parent == "torch.testing._internal" or parent.startswith("torch.testing._internal."):
        return False
    return len(parts) - private[0] - 1 <= 1


class Names:
    """What one release binds, module by module (the existence half of the index)."""

    def __init__(self, rel: Release):
        self.rel = rel
        self.tops = TOP_PACKAGES.get(rel.dist, (rel.dist,))
        self._bound: dict[str, set[str]] = {}

    def bound(self, mod: str, _depth: int = 0) -> set[str]:
        """Names `mod.<name>` reaches: its own definitions (private too), re-exports (a package's
        imports from inside the distribution, or names in a literal `__all__`), names a lazy
        `__getattr__` compares with, and what its star imports provide."""
        if mod in self._bound:
            return self._bound[mod]
        a = self.rel.modules[mod]
        self._bound[mod] = out = set()  # cycle guard
        out.update(a.get("own", ()))
        out.update(a["all"] or ())
        out.update(a.get("lazy", ()))
        is_pkg = self.rel.paths[mod].endswith(("__init__.py", "__init__.pyi"))
        listed = set(a["all"] or ())
        for local, (src, _name, _line) in a["imported"].items():
            if src.split(".")[0] in self.tops and (is_pkg or local in listed):
                out.add(local)
        for star in a["stars"]:
            if star in self.rel.modules and _depth < 10:
                sa = self.rel.modules[star]
                provided = sa["all"] if sa["all"] is not None else self.bound(star, _depth + 1)
                out.update(n for n in provided if not n.startswith("_"))
        return out

    def class_members(self, mod: str, name: str, depth: int = 0) -> list[str]:
        """Members of the class `mod.name`, following re-exports to its definition."""
        a = self.rel.modules.get(mod)
        if a is None or depth > 6:
            return []
        if name in a.get("members", {}) and name in a.get("own", ()):
            return a["members"][name]
        if name in a["imported"]:
            src, orig, _line = a["imported"][name]
            return self.class_members(src, orig, depth + 1)
        for star in a["stars"]:
            if star in self.rel.modules and name in self.bound(star):
                return self.class_members(star, name, depth + 1)
        return []

    def all_names(self) -> set[str]:
        out: set[str] = set()
        for mod in self.rel.modules:
            if is_excluded_path(self.rel.paths[mod]) or not indexed(mod.rpartition(".")[0]):
                continue
            out.add(mod)
            if not indexed(mod):
                continue
            for n in self.bound(mod):
                out.add(f"{mod}.{n}")
                if indexed(f"{mod}.{n}", member=True):
                    out.update(f"{mod}.{n}.{m}" for m in self.class_members(mod, n))
        for prefix, (_path, names) in self.rel.stubs.items():
            out.update(f"{prefix}.{n}" for n in names)
        return out


def alias_groups(rel: Release) -> dict[str, set[str]]:
    """Each re-exported name -> every name of the same definition (private re-exports included)."""
    by_canon: dict[str, set[str]] = {}
    for name, canon in rel.aliases(private=True).items():
        by_canon.setdefault(canon, {canon}).add(name)
    return {name: group for group in by_canon.values() for name in group}


def release_events(rel: Release) -> tuple[list[dict], dict[str, str]]:
    """One release's deprecation events (warn / deprecated-decorator / removed: a stub that raises
    with removal wording), and the aliases of their APIs (alias -> canonical)."""
    events, aliases = [], {}
    groups = alias_groups(rel)
    for s in sites_of(rel, public_only=False):
        if not indexed(s["api"].partition("(")[0].rpartition(".")[0]):
            continue  # deep internals, as in `apis`
        events.append(
            {
                "api": s["api"],
                "kind": s["kind"],
                "category": s.get("category", ""),
                "message": s["message"],
                "on_args": bool(s.get("on_args")),
                "in_if": bool(s.get("in_if")),
                "evidence": f"{s['path']}:{s['line']}",
            }
        )
        base = s["api"].partition("(")[0]
        for alias in groups.get(base, ()):
            if alias != base:
                aliases[alias] = base
    return events, aliases


def intervals(indices: Iterable[int]) -> str:
    """Sorted release indices as intervals: [0, 1, 2, 5] -> "0-2,5"."""
    out: list[str] = []
    run: list[int] = []
    for i in sorted(set(indices)):
        if run and i == run[-1] + 1:
            run.append(i)
            continue
        if run:
            out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
        run = [i]
    if run:
        out.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
    return ",".join(out)


def build_index(sources: Iterable, cache: Cache, log=None) -> dict:
    """The index over several releases of one distribution: per API the releases that bind it,
    and per deprecated API its events, each with the releases it holds in."""
    srcs = sorted(sources, key=lambda s: _parse_version(s[1]))
    dists = {s[0] for s in srcs}
    if len(dists) != 1:
        raise SystemExit(f"--index takes the releases of one distribution, got {sorted(dists)}")
    releases: list[str] = []
    present: dict[str, list[int]] = {}
    events: dict[tuple, list[int]] = {}
    evidence: dict[tuple, str] = {}
    aliases: dict[str, str] = {}
    for i, (_dist, _version, loader) in enumerate(srcs):
        t0 = time.perf_counter()
        src = loader()
        rel = build_release(src, cache)
        src.files.clear()
        releases.append(rel.version)
        for n in Names(rel).all_names():
            present.setdefault(n, []).append(i)
        found, al = release_events(rel)
        for alias, canon in al.items():
            aliases.setdefault(alias, canon)
        for e in found:
            key = (e["api"], e["kind"], e["category"], e["message"], e["on_args"], e["in_if"])
            events.setdefault(key, []).append(i)
            evidence[key] = f"{rel.version}:{e['evidence']}"  # the newest release's site
        if log:
            log(
                f"{rel.dist} {rel.version}: {len(present)} names so far, {len(found)} events, {time.perf_counter() - t0:.1f}s"
            )
    by_api: dict[str, list[dict]] = {}
    for key in sorted(events):
        api, kind, category, message, on_args, in_if = key
        by_api.setdefault(api, []).append(
            {
                "kind": kind,
                "category": category,
                "message": message,
                "on_args": on_args,
                "in_if": in_if,
                "in": intervals(events[key]),
                "evidence": evidence[key],
            }
        )
    for api in by_api:
        by_api[api].sort(key=lambda e: (int(e["in"].split("-")[0].split(",")[0]), e["kind"], e["message"]))
    return {
        "about": INDEX_ABOUT,
        "format": INDEX_FORMAT,
        "miner": MINER_VERSION,
        "dist": srcs[0][0],
        "releases": releases,
        "apis": {n: intervals(ix) for n, ix in sorted(present.items())},
        "events": dict(sorted(by_api.items())),
        "aliases": dict(sorted(aliases.items())),
    }


def write_index(index: dict, path: Path) -> None:
    """Deterministic bytes: sorted keys, one API per line, gzip without a timestamp."""
    lines = ["{"]
    keys = list(index)
    for k, key in enumerate(keys):
        value = index[key]
        sep = "," if k < len(keys) - 1 else ""
        if isinstance(value, dict) and value:
            lines.append(f" {json.dumps(key)}: {{")
            inner = list(value.items())
            for j, (name, v) in enumerate(inner):
                comma = "," if j < len(inner) - 1 else ""
                lines.append(
                    f"  {json.dumps(name, ensure_ascii=False)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}{comma}"
                )
            lines.append(f" }}{sep}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, sort_keys=True, ensure_ascii=False)}{sep}")
    lines.append("}")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    tmp = path.with_name(path.name + ".tmp")
    if path.suffix == ".gz":
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
            gz.write(data)
    else:
        tmp.write_bytes(data)
    os.replace(tmp, path)


def read_index(path: Path) -> dict:
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def _expand(spec: str) -> set[int]:
    out: set[int] = set()
    for part in filter(None, spec.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


class Index:
    """Questions the window test and the mined-catalogue derivation ask of an index."""

    def __init__(self, data: dict):
        self.data = data
        self.releases: list[str] = data["releases"]
        self.apis: dict[str, str] = data["apis"]
        self.aliases: dict[str, str] = data["aliases"]

    @classmethod
    def read(cls, path: Path) -> "Index":
        return cls(read_index(path))

    def present(self, name: str) -> set[int]:
        """Release indices that bind `name` (a `(param=)` key: those of its function)."""
        return _expand(self.apis.get(name.partition("(")[0], ""))

    def events(self, name: str, kinds: tuple[str, ...] = ("warn", "deprecated-decorator", "removed")) -> list[dict]:
        """The events recorded for `name` or for the definition it re-exports, each with `releases`."""
        base, sep, param = name.partition("(")
        keys = {name, self.aliases.get(base, base) + sep + param}
        out = []
        for key in sorted(keys):
            for e in self.data["events"].get(key, ()):
                if e["kind"] in kinds:
                    out.append({**e, "api": key, "releases": _expand(e["in"])})
        return out

    def warns(self, name: str) -> set[int]:
        return set().union(*(e["releases"] for e in self.events(name, ("warn", "deprecated-decorator"))))

    def raises(self, name: str) -> set[int]:
        return set().union(*(e["releases"] for e in self.events(name, ("removed",))))


# ----------------------------------------------------------------------------- the mined catalogue (rules/mined)

LEDGER_PATH = Path(__file__).resolve().parent.parent / "docs" / "coverage" / "ledger.json"
CATALOGUE_ABOUT = (
    "The mined catalogue of rules/mined (ADV001-ADV003): user-facing torch APIs that are removed, "
    "decorated deprecated or warned about on every call, with their windows from the wheels' API "
    "index. Generated by tools/mine_deprecations.py --index ... --catalogue; never edit by hand."
)
# A warning about leaving an argument out ("Implicit dimension choice"): passing it is not the deprecation.
_MISSING_ARG = re.compile(
    r"implicit|explicitly|without|not (?:passed|specified|set)|must (?:pass|specify)"
    r"|should be passed|default value|default weight initialization",
    re.I,
)
_REPLACEMENT = re.compile(
    r"\b(?:[Uu]se|[Cc]all|[Ss]witch to|in favou?r of|replaced (?:by|with)|renamed to)\s+"
    r"`?((?:torch|functorch)\.[A-Za-z_][\w.]*[A-Za-z0-9_])"
)


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _window(ix: "Index", api: str) -> dict | None:
    """An API's window in minor releases (.0 releases only: a window cannot name 2.14.1)."""
    minors = [(i, _minor(v)) for i, v in enumerate(ix.releases) if v.endswith(".0")]
    present = ix.present(api)
    warns = ix.warns(api)
    raises = ix.raises(api)
    first = lambda s: next((m for i, m in minors if i in s), None)  # noqa: E731
    gone = set()
    if present:
        gone = {i for i, _ in minors if i > min(present) and all(j not in present for j in range(i, len(ix.releases)))}
    removed = first(gone | raises)
    deprecated = first(warns)
    undeprecated = None
    if warns and not removed:
        later = [i for i, _ in minors if i > max(warns) and i in present]
        undeprecated = first(set(later[:1]))
    if removed is None and deprecated is None:
        return None
    return {"deprecated_in": deprecated, "removed_in": removed, "undeprecated_in": undeprecated}


def _quote(events: list[dict]) -> tuple[str, str]:
    """The newest event's text and category (removal stubs last: their text says "removed")."""
    if not events:
        return "", ""
    e = max(events, key=lambda e: (max(e["releases"]), e["kind"] != "removed"))
    text = e["message"] if e["message"] not in ("", "{…}") else ""
    return fragment(text, 160), e["category"] or ("" if e["kind"] != "deprecated-decorator" else "@deprecated")


def _ledger() -> dict[str, dict]:
    return json.loads(LEDGER_PATH.read_text(encoding="utf-8"))["items"]


_DEPRECATES = re.compile(r"`?([A-Za-z_][\w.]*)`?=?(?:\(\))?\s+(?:is|are|has been|was)\s+(?:now\s+|being\s+)?deprecat")


def _on_entry(event: dict, leaf: str, trusted: bool) -> bool:
    """Does the event deprecate the API itself on every use: a deprecation decorator, or a warning
    outside any `if` that names the API (not one argument, not an environment variable)?"""
    text = event["message"]
    m = _DEPRECATES.search(text)
    other = m is not None and leaf not in text and m.group(1).rpartition(".")[2] != leaf
    if event["kind"] == "deprecated-decorator":
        return not other  # `@deprecated("return_lse is deprecated")` on an overload: about an argument
    return (
        event["kind"] == "warn"
        and trusted
        and not event["on_args"]
        and not event.get("in_if", True)
        and bool(re.search(rf"\b{re.escape(leaf)}\b", text))
        and not other
    )


def _names_param(text: str, param: str) -> bool:
    """Does the text say that passing this keyword is deprecated (not another argument, not one value)?"""
    p = re.escape(param)
    other = re.search(r"`(\w+)` (?:argument|parameter|option|flag)", text)
    if (other and other.group(1) != param) or re.search(r"other than (?:the )?default", text):
        return False
    return bool(
        re.search(
            rf"[`'\"]{p}[`'\"=]|\b{p}\b[`'\"]?\s*(?:=\s*\S+\s*)?(?:argument |parameter |flag |option |kwarg )?"
            rf"(?:is|are|was|has been|have been)\s+(?:now\s+|being\s+)?(?:deprecat|renamed|removed|ignored|no longer)"
            rf"|(?:argument|parameter|keyword|kwarg) [`'\"]?{p}\b",
            text,
        )
    )


def derive_catalogue(index: dict, ledger: dict[str, dict]) -> dict:
    """The mined rules' data: the ledger's user-facing torch items with no hand rule (`todo`, or `rule`
    by an ADV0xx rule itself),
    each with its window, its aliases and the wheel's own text from the index."""
    ix = Index(index)
    # an index mined before `in_if` covered `else:` branches (miner < 14) cannot tell conditional warnings apart
    trusted = int(index.get("miner", "0")) >= 14
    out: dict[str, dict] = {"removed": {}, "deprecated": {}, "keywords": {}}
    for _iid, e in sorted(ledger.items()):
        rules = [e["rule"]] if isinstance(e.get("rule"), str) else list(e.get("rule") or ())
        mined_only = e["status"] == "rule" and all(r.startswith("ADV0") for r in rules)
        if e["dist"] != "torch" or not (e["status"] == "todo" or mined_only) or is_private(e["api"].partition("(")[0]):
            continue  # triaged as not user-facing / no static pattern, or a hand rule has it
        api = e["api"]
        base, _, param = api.partition("(")
        events = ix.events(api)
        window = _window(ix, api)
        if window is None or (window["deprecated_in"] is None and window["removed_in"] is None):
            continue
        text, category = _quote(events)
        entry = {
            **window,
            "message": text,
            "category": category,
            "aka": sorted(a for a, c in ix.aliases.items() if c == base and not is_private(a)),
            "evidence": e.get("evidence", ""),
        }
        m = _REPLACEMENT.search(text)
        entry["replacement"] = m.group(1) if m else None
        leaf = base.rpartition(".")[2]
        if leaf.startswith("__"):
            continue  # `__getattr__`, `__init__`: a lookup hook, not an API user code names
        if param:
            name = param.rstrip("=)")
            if _MISSING_ARG.search(text) or window["removed_in"] is not None or not _names_param(text, name):
                continue  # about leaving it out, the function's own removal, or not clearly this keyword
            out["keywords"].setdefault(base, {})[name] = entry
        elif window["removed_in"] is not None:
            out["removed"][base] = entry
        elif any(_on_entry(ev, leaf, trusted) for ev in events):
            out["deprecated"][base] = entry
    return {"about": CATALOGUE_ABOUT, "index_releases": ix.releases, **out}


def write_catalogue(catalogue: dict, path: Path) -> None:
    """One API per line, sorted: reviewable, deterministic."""
    lines = ["{"]
    keys = list(catalogue)
    for k, key in enumerate(keys):
        value = catalogue[key]
        sep = "," if k < len(keys) - 1 else ""
        if isinstance(value, dict):
            lines.append(f" {json.dumps(key)}: {{")
            items = sorted(value.items())
            for j, (name, v) in enumerate(items):
                lines.append(
                    f"  {json.dumps(name)}: {json.dumps(v, sort_keys=True, ensure_ascii=False)}"
                    + ("," if j < len(items) - 1 else "")
                )
            lines.append(f" }}{sep}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{sep}")
    lines.append("}")
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)


# ----------------------------------------------------------------------------- items


def item_id(dist: str, kind: str, api: str) -> str:
    """`warn` and `deprecated-decorator` share an id: torch 2.4 turned many warnings.warn calls into
    @deprecated, and that is still one deprecation to triage."""
    return f"{dist}:{'removed' if kind == 'removed' else 'deprecated'}:{api}"


def mine(sources: Iterable, cache: Cache, log=None, _prebuilt: dict | None = None) -> dict:
    """Items over several versions of one or more distributions, merged by id.

    `sources` holds Source objects or (dist, version, loader) triples, loaded one at a time."""
    by_dist: dict[str, list] = {}
    for s in sources:
        if isinstance(s, Source):
            s = (s.dist, s.version, (lambda s=s: s))
        by_dist.setdefault(s[0], []).append(s)
    items: dict[str, dict] = {}
    covered: dict[str, list[str]] = {}
    errors: dict[str, dict[str, str]] = {}
    for dist, srcs in sorted(by_dist.items()):
        srcs.sort(key=lambda s: _parse_version(s[1]))
        prev: Release | None = None
        covered[dist] = []
        for _d, _v, loader in srcs:
            t0 = time.perf_counter()
            s = loader()
            rel = (_prebuilt or {}).get(dist) or build_release(s, cache)
            s.files.clear()  # release the bytes early
            covered[dist].append(rel.version)
            if rel.errors:
                errors[f"{dist}=={rel.version}"] = rel.errors
            found = [dict(x, version=rel.version) for x in sites_of(rel)]
            if prev is not None:
                found += [dict(x, version=rel.version, evidence_version=prev.version) for x in removals(prev, rel)]
            for f in found:
                iid = item_id(dist, f["kind"], f["api"])
                it = items.get(iid)
                ev = f"{f['path']}:{f['line']}"
                if it is None:
                    it = items[iid] = {
                        "id": iid,
                        "dist": dist,
                        "kind": f["kind"],
                        "api": f["api"],
                        "version": f["version"],
                        "versions": [],
                        "message": f["message"],
                        "category": f.get("category", ""),
                        "evidence": [],
                        "via": f.get("via", ""),
                        "kinds": [],
                    }
                if f["version"] not in it["versions"]:
                    it["versions"].append(f["version"])
                if f["kind"] not in it["kinds"]:
                    it["kinds"].append(f["kind"])
                # newest evidence wins; several sites in one version are all kept
                tag = f"{f.get('evidence_version', f['version'])}:{ev}"
                if f["version"] == it["versions"][-1]:
                    if it.get("_ev_version") != f["version"]:
                        it["evidence"] = []
                        it["_ev_version"] = f["version"]
                        it["message"] = f["message"] or it["message"]
                        it["category"] = f.get("category", "") or it["category"]
                        it["kind"] = f["kind"]  # the newest version's mechanism
                    if tag not in it["evidence"]:
                        it["evidence"].append(tag)
            if log:
                log(
                    f"{dist} {rel.version}: {len(rel.modules)} modules, {len(found)} sites, {time.perf_counter() - t0:.1f}s"
                )
            prev = rel
    out_items = []
    for iid in sorted(items):
        it = items[iid]
        it.pop("_ev_version", None)
        it["evidence"] = sorted(it["evidence"])
        out_items.append(it)
    return {"miner": MINER_VERSION, "covered": covered, "parse_errors": errors, "items": out_items}


def summary(result: dict) -> str:
    lines = []
    for dist, versions in result["covered"].items():
        lines.append(f"{dist}: {', '.join(versions)}")
    counts: dict[tuple[str, str, str], int] = {}
    for it in result["items"]:
        counts[(it["dist"], it["version"], it["kind"])] = counts.get((it["dist"], it["version"], it["kind"]), 0) + 1
    lines.append("new items per first-seen version (dist version kind count):")
    for (d, v, k), n in sorted(counts.items(), key=lambda x: (x[0][0], _parse_version(x[0][1]), x[0][2])):
        lines.append(f"  {d} {v} {k} {n}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("inputs", nargs="*", help="wheels (.whl) or installed site-packages directories")
    ap.add_argument("--dist", help="distribution of a directory input (torch, torchvision, torchaudio)")
    ap.add_argument("-o", "--output", help="write JSON here (default: stdout)")
    ap.add_argument("--cache", help="per-file analysis cache (JSON file); speeds up re-runs")
    ap.add_argument("--summary", action="store_true", help="print counts per version and kind to stderr")
    ap.add_argument(
        "--index",
        action="store_true",
        help="write the per-release API index (-o, required; .gz compresses) instead of the items",
    )
    ap.add_argument(
        "--catalogue",
        help="with --index: also write the mined rules' catalogue here (from the index "
        "and the ledger, docs/coverage/ledger.json)",
    )
    ap.add_argument("--from-index", help="with --catalogue: derive it from this committed index (no wheels needed)")
    args = ap.parse_args(argv)
    cache = Cache(Path(args.cache) if args.cache else None)

    def sources() -> Iterator[tuple]:
        for p in args.inputs:
            d, v = peek(p, args.dist)
            yield d, v, (lambda p=p: load(p, args.dist, c_stubs=args.index))

    log = (lambda m: print(m, file=sys.stderr)) if args.summary else None
    if args.from_index:
        if not args.catalogue:
            raise SystemExit("--from-index needs --catalogue PATH")
        write_catalogue(derive_catalogue(read_index(Path(args.from_index)), _ledger()), Path(args.catalogue))
        return 0
    if args.index:
        if not args.output:
            raise SystemExit("--index needs -o PATH")
        index = build_index(list(sources()), cache, log)
        cache.save()
        write_index(index, Path(args.output))
        if args.catalogue:
            write_catalogue(derive_catalogue(index, _ledger()), Path(args.catalogue))
        return 0
    result = mine(sources(), cache, log)
    cache.save()
    text = json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.summary:
        print(summary(result), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
