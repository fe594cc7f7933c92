"""Readers for every packaging layout that can pin torch, torchvision or torchaudio.

Each reader turns one file into `(name, spec, line, tier)` rows: `name` is the distribution as written, `spec` a
PEP 440 specifier (conda and poetry syntax translated), `line` 1-based, `tier` how binding the pin is (`TIERS`).
Files are data: TOML through tomllib, setup.cfg through configparser, setup.py through `ast` (never executed:
advisor.core.setup_py), environment.yml line by line (no YAML dependency).

Files are hostile data too. Every read goes through `Reader`: only regular files inside the
project, bounded (advisor.core.reading), so `-r /dev/stdin`, a FIFO named requirements-dev.txt
or a requirements.txt linked to /dev/zero is skipped. A value of the wrong shape (`tool = 5`,
`optional-dependencies = 5`) or a TOML file nested too deeply to load is ignored. Each of these
leaves one line in `Reader.notes`, which the CLI prints as a warning.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from advisor.core import reading
from advisor.core.plain import Plain


# Most binding first: what `pip install <project>` installs, then extras and dependency
# groups, then build requirements, then what a lock file happens to hold today.
TIERS = ("install", "extra", "build", "lock")
Row = tuple  # (name, spec, line, tier)
_REQ = r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*(\(?\s*[<>=!~][^;#@]*)?"
_CONDA = r"^\s*(?:[\w.-]+::)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$"  # both compiled when used (re's cache)


class Reader(Plain):
    """Reads pin files under `root` (None: anywhere) and keeps a note of each one it skipped, and why."""

    __slots__ = ("root", "notes")
    root: str | None
    notes: list[str]

    def __init__(self, root: str | None = None, notes: list[str] | None = None) -> None:
        self.root = root
        self.notes = [] if notes is None else notes

    def note(self, path: str, why: str) -> None:
        shown = os.path.normpath(path)
        if self.root and not os.path.relpath(shown, self.root).startswith(".."):
            shown = os.path.relpath(shown, self.root)
        line = f"{shown}: {why}"
        if line not in self.notes:
            self.notes.append(line)

    def text(self, path: str) -> str | None:
        try:
            return reading.read_text(path, reading.PIN_FILE_LIMIT, self.root)
        except FileNotFoundError:
            return None  # an include or a name setup.py mentions that is not there: nothing to say
        except OSError as e:
            self.note(path, f"{e.strerror or e} (no pins read from it)")
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
    m = re.match(_REQ, text.split(";", 1)[0])
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


def requirements(path: str, tier: str, seen: set[str], reader: Reader) -> Iterator[tuple[str, str, str, int, str]]:
    """(file, name, spec, line, tier) for a requirements/constraints file and its -r/-c includes (cycle-safe)."""
    real = os.path.realpath(path)
    if real in seen:
        return
    seen.add(real)
    text = reader.text(path)
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
            yield from requirements(target, tier, seen, reader)
            continue
        if not line or line.startswith("-"):
            continue
        req = split_requirement(line)
        if req:
            yield path, req[0], req[1], start, tier


# --- TOML: pyproject (PEP 621, PEP 735, poetry, pixi), pixi.toml, locks --------------------


class _Toml:
    """A loaded TOML file whose values are looked up by shape: a value of the wrong type is noted, never used."""

    def __init__(self, path: str, data: dict, lines: list[str], reader: Reader) -> None:
        self.path, self.data, self.lines, self.reader = path, data, lines, reader

    def want(self, value, kind: type, where: str):
        """`value` if it is a `kind` (dict: a table, list: an array), else an empty one, noted."""
        if value is None or isinstance(value, kind):
            return kind() if value is None else value
        shape = "a table" if kind is dict else "an array"
        self.reader.note(self.path, f"`{where}` is {type(value).__name__} {value!r:.40}, not {shape}; ignored")
        return kind()

    def get(self, *keys: str, kind: type = dict):
        value = self.data
        for n, key in enumerate(keys):
            value = self.want(value, dict, ".".join(keys[:n]) or "(top)").get(key)
        return self.want(value, kind, ".".join(keys))

    def items(self, *keys: str):
        """(dotted key, value) of each entry of the table at `keys`."""
        return [(".".join((*keys, str(k))), v) for k, v in self.get(*keys).items()]


def _toml(path: str, reader: Reader, text: str | None = None) -> _Toml | None:
    """`text`: the file's, where the caller has read it already."""
    text = reader.text(path) if text is None else text
    if text is None:
        return None
    try:
        return _Toml(path, reading.toml().loads(text), text.splitlines(), reader)
    except ValueError:
        return None
    except (RecursionError, MemoryError):  # tomllib recurses per nested array or inline table
        reader.note(path, "TOML nested too deeply to read; no pins read from it")
        return None


def _pep508(items, tier: str, toml: _Toml, where: str) -> Iterator[Row]:
    for item in toml.want(items, list, where):
        if isinstance(item, str) and (req := split_requirement(item)):
            yield req[0], req[1], line_of(toml.lines, item, req[0]), tier


def _table(deps, tier: str, toml: _Toml, translate, where: str) -> Iterator[Row]:
    """poetry/pixi `name = "spec"` or `name = {version = "spec"}` (poetry: also a list of those)."""
    for name, value in toml.want(deps, dict, where).items():
        for v in value if isinstance(value, list) else [value]:
            spec = v.get("version", "") if isinstance(v, dict) else v
            if isinstance(spec, str):
                yield name, translate(spec), line_of(toml.lines, f"{name} =", name), tier


def _pixi(toml: _Toml, *keys: str) -> Iterator[Row]:
    pixi = toml.get(*keys)
    sections = [(pixi, "install", ".".join(keys) or "(top)")]
    sections += [(t, "install", w) for w, t in toml.items(*keys, "target")]
    sections += [(f, "extra", w) for w, f in toml.items(*keys, "feature")]
    for section, tier, where in sections:
        section = toml.want(section, dict, where)
        yield from _table(section.get("dependencies"), tier, toml, conda_spec, f"{where}.dependencies")
        yield from _table(section.get("pypi-dependencies"), tier, toml, poetry_spec, f"{where}.pypi-dependencies")


def pyproject(path: str, reader: Reader) -> Iterator[Row]:
    toml = _toml(path, reader)
    if toml is None:
        return
    yield from _pep508(toml.get("project", "dependencies", kind=list), "install", toml, "project.dependencies")
    for where, extra in toml.items("project", "optional-dependencies"):
        yield from _pep508(extra, "extra", toml, where)
    for where, group in toml.items("dependency-groups"):
        yield from _pep508(group, "extra", toml, where)
    yield from _pep508(toml.get("build-system", "requires", kind=list), "build", toml, "build-system.requires")
    yield from _table(
        toml.get("tool", "poetry", "dependencies"), "install", toml, poetry_spec, "tool.poetry.dependencies"
    )
    for where, group in toml.items("tool", "poetry", "group"):
        deps = toml.want(group, dict, where).get("dependencies")
        yield from _table(deps, "extra", toml, poetry_spec, f"{where}.dependencies")
    yield from _pixi(toml, "tool", "pixi")


def pixi_toml(path: str, reader: Reader) -> Iterator[Row]:
    toml = _toml(path, reader)
    if toml is not None:
        yield from _pixi(toml)


_PACKAGE = re.compile(r"^\[\[package\]\][ \t]*$", re.M)  # a lock's package table
_NAME = re.compile(r"""^[ \t]*name[ \t]*=[ \t]*["']([^"'\\\r\n]*)["']""", re.M)


def lock(path: str, reader: Reader, wanted: Callable[[str], object] | None = None) -> Iterator[Row]:
    """uv.lock / poetry.lock: the version each `[[package]]` resolved to; `wanted(name)`: only those. With `wanted`,
    a lock of `[[package]]` tables is read a table at a time, and only the tables naming a wanted package (Megatron-
    LM's 1 MB uv.lock read whole cost ~0.1 CPU-s, a twentieth of its scan); any other shape is read whole."""
    text = reader.text(path) if wanted is not None else None
    starts = [m.start() for m in _PACKAGE.finditer(text)] if text is not None else []
    if text is None or not starts or re.search(r"^[ \t]*package[ \t]*=|^\[package\]", text, re.M):
        toml = _toml(path, reader, text)
        if toml is None:
            return
        packages, lines = toml.get("package", kind=list), toml.lines
        # Each stripped line's first number (reversed: the first written last wins): thousands of lines and packages.
        first = {t.strip(): i for i, t in reversed(list(enumerate(lines, 1)))}
        line_of: Callable[[str, int], int] = first.get
    else:
        packages, lines = [], text.splitlines()
        for start, end in zip(starts, [*starts[1:], len(text)]):
            table = text[start:end]
            if wanted is not None and any(wanted(name) for name in _NAME.findall(table)):
                try:
                    found = reading.toml().loads(table).get("package")
                except (ValueError, RecursionError):
                    continue
                packages += found if isinstance(found, list) else []

        def line_of(needle: str, default: int) -> int:  # few packages: each looked for, not every line indexed
            return next((i for i, t in enumerate(lines, 1) if t.strip() == needle), default)

    for pkg in packages:
        if isinstance(pkg, dict) and isinstance(pkg.get("name"), str) and isinstance(pkg.get("version"), str):
            if wanted is None or wanted(pkg["name"]):
                yield pkg["name"], "==" + pkg["version"], line_of(f'name = "{pkg["name"]}"', 1), "lock"


def dynamic_files(path: str, reader: Reader) -> list[str]:
    """Requirements files pyproject's `[tool.setuptools.dynamic]` reads (`dependencies = {file = [...]}`)."""
    toml = _toml(path, reader)
    if toml is None:
        return []
    files = toml.get("tool", "setuptools", "dynamic", "dependencies").get("file")
    files = [files] if isinstance(files, str) else toml.want(files, list, "tool.setuptools.dynamic.dependencies.file")
    return [f for f in files if isinstance(f, str)]


# --- setup.cfg, environment.yml ------------------------------------------------------------


def setup_cfg(path: str, reader: Reader) -> tuple[list[Row], list[str]]:
    """Rows, and requirements files named by `install_requires = file: ...`."""
    import configparser  # lazy: a setup.cfg is rare

    text = reader.text(path)
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text or "")
    except configparser.Error:
        return [], []
    lines = (text or "").splitlines()
    rows: list[Row] = []
    files: list[str] = []
    values = [
        (parser.get("options", k, fallback=""), t)
        for k, t in (("install_requires", "install"), ("setup_requires", "build"))
    ]
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


def environment_yml(path: str, reader: Reader) -> Iterator[Row]:
    """conda `dependencies:` items (conda match specs) and their `- pip:` list (PEP 508)."""
    lines = (reader.text(path) or "").splitlines()
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
        c = re.match(_CONDA, item)
        if c:
            yield c.group(1), conda_spec(c.group(2)), n, "install"
