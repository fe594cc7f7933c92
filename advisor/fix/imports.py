"""Imports a fix needs, placed where isort / Ruff `I` would put them; imports a fix made unused, removed.

An added `import torch` joins the third-party group (after the standard library,
before first-party and relative imports), sorted inside it the Ruff way
(`import x` lines before `from x import y` lines, then by module name, case
folded). First-party modules are the project's `known-first-party`
(`[tool.ruff.lint.isort]`, `[tool.ruff.isort]`, `[tool.isort]`) and the
packages found in its source roots (`[tool.ruff] src`, default `.` and `src`),
as Ruff decides. The project root is the nearest directory above the file with
a pyproject.toml, ruff.toml, .ruff.toml, setup.cfg or .isort.cfg.
"""

from __future__ import annotations

import configparser
import functools
import os
import sys
from typing import Any, Iterable

from advisor.core.lazy import cst
from advisor.core.reading import PIN_FILE_LIMIT, read_text

FUTURE, STDLIB, THIRD_PARTY, FIRST_PARTY, LOCAL = range(5)
_ROOT_MARKERS = ("pyproject.toml", "ruff.toml", ".ruff.toml", "setup.cfg", ".isort.cfg")


def _root_of(directory: str) -> str:
    return _marked(directory) or directory


@functools.lru_cache(maxsize=4096)  # by directory: a tree has hundreds, and each asks its parent
def _marked(directory: str) -> str | None:
    """The nearest directory from `directory` up that holds a project marker, or None."""
    if any(os.path.isfile(os.path.join(directory, m)) for m in _ROOT_MARKERS):
        return directory
    parent = os.path.dirname(directory)
    return None if parent == directory else _marked(parent)


def _toml(path: str) -> dict:
    try:
        import tomllib
    except ImportError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(read_text(path, PIN_FILE_LIMIT))
    except (OSError, ValueError, RecursionError, MemoryError):
        return {}
    return data


def _dig(data: Any, *keys: str) -> dict:
    """data[k1][k2]...: {} where a value on the way is missing or not a table (the file is the user's, any shape)."""
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, dict) else {}


def _strings(value: Any) -> list[str]:
    return (
        [value]
        if isinstance(value, str)
        else [v for v in value if isinstance(v, str)]
        if isinstance(value, list)
        else []
    )


@functools.lru_cache(maxsize=64)
def _settings(root: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """(known first-party names, source roots) of the project at `root`."""
    if _marked(root) != root:  # no marker file here: nothing to read, the defaults
        return frozenset(), (os.path.join(root, "."), os.path.join(root, "src"))
    known: set[str] = set()
    src: list[str] | None = None
    for name in ("pyproject.toml", "ruff.toml", ".ruff.toml"):
        data = _toml(os.path.join(root, name))
        ruff = _dig(data, "tool", "ruff") if name == "pyproject.toml" else data
        for isort in (_dig(ruff, "lint", "isort"), _dig(ruff, "isort")):
            known.update(_strings(isort.get("known-first-party")))
        if src is None and isinstance(ruff.get("src"), list):
            src = _strings(ruff["src"])
        if name == "pyproject.toml":
            known.update(_strings(_dig(data, "tool", "isort").get("known_first_party")))
    for name, section in ((".isort.cfg", "settings"), ("setup.cfg", "isort")):
        cfg = configparser.ConfigParser()
        try:
            cfg.read_string(read_text(os.path.join(root, name), PIN_FILE_LIMIT))
            value = cfg.get(section, "known_first_party", fallback="")
        except (configparser.Error, OSError):
            value = ""
        known.update(v.strip() for v in value.replace("\n", ",").split(",") if v.strip())
    roots = tuple(os.path.join(root, s) for s in (src if src is not None else [".", "src"]))
    return frozenset(known), roots


def _section(module: str, level: int, known: frozenset[str], roots: tuple[str, ...]) -> int:
    if level:
        return LOCAL
    top = module.split(".")[0]
    if top == "__future__":
        return FUTURE
    if top in known:
        return FIRST_PARTY
    if top in sys.stdlib_module_names:
        return STDLIB
    if any(os.path.isdir(os.path.join(r, top)) or os.path.isfile(os.path.join(r, top + ".py")) for r in roots):
        return FIRST_PARTY
    return THIRD_PARTY


def _dotted(node: Any) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    return ""


def _describe(stmt: Any) -> tuple[int, str, int] | None:
    """(0 for `import`, 1 for `from`; module; relative level) of a one-import statement line."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    imp = stmt.body[0]
    if isinstance(imp, cst.Import):
        return 0, _dotted(imp.names[0].name), 0
    if isinstance(imp, cst.ImportFrom):
        return 1, _dotted(imp.module) if imp.module is not None else "", len(imp.relative)
    return None


def _has_import(body: Iterable[Any], module: str, obj: str | None) -> bool:
    for stmt in body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for imp in stmt.body:
            if obj is None and isinstance(imp, cst.Import):
                if any(a.asname is None and _dotted(a.name) == module for a in imp.names):
                    return True
            if obj is not None and isinstance(imp, cst.ImportFrom) and not imp.relative and imp.module is not None:
                if (
                    _dotted(imp.module) == module
                    and not isinstance(imp.names, cst.ImportStar)
                    and any(a.asname is None and _dotted(a.name) == obj for a in imp.names)
                ):
                    return True
    return False


def _imported_names(body: Iterable[Any]) -> set[str]:
    """Names bound by imports at module level (also inside module-level `if` / `try`), not in functions or classes."""
    from advisor.syntax.walk import nodes_of

    out: set[str] = set()
    for stmt in body:
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        for imp in nodes_of(stmt, cst.Import, cst.ImportFrom):
            if isinstance(imp.names, cst.ImportStar):
                continue
            for a in imp.names:
                if a.asname is not None:
                    out.add(_dotted(a.asname.name))
                else:
                    out.add(_dotted(a.name).split(".")[0] if isinstance(imp, cst.Import) else _dotted(a.name))
    return out


def layout_of(path: str) -> list[Any]:
    """What besides the file decides where `add_imports` puts an import in `path`: its project's first-party names
    (a cache key, advisor.fix.edits)."""
    root = _root_of(os.path.dirname(os.path.abspath(path)))
    known, roots = _settings(root)
    return [root, sorted(known), list(roots)]


def add_imports(module: Any, needed: Iterable[tuple[str, str | None]], path: str, fallback: bool = True) -> Any:
    """`module` with each (module, name) import added where isort would put it; a new module.

    The names one `from` module needs go into one statement, ordered as Ruff orders them. `fallback`: False gives
    None where the file has no import block to join (LibCST's placement reads the whole module).
    """
    root = _root_of(os.path.dirname(os.path.abspath(path)))
    known, roots = _settings(root)
    wanted: dict[tuple[str, bool], list[str]] = {}
    imported = _imported_names(module.body)
    for mod, obj in sorted(set(needed), key=lambda p: (p[0], p[1] or "")):
        # A name another import already binds (`from torch.backends.cuda import SDPBackend`) is the
        # same object re-exported: importing it again would only redefine it (Ruff/flake8 F811).
        if not _has_import(module.body, mod, obj) and not (obj is not None and obj in imported):
            wanted.setdefault((mod, obj is not None), []).extend([obj] if obj else [])
    missing: list[tuple[str, str | None]] = []
    for (mod, is_from), names in wanted.items():
        names = sorted(names, key=member_key)
        placed = _merge(module, mod, names) if is_from else None
        if placed is None:
            placed = _insert(module, mod, names, known, roots)
        if placed is None:
            missing.extend((mod, n) for n in names) if is_from else missing.append((mod, None))
        else:
            module = placed
    if missing and not fallback:
        return None
    if missing:  # no import block to join: LibCST's placement
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import AddImportsVisitor

        context = CodemodContext()
        for mod, obj in missing:
            AddImportsVisitor.add_needed_import(context, mod, obj)
        module = AddImportsVisitor(context).transform_module(module)
    return module


def member_key(name: str) -> tuple[int, str, str]:
    """Ruff's `order-by-type`: CONSTANTS, then Classes, then the rest; case-insensitive inside each."""
    rank = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return rank, name.lower(), name


def _merge(module: Any, mod: str, names: list[str]) -> Any:
    """Add `names` to a one-line module-level `from mod import a, b`, each at its sorted place."""
    body = list(module.body)
    for i, stmt in enumerate(body):
        if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
            continue
        imp = stmt.body[0]
        if not (
            isinstance(imp, cst.ImportFrom)
            and not imp.relative
            and imp.module is not None
            and _dotted(imp.module) == mod
        ):
            continue
        if isinstance(imp.names, cst.ImportStar) or imp.lpar is not None:
            return None
        aliases = list(imp.names)
        for name in names:
            at = next(
                (k for k, a in enumerate(aliases) if member_key(_dotted(a.name)) > member_key(name)), len(aliases)
            )
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            new = cst.ImportAlias(name=cst.Name(name), comma=comma if at < len(aliases) else cst.MaybeSentinel.DEFAULT)
            if at == len(aliases):
                aliases[-1] = aliases[-1].with_changes(comma=comma)
            aliases.insert(at, new)
        body[i] = stmt.with_changes(body=[imp.with_changes(names=aliases)])
        return module.with_changes(body=body)
    return None


def _insert(module: Any, mod: str, names: list[str], known: frozenset[str], roots: tuple[str, ...]) -> Any:
    body = list(module.body)
    block: list[tuple[int, int, tuple]] = []  # (index, section, sort key)
    for i, stmt in enumerate(body):
        d = _describe(stmt)
        if d is None:
            if block or not _is_docstring(stmt):
                break
            continue
        kind, name, level = d
        block.append((i, _section(name, level, known, roots), (kind, name.lower())))
    if not block:
        return None
    placed = _place(module, body, block, mod, names, known, roots)
    after = block[-1][0] + 2  # the statement after the import block, now one longer
    new_body = list(placed.body)
    if after < len(new_body) and _describe(new_body[after]) is None and not new_body[after].leading_lines:
        new_body[after] = new_body[after].with_changes(leading_lines=[cst.EmptyLine()])  # code right after the imports
        placed = placed.with_changes(body=new_body)
    return placed


def _place(
    module: Any, body: list, block: list, mod: str, names: list[str], known: frozenset[str], roots: tuple[str, ...]
) -> Any:
    section = _section(mod, 0, known, roots)
    key = (1 if names else 0, mod.lower())
    new = cst.parse_statement(f"from {mod} import {', '.join(names)}\n" if names else f"import {mod}\n")
    same = [b for b in block if b[1] == section]
    if same:
        after = [b for b in same if b[2] > key]
        if after:
            return _put_before(module, body, after[0][0], new, same[0][0] == after[0][0], False)
        return _put_after(module, body, same[-1][0], new, blank=False)
    lower = [b for b in block if b[1] < section]
    if lower:
        return _put_after(module, body, lower[-1][0], new, blank=True)
    return _put_before(module, body, block[0][0], new, True, True)


def _is_docstring(stmt: Any) -> bool:
    return (
        isinstance(stmt, cst.SimpleStatementLine)
        and len(stmt.body) == 1
        and isinstance(stmt.body[0], cst.Expr)
        and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _put_after(module: Any, body: list, index: int, new: Any, blank: bool) -> Any:
    new = new.with_changes(leading_lines=[cst.EmptyLine()] if blank else [])
    return module.with_changes(body=[*body[: index + 1], new, *body[index + 1 :]])


def _put_before(module: Any, body: list, index: int, new: Any, first_of_group: bool, new_group: bool) -> Any:
    """Insert before body[index]; the first of a group hands its blank lines (not its comments) to `new`."""
    old = body[index]
    lines = list(old.leading_lines)
    if first_of_group and all(line.comment is None for line in lines):
        new = new.with_changes(leading_lines=lines)
        old = old.with_changes(leading_lines=[cst.EmptyLine()] if new_group else [])
    else:
        new = new.with_changes(leading_lines=[])
        if new_group:
            old = old.with_changes(leading_lines=[cst.EmptyLine(), *lines])
    return module.with_changes(body=[*body[:index], new, old, *body[index + 1 :]])


def forget_cached() -> None:
    """Forget project roots and settings read by directory: a config file changed under a long-lived process."""
    _marked.cache_clear()
    _settings.cache_clear()
