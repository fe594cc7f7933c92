"""Version flags defined in another module of the scanned project, read statically.

`from .typing import WITH_PT24` then `if WITH_PT24:` (PyG's style), or
`from mypkg.utils import TORCH_2_4`: the flag's meaning is its assignment in that
module (`WITH_PT24 = torch_version >= (2, 4)`). `definition` finds the module's
file next to the importing one (relative imports from its directory; absolute ones
from the directory above its top package, and from its own directory), parses it
with LibCST (never imports it) and returns the assignment's value, following a
re-export (`from .x import FLAG`) a few modules deep.

A scan caches each file by its own content, so editing only the module that defines a
flag is seen after `advisor clean` (or on the next change of the importing file).
"""

from __future__ import annotations

import functools
import os
from typing import Any

from advisor.core.lazy import cst
from advisor.syntax.names import NameResolver

_MAX_BYTES = 1 << 20  # a flags module is small; a large file is not read for this
_DEPTH = 3  # re-exports followed


def _module_file(importer: str, module: str) -> str | None:
    """The project file that `module` (".typing", "..utils.flags", "pkg.typing") names, seen from `importer`."""
    level = len(module) - len(module.lstrip("."))
    parts = [p for p in module.lstrip(".").split(".") if p]
    here = os.path.dirname(os.path.abspath(importer))
    if level:
        bases = [here]
        for _ in range(level - 1):
            bases = [os.path.dirname(bases[0])]
    else:
        if not parts or parts[0] == "torch":
            return None
        top = here
        while os.path.isfile(os.path.join(top, "__init__.py")):
            top = os.path.dirname(top)
        bases = [top, here]
    for base in bases:
        for candidate in (os.path.join(base, *parts) + ".py", os.path.join(base, *parts, "__init__.py")):
            if parts and os.path.isfile(candidate):
                return candidate
    return None


@functools.lru_cache(maxsize=32)
def _parsed(path: str, mtime: float) -> tuple[Any, Any, dict[str, Any]] | None:
    """(module, resolver, {module-level name: assigned value}) of a project file, or None."""
    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open(path, "rb") as f:
            module = cst.parse_module(f.read())
    except Exception:  # unreadable or not Python: the flag stays unknown
        return None
    defs: dict[str, Any] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Assign):
                    for t in small.targets:  # `WITH_PT24 = _WITH_PT24 = ...` binds both
                        if isinstance(t.target, cst.Name):
                            defs[t.target.value] = small.value
                elif (
                    isinstance(small, cst.AnnAssign) and small.value is not None and isinstance(small.target, cst.Name)
                ):
                    defs[small.target.value] = small.value
    return module, NameResolver(module), defs


def definition(
    importer: str | None, qualname: str, depth: int = 0, reader: Any = None
) -> tuple[Any, Any, Any, str] | None:
    """(value, its module, its resolver, its path) of the flag `qualname` imported by `importer`, or None.
    `reader`: `_ast_parsed` reads the modules with `ast` (the module is then its (tree, Source) pair)."""
    reader = reader or _parsed
    if importer is None or importer.endswith(".ipynb") or depth >= _DEPTH or "." not in qualname:
        return None
    module_name, _, name = qualname.rpartition(".")
    path = _module_file(importer, module_name)
    if path is None or os.path.abspath(path) == os.path.abspath(importer):
        return None
    parsed = reader(path, os.path.getmtime(path))
    if parsed is None:
        return None
    module, resolver, defs = parsed
    if name in defs:
        return defs[name], module, resolver, path
    for q in sorted(resolver.module_scope.bindings.get(name, ())):  # a re-export: follow it
        found = definition(path, q, depth + 1, reader)
        if found is not None:
            return found
    return None


@functools.lru_cache(maxsize=32)
def _ast_parsed(path: str, mtime: float) -> tuple[Any, Any, dict[str, Any]] | None:
    """((`ast` tree, its Source), its AstResolver, {module-level name: assigned value}) of a project file, or None."""
    import ast
    import io
    import tokenize

    from advisor.syntax.ast_source import Source
    from advisor.syntax.ast_names import AstResolver

    try:
        if os.path.getsize(path) > _MAX_BYTES:
            return None
        with open(path, "rb") as f:
            data = f.read()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
        tree = ast.parse(text)
    except Exception:  # unreadable or not Python: the flag stays unknown
        return None
    defs: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for t in stmt.targets:  # `WITH_PT24 = _WITH_PT24 = ...` binds both
                if isinstance(t, ast.Name):
                    defs[t.id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None and isinstance(stmt.target, ast.Name):
            defs[stmt.target.id] = stmt.value
    return (tree, Source(text)), AstResolver(tree, text), defs


def ast_definition(importer: str | None, qualname: str) -> tuple[Any, Any, Any, str] | None:
    """`definition` read with `ast` (advisor.analysis.ast_gates): (value, (tree, Source), resolver, path), or None."""
    return definition(importer, qualname, reader=_ast_parsed)
