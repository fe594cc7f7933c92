"""One release as a model: its modules' analyses, what each exports, its aliases, its deprecation
sites, and the removals between two releases."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .common import STUBS, is_excluded_path, is_private, is_shim, module_name
from .sites import Cache
from .wheels import Source


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
        secondary: set[str] = set()  # names a shim passes on: same object, never the canonical name
        for mod, a in self.modules.items():
            if is_private(mod) and not private:
                continue
            is_pkg = self.paths[mod].endswith("__init__.py")
            listed = set(a["all"] or ())
            shim = is_shim(a)
            for local, (src, name, _line) in a["imported"].items():
                # `private`: a package's explicit `from .c10d import _all_gather_base` is the same function too
                if (local.startswith("_") and not private) or src not in self.modules:
                    continue
                if not (is_pkg or shim or local in listed):
                    continue  # a module importing a helper for its own use does not re-export it
                edges.setdefault(f"{src}.{name}", set()).add(f"{mod}.{local}")
                if not (is_pkg or local in listed):
                    secondary.add(f"{mod}.{local}")
            for star in a["stars"]:
                if star in self.modules:
                    sa = self.modules[star]
                    names = sa["all"] if sa["all"] is not None else list(sa["public_defs"])
                    passed = []
                    if sa["all"] is None and is_shim(sa):  # a star import of a shim passes its imports on
                        passed = [n for n in sa["imported"] if not n.startswith("_")]
                    for n in names + passed:
                        edges.setdefault(f"{star}.{n}", set()).add(f"{mod}.{n}")
                    secondary.update(f"{mod}.{n}" for n in passed)
        # One definition = one connected group of names (a re-export of a re-export too, whichever branch
        # reaches the shortest name): each name maps to the group's canonical one.
        parent: dict[str, str] = {}

        def root(n: str) -> str:
            while parent.setdefault(n, n) != n:
                parent[n] = parent[parent[n]]
                n = parent[n]
            return n

        for src, aliases in edges.items():
            for alias in aliases:
                parent[root(alias)] = root(src)
        groups: dict[str, list[str]] = {}
        for n in parent:
            groups.setdefault(root(n), []).append(n)

        def key(n: str):
            return (is_private(n), n in secondary, n.count("."), len(n), n)

        return {n: best for names in groups.values() for best in [min(names, key=key)] for n in names}


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
