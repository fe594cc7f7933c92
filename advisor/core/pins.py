"""The project's declared torch / torchvision / torchaudio bounds, from its packaging files.

`find_bounds(root)` reads every layout a project declares dependencies in (the readers
live in `advisor.core.pinfiles`, setup.py's in `advisor.core.setup_py`): pyproject.toml
(PEP 621 dependencies and extras, PEP 735 groups, build-system, poetry, pixi), pixi.toml,
requirements*.txt and requirements/**/*.txt with their -r/-c includes, constraints*.txt,
setup.py (through `ast`, never run) and the requirements files it reads, setup.cfg,
environment.yml, and uv.lock / poetry.lock.

Combining: pins are ranked by tier (install > extra/group > build > lock) and the bounds
come from the most binding tier that bounds the library at all. Within it the lowest lower
bound and the highest upper bound win: a project whose CUDA requirements allow torch 2.0
and whose Ascend ones start at 2.3 still supports 2.0. Each bound keeps its source
(`file:line`) so the user sees where it came from.

Also here, as data in one place: the torch -> torchvision/torchaudio version map
(`COMPANIONS`, derived from `advisor.core.releases`) and `--target lib=X.Y` parsing.
"""

from __future__ import annotations

import glob
import os
import re
from advisor.core import pinfiles, setup_py
from advisor.core.plain import Frozen, init
from advisor.core.releases import RELEASES

LIBRARIES = ("torch", "torchvision", "torchaudio")
LOCKS = ("uv.lock", "poetry.lock")  # read last, and only when nothing else bounds a library
_CONDA_NAMES = {"pytorch": "torch"}  # conda / pixi spell torch this way
_SPEC = r"(==|~=|>=|<=|<|>|!=)\s*([0-9][0-9.*]*)"  # compiled on first use, by re's own cache: needed with pins only
Version = tuple  # (major, minor)


def _minor(text: str) -> tuple[int, int] | None:
    parts = [p for p in text.split(".") if p and p != "*"]
    try:
        return (int(parts[0]), int(parts[1]) if len(parts) > 1 else 0)
    except (ValueError, IndexError):
        return None


def bounds_from_spec(spec: str) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """(lower, upper) minor versions a PEP 440 specifier allows (upper is inclusive)."""
    lower = upper = None
    for op, ver in re.findall(_SPEC, spec):
        v = _minor(ver)
        if v is None:
            continue
        if op == "==":
            lower = upper = v
        elif op == "~=":  # ~=2.11.0 means 2.11.*, ~=2.11 means 2.*
            lower = v
            upper = v if len([p for p in ver.split(".") if p]) >= 3 else (v[0], 99)
        elif op == ">=" or op == ">":
            lower = v
        elif op == "<=":
            upper = v
        elif op == "<":
            # "<2.13" allows 2.12.x; "<2.13.1" allows 2.13.0.
            patch = ver.split(".")[2:3]
            upper = v if patch and patch[0] not in ("0", "") else (v[0], v[1] - 1) if v[1] else (v[0] - 1, 99)
    return lower, upper


class Pin(Frozen):
    __slots__ = ("library", "spec", "source", "tier")
    library: str  # torch / torchvision / torchaudio
    spec: str  # PEP 440, e.g. ">=2.1.0,<2.10.0" ("" = unpinned)
    source: str  # "requirements/pytorch/base.txt:4", relative to the project root
    tier: str  # pinfiles.TIERS

    def __init__(self, library: str, spec: str, source: str, tier: str) -> None:
        init(self, library, spec, source, tier)

    @property
    def bounds(self) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
        return bounds_from_spec(self.spec)

    @property
    def text(self) -> str:
        return f"{self.library}{self.spec}"


class Bounds(Frozen):
    """A library's declared range; `upper` is inclusive at minor level ("<2.10" -> (2, 9))."""

    __slots__ = ("lower", "upper", "source_lower", "source_upper", "pin_lower", "pin_upper")
    lower: tuple[int, int] | None
    upper: tuple[int, int] | None
    source_lower: str | None
    source_upper: str | None
    pin_lower: Pin | None
    pin_upper: Pin | None

    def __init__(
        self,
        lower: tuple[int, int] | None,
        upper: tuple[int, int] | None,
        source_lower: str | None,
        source_upper: str | None,
        pin_lower: Pin | None = None,
        pin_upper: Pin | None = None,
    ) -> None:
        init(self, lower, upper, source_lower, source_upper, pin_lower, pin_upper)

    @property
    def lower_text(self) -> str | None:
        return f"{self.lower[0]}.{self.lower[1]}" if self.lower else None

    @property
    def upper_text(self) -> str | None:
        return f"{self.upper[0]}.{self.upper[1]}" if self.upper else None


def _library(name: str) -> str | None:
    name = re.sub(r"[-_.]+", "-", name.lower())
    name = _CONDA_NAMES.get(name, name)
    return name if name in LIBRARIES else None


def _requirement_files(root: str) -> list[str]:
    found = glob.glob(os.path.join(root, "requirements*.txt")) + glob.glob(os.path.join(root, "constraints*.txt"))
    found += glob.glob(os.path.join(root, "requirements", "**", "*.txt"), recursive=True)
    return sorted(set(found))


def find_pins(root: str, locks: bool = True, notes: list[str] | None = None) -> list[Pin]:
    """Every torch / torchvision / torchaudio requirement the project declares, in reading order
    (`locks=False`: without uv.lock / poetry.lock, which can be large and rank last).

    `notes` gets a line for each pin file that was skipped (not a regular file, too large,
    outside the project, a value of the wrong shape): `pinfiles.Reader`.
    """
    rows: list[tuple[str, tuple]] = []  # (file, row)
    extra_files: list[str] = []
    reader = pinfiles.Reader(root, [] if notes is None else notes)

    def join(name: str) -> str:
        return os.path.join(root, name)

    if os.path.lexists(join("pyproject.toml")):
        rows += [(join("pyproject.toml"), r) for r in pinfiles.pyproject(join("pyproject.toml"), reader)]
        extra_files += [join(f) for f in pinfiles.dynamic_files(join("pyproject.toml"), reader)]
    if os.path.lexists(join("pixi.toml")):
        rows += [(join("pixi.toml"), r) for r in pinfiles.pixi_toml(join("pixi.toml"), reader)]
    if os.path.lexists(join("setup.py")):
        setup_rows, files = setup_py.setup_py(join("setup.py"), reader)
        rows += [(join("setup.py"), r) for r in setup_rows]
        extra_files += files
    if os.path.lexists(join("setup.cfg")):
        cfg_rows, files = pinfiles.setup_cfg(join("setup.cfg"), reader)
        rows += [(join("setup.cfg"), r) for r in cfg_rows]
        extra_files += [join(f) for f in files]
    for name in ("environment.yml", "environment.yaml"):
        if os.path.lexists(join(name)):
            rows += [(join(name), r) for r in pinfiles.environment_yml(join(name), reader)]
    seen: set[str] = set()
    for path in _requirement_files(root) + extra_files:
        rows += [(f, (n, s, line, t)) for f, n, s, line, t in pinfiles.requirements(path, "install", seen, reader)]
    for name in LOCKS if locks else ():
        if os.path.lexists(join(name)):
            rows += [(join(name), r) for r in pinfiles.lock(join(name), reader, _library)]
    pins: list[Pin] = []
    for path, (name, spec, line, tier) in rows:
        library = _library(name)
        if library:
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            pin = Pin(library, spec, f"{rel}:{line}", tier)
            if pin not in pins:
                pins.append(pin)
    return pins


def combine(pins: list[Pin]) -> Bounds | None:
    """One library's pins -> its bounds (see the module docstring); None when nothing bounds it."""
    for tier in pinfiles.TIERS:
        ranked = [(p, *p.bounds) for p in pins if p.tier == tier]
        lowers = [(lo, p) for p, lo, _ in ranked if lo is not None]
        uppers = [(hi, p) for p, _, hi in ranked if hi is not None]
        if lowers or uppers:
            lo = min(lowers, key=lambda x: x[0]) if lowers else (None, None)
            hi = max(uppers, key=lambda x: x[0]) if uppers else (None, None)
            return Bounds(lo[0], hi[0], lo[1].source if lo[1] else None, hi[1].source if hi[1] else None, lo[1], hi[1])
    return None


def find_bounds(root: str, notes: list[str] | None = None) -> dict[str, Bounds]:
    """{library: Bounds} for the libraries the project bounds (unpinned ones are absent); `notes`: as find_pins."""
    pins = find_pins(root, locks=False, notes=notes)
    locks_read = False
    out = {}
    for library in LIBRARIES:
        bounds = combine([p for p in pins if p.library == library])
        if bounds is None and not locks_read:  # only now read the locks (the lowest rank), once, if there are any
            locks_read = True
            if any(os.path.lexists(os.path.join(root, name)) for name in LOCKS):
                pins = find_pins(root, notes=notes)
                bounds = combine([p for p in pins if p.library == library])
        if bounds is not None:
            out[library] = bounds
    return out


def lowest_supported_line(bounds: Bounds | None, library: str = "torch") -> str | None:
    """The line printed for the user: 'Lowest supported torch 2.1 (requirements/pytorch/base.txt:4)'."""
    if bounds is None or bounds.lower is None:
        return None
    return f"Lowest supported {library} {bounds.lower_text} ({bounds.source_lower})"


# --- companions --------------------------------------------------------------------------

# torch minor -> (torchvision, torchaudio) that pip resolves with it: a view of the releases table
# (advisor.core.releases says where each pairing comes from).
COMPANIONS: dict[str, tuple[str, str]] = {r.torch: (r.torchvision, r.torchaudio) for r in RELEASES}


def companion_targets(torch_version: str) -> dict[str, str]:
    """{'torchvision': '0.29', 'torchaudio': '2.11'} for a torch target ('2.14' or '2.14.1')."""
    v = _minor(torch_version)
    key = f"{v[0]}.{v[1]}" if v else torch_version
    if key not in COMPANIONS:
        raise ValueError(f"no companion versions known for torch {torch_version} (known: {', '.join(COMPANIONS)})")
    vision, audio = COMPANIONS[key]
    return {"torchvision": vision, "torchaudio": audio}


def parse_target_overrides(values: list[str] | None) -> dict[str, str]:
    """`--target torchvision=0.29 --target torch=2.14,torchaudio=2.11` -> {lib: 'X.Y'}; a bare
    version means torch. Raises ValueError with the accepted form on anything else."""
    out: dict[str, str] = {}
    for value in values or []:
        for item in (x.strip() for x in value.split(",")):
            if not item:
                continue
            library, _, version = item.rpartition("=")
            library = library.strip().lower() or "torch"
            if library not in LIBRARIES or not re.fullmatch(r"\d+\.\d+(\.\d+)?", version.strip()):
                raise ValueError(
                    f"bad --target {item!r}: expected LIB=X.Y with LIB one of {', '.join(LIBRARIES)} (e.g. torchvision=0.29)"
                )
            if library in out and out[library] != version.strip():
                raise ValueError(f"--target names {library} twice ({out[library]} and {version.strip()})")
            out[library] = version.strip()
    return out


def resolve_companions(torch_target: str, overrides: dict[str, str] | None = None) -> dict[str, str]:
    """Each companion's target: an explicit override, else the one the torch target brings."""
    targets = companion_targets(torch_target)
    for library, version in (overrides or {}).items():
        if library == "torch":
            continue
        known = sorted(
            {pair[COMPANION_NAMES.index(library)] for pair in COMPANIONS.values()}, key=lambda v: _minor(v) or (0, 0)
        )
        v = _minor(version)
        if v is None or f"{v[0]}.{v[1]}" not in known:  # as --target-version 2.16 is: no windows to judge it by
            raise ValueError(
                f"unknown --target {library}={version}: the catalogue knows {library} {known[0]} to {known[-1]} "
                f"({', '.join(known)})"
            )
        targets[library] = version
    return targets


COMPANION_NAMES = ("torchvision", "torchaudio")  # the order of COMPANIONS' pairs
