"""Readers for every packaging layout that can pin torch, torchvision or torchaudio.

Each reader turns one file into `(name, spec, line, tier)` rows: `name` is the
distribution as written, `spec` a PEP 440 specifier (conda and poetry syntax
translated), `line` 1-based, `tier` how binding the pin is (`TIERS`). Files are
data: TOML through tomllib, setup.cfg through configparser, setup.py through
`ast` (never executed), environment.yml line by line (no YAML dependency).
"""

from __future__ import annotations

import ast
import configparser
import glob
import os
import re
from collections.abc import Iterator

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

# Most binding first: what `pip install <project>` installs, then extras and dependency
# groups, then build requirements, then what a lock file happens to hold today.
TIERS = ("install", "extra", "build", "lock")
Row = tuple  # (name, spec, line, tier)
_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(\(?\s*[<>=!~][^;#@]*)?")
_CONDA = re.compile(r"^\s*(?:[\w.-]+::)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$")


def read_text(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def line_of(lines: list[str], needle: str, name: str) -> int:
    """1-based line holding `needle` (TOML/cfg readers know no lines): quoted first, then bare;
    else the first line naming `name`."""
    for wanted in (f'"{needle}"', f"'{needle}'", needle, name):
        for i, line in enumerate(lines, 1):
            if wanted and wanted in line and not line.lstrip().startswith("#"):
                return i
    return 1


def split_requirement(text: str) -> tuple[str, str] | None:
    """`torch[extra] >=2.1, <3 ; python_version>"3.8"` -> ("torch", ">=2.1,<3")."""
    m = _REQ.match(text.split(";", 1)[0])
    if not m:
        return None
    return m.group(1), (m.group(3) or "").replace("(", "").replace(")", "").replace(" ", "").strip()


def conda_spec(spec: str) -> str:
    """Conda/pixi match spec -> PEP 440: `2.1.*`, `=2.1`, `2.1` (all fuzzy), `>=2.1,<3`, `2.1.0=build`."""
    spec = spec.strip().strip("'\"")
    if spec in ("", "*"):
        return ""
    if spec[:1] == "=" and spec[:2] != "==":
        spec = spec[1:]
    if spec[:1].isdigit():
        return "==" + spec.split("=", 1)[0].split(" ", 1)[0]
    return spec.split(" ", 1)[0]


def poetry_spec(spec: str) -> str:
    spec = spec.strip()
    nums = [p for p in re.split(r"[.*]", spec.lstrip("^~=")) if p.isdigit()]
    if spec.startswith("^") and nums:
        return f">={spec[1:]},<{int(nums[0]) + 1}" if nums[0] != "0" else f">={spec[1:]}"
    if spec.startswith("~") and not spec.startswith("~=") and len(nums) >= 2:
        return f">={spec[1:]},<{nums[0]}.{int(nums[1]) + 1}"
    if spec in ("", "*"):
        return ""
    return spec if spec[:1] in "<>=!~" else f"=={spec}"


# --- requirements files ------------------------------------------------------------------

def requirements(path: str, tier: str, seen: set[str]) -> Iterator[tuple[str, str, str, int, str]]:
    """(file, name, spec, line, tier) for a requirements/constraints file and its -r/-c includes (cycle-safe)."""
    real = os.path.realpath(path)
    if real in seen:
        return
    seen.add(real)
    text = read_text(path)
    if text is None:
        return
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start, line = i + 1, lines[i]
        while line.rstrip().endswith("\\") and i + 1 < len(lines):  # continuation lines
            i += 1
            line = line.rstrip()[:-1] + " " + lines[i]
        i += 1
        line = re.split(r"(^|\s)#", line, maxsplit=1)[0].strip()
        line = re.split(r"\s--?[A-Za-z]", line, maxsplit=1)[0] if not line.startswith("-") else line  # --hash=...
        include = re.match(r"^(-r|-c|--requirement|--constraint)[\s=]*(\S+)", line)
        if include:
            target = os.path.join(os.path.dirname(path), include.group(2))
            yield from requirements(target, tier, seen)
            continue
        if not line or line.startswith("-"):
            continue
        req = split_requirement(line)
        if req:
            yield path, req[0], req[1], start, tier


# --- TOML: pyproject (PEP 621, PEP 735, poetry, pixi), pixi.toml, locks --------------------

def _toml(path: str) -> tuple[dict, list[str]] | None:
    text = read_text(path)
    if text is None:
        return None
    try:
        return tomllib.loads(text), text.splitlines()
    except ValueError:
        return None


def _pep508(items, tier: str, lines: list[str]) -> Iterator[Row]:
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str) and (req := split_requirement(item)):
            yield req[0], req[1], line_of(lines, item, req[0]), tier


def _table(deps, tier: str, lines: list[str], translate) -> Iterator[Row]:
    """poetry/pixi `name = "spec"` or `name = {version = "spec"}` (poetry: also a list of those)."""
    for name, value in (deps.items() if isinstance(deps, dict) else []):
        for v in value if isinstance(value, list) else [value]:
            spec = v.get("version", "") if isinstance(v, dict) else v
            if isinstance(spec, str):
                yield name, translate(spec), line_of(lines, f"{name} =", name), tier


def _pixi(pixi: dict, lines: list[str]) -> Iterator[Row]:
    sections = [(pixi, "install")]
    sections += [(t, "install") for t in pixi.get("target", {}).values() if isinstance(t, dict)]
    sections += [(f, "extra") for f in pixi.get("feature", {}).values() if isinstance(f, dict)]
    for section, tier in sections:
        yield from _table(section.get("dependencies", {}), tier, lines, conda_spec)
        yield from _table(section.get("pypi-dependencies", {}), tier, lines, poetry_spec)


def pyproject(path: str) -> Iterator[Row]:
    loaded = _toml(path)
    if loaded is None:
        return
    data, lines = loaded
    project = data.get("project", {})
    yield from _pep508(project.get("dependencies", []), "install", lines)
    for extra in project.get("optional-dependencies", {}).values():
        yield from _pep508(extra, "extra", lines)
    for group in data.get("dependency-groups", {}).values():
        yield from _pep508(group, "extra", lines)
    yield from _pep508(data.get("build-system", {}).get("requires", []), "build", lines)
    tool = data.get("tool", {})
    poetry = tool.get("poetry", {})
    yield from _table(poetry.get("dependencies", {}), "install", lines, poetry_spec)
    for group in poetry.get("group", {}).values():
        yield from _table(group.get("dependencies", {}) if isinstance(group, dict) else {}, "extra", lines, poetry_spec)
    yield from _pixi(tool.get("pixi", {}), lines)


def pixi_toml(path: str) -> Iterator[Row]:
    loaded = _toml(path)
    if loaded is not None:
        yield from _pixi(loaded[0], loaded[1])


def lock(path: str) -> Iterator[Row]:
    """uv.lock / poetry.lock: the version each `[[package]]` resolved to."""
    loaded = _toml(path)
    if loaded is None:
        return
    data, lines = loaded
    for pkg in data.get("package", []):
        if isinstance(pkg, dict) and isinstance(pkg.get("name"), str) and isinstance(pkg.get("version"), str):
            needle = f'name = "{pkg["name"]}"'
            line = next((i for i, text in enumerate(lines, 1) if text.strip() == needle), 1)
            yield pkg["name"], "==" + pkg["version"], line, "lock"


def dynamic_files(path: str) -> list[str]:
    """Requirements files pyproject's `[tool.setuptools.dynamic]` reads (`dependencies = {file = [...]}`)."""
    loaded = _toml(path)
    dynamic = (loaded[0] if loaded else {}).get("tool", {}).get("setuptools", {}).get("dynamic", {})
    files = (dynamic.get("dependencies") or {}).get("file", []) if isinstance(dynamic, dict) else []
    return [files] if isinstance(files, str) else [f for f in files if isinstance(f, str)]


# --- setup.cfg, environment.yml ------------------------------------------------------------

def setup_cfg(path: str) -> tuple[list[Row], list[str]]:
    """Rows, and requirements files named by `install_requires = file: ...`."""
    text = read_text(path)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text or "")
    except configparser.Error:
        return [], []
    lines = (text or "").splitlines()
    rows: list[Row] = []
    files: list[str] = []
    values = [(parser.get("options", k, fallback=""), t) for k, t in (("install_requires", "install"), ("setup_requires", "build"))]
    if parser.has_section("options.extras_require"):
        values += [(v, "extra") for _, v in parser.items("options.extras_require")]
    for value, tier in values:
        if value.strip().startswith("file:"):
            files += [f.strip() for f in value.strip()[5:].split(",") if f.strip()]
            continue
        for item in value.replace(";\n", "\n").splitlines():
            req = split_requirement(item)
            if req:
                rows.append((req[0], req[1], line_of(lines, item.strip(), req[0]), tier))
    return rows, files


def environment_yml(path: str) -> Iterator[Row]:
    """conda `dependencies:` items (conda match specs) and their `- pip:` list (PEP 508)."""
    lines = (read_text(path) or "").splitlines()
    pip_indent = None
    in_deps = False
    for n, line in enumerate(lines, 1):
        key = re.match(r"^([A-Za-z_][\w-]*)\s*:", line)
        if key:  # a top-level key: only `dependencies:` holds packages (not `channels:`)
            in_deps = key.group(1) == "dependencies"
            continue
        m = in_deps and re.match(r"^(\s*)-\s*(.+?)\s*$", line.split("#", 1)[0])
        if not m:
            continue
        indent, item = len(m.group(1)), m.group(2).strip("'\"")
        if item.rstrip(":") == "pip" and item.endswith(":"):
            pip_indent = indent
            continue
        if pip_indent is not None and indent > pip_indent:
            req = split_requirement(item)
            if req:
                yield req[0], req[1], n, "install"
            continue
        pip_indent = None
        c = _CONDA.match(item)
        if c:
            yield c.group(1), conda_spec(c.group(2)), n, "install"


# --- setup.py, through ast only -------------------------------------------------------------

class _Strings:
    """Evaluates the string expressions of a module: literals, module names bound to them,
    f-strings, `+`, `"sep".join([...])`, `.format(...)`. An unknown part becomes `*`."""

    def __init__(self, tree: ast.Module):
        self.names: dict[str, ast.expr] = {}
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.names[node.targets[0].id] = node.value

    def value(self, node: ast.AST, depth: int = 0) -> str | None:
        if depth > 8:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.value(self.names[node.id], depth + 1)
        if isinstance(node, ast.JoinedStr):
            parts = [self.value(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1) for v in node.values]
            return "".join(p if p is not None else "*" for p in parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.value(node.left, depth + 1), self.value(node.right, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
            owner = self.value(node.func.value, depth + 1)
            if owner is not None and node.func.attr == "join" and len(node.args) == 1 and isinstance(node.args[0], (ast.List, ast.Tuple)):
                items = [self.value(e, depth + 1) for e in node.args[0].elts]
                return None if None in items else owner.join(items)  # type: ignore[arg-type]
            if owner is not None and node.func.attr == "format":
                items = iter([self.value(a, depth + 1) for a in node.args])
                return re.sub(r"\{[^}]*\}", lambda _: next(items, None) or "*", owner)
        return None


def _setup_tiers(tree: ast.Module) -> dict[int, str]:
    """id() of nodes under setup(extras_require=...) / setup(setup_requires=...) -> tier."""
    tiers: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setup":
            for kw in node.keywords:
                tier = {"extras_require": "extra", "setup_requires": "build"}.get(kw.arg or "")
                for sub in ast.walk(kw.value) if tier else ():
                    tiers[id(sub)] = tier
    return tiers


def setup_py(path: str, root: str) -> tuple[list[Row], list[str]]:
    """Rows from every string expression that is a requirement, and the `.txt` files setup.py names
    (read through `open()`, `read_text()` or a helper such as `parse_requirements('requirements/x.txt')`)."""
    try:
        tree = ast.parse(read_text(path) or "")
    except (SyntaxError, ValueError):
        return [], []
    strings, tiers = _Strings(tree), _setup_tiers(tree)
    rows: list[Row] = []
    files: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Constant, ast.JoinedStr, ast.BinOp, ast.Call)):
            continue
        text = strings.value(node)
        if not text:
            continue
        if text.endswith(".txt") and "\n" not in text:
            pattern = os.path.join(os.path.dirname(path), text)
            files += sorted(glob.glob(pattern)) if "*" in text else [pattern]
            continue
        if re.match(r"^\s*torch(vision|audio)?\s*(\[[^\]]*\])?\s*[<>=!~]=?\s*[0-9]", text):
            req = split_requirement(text)
            if req:
                rows.append((req[0], req[1], node.lineno, tiers.get(id(node), "install")))
    return rows, files
