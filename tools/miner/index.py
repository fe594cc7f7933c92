"""The per-release API index (docs/coverage.md, "The API index"): what each release binds and its
deprecation events, written as deterministic bytes, and the questions asked of it."""

from __future__ import annotations

import gzip
import json
import os
import time
from pathlib import Path
from typing import Iterable

from .common import MINER_VERSION, TOP_PACKAGES, _parse_version, is_excluded_path, is_private, is_shim
from .model import Release, build_release, sites_of
from .sites import Cache

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
        shim = is_shim(a)
        for local, (src, _name, _line) in a["imported"].items():
            if src.split(".")[0] in self.tops and (is_pkg or shim or local in listed):
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


class _Building:
    """An index being built, one release at a time (from wheels, or extending a committed index)."""

    def __init__(self, dist: str):
        self.dist = dist
        self.releases: list[str] = []
        self.present: dict[str, list[int]] = {}
        self.events: dict[tuple, list[int]] = {}
        self.evidence: dict[tuple, str] = {}
        self.aliases: dict[str, str] = {}

    @classmethod
    def of(cls, index: dict) -> "_Building":
        b = cls(index["dist"])
        b.releases = list(index["releases"])
        b.present = {n: sorted(_expand(spec)) for n, spec in index["apis"].items()}
        for api, evs in index["events"].items():
            for e in evs:
                key = (api, e["kind"], e["category"], e["message"], e["on_args"], e["in_if"])
                b.events[key] = sorted(_expand(e["in"]))
                b.evidence[key] = e["evidence"]
        b.aliases = dict(index["aliases"])
        return b

    def add(self, rel: Release) -> int:
        """Record one release, newer than every one recorded; the number of its events."""
        i = len(self.releases)
        self.releases.append(rel.version)
        for n in Names(rel).all_names():
            self.present.setdefault(n, []).append(i)
        found, al = release_events(rel)
        for alias, canon in al.items():
            self.aliases.setdefault(alias, canon)
        for e in found:
            key = (e["api"], e["kind"], e["category"], e["message"], e["on_args"], e["in_if"])
            self.events.setdefault(key, []).append(i)
            self.evidence[key] = f"{rel.version}:{e['evidence']}"  # the newest release's site
        return len(found)

    def index(self) -> dict:
        by_api: dict[str, list[dict]] = {}
        for key in sorted(self.events):
            api, kind, category, message, on_args, in_if = key
            by_api.setdefault(api, []).append(
                {
                    "kind": kind,
                    "category": category,
                    "message": message,
                    "on_args": on_args,
                    "in_if": in_if,
                    "in": intervals(self.events[key]),
                    "evidence": self.evidence[key],
                }
            )
        for api in by_api:
            by_api[api].sort(key=lambda e: (int(e["in"].split("-")[0].split(",")[0]), e["kind"], e["message"]))
        return {
            "about": INDEX_ABOUT,
            "format": INDEX_FORMAT,
            "miner": MINER_VERSION,
            "dist": self.dist,
            "releases": self.releases,
            "apis": {n: intervals(ix) for n, ix in sorted(self.present.items())},
            "events": dict(sorted(by_api.items())),
            "aliases": dict(sorted(self.aliases.items())),
        }


def build_index(sources: Iterable, cache: Cache, log=None) -> dict:
    """The index over several releases of one distribution: per API the releases that bind it,
    and per deprecated API its events, each with the releases it holds in."""
    srcs = sorted(sources, key=lambda s: _parse_version(s[1]))
    dists = {s[0] for s in srcs}
    if len(dists) != 1:
        raise SystemExit(f"--index takes the releases of one distribution, got {sorted(dists)}")
    building = _Building(srcs[0][0])
    for _dist, _version, loader in srcs:
        t0 = time.perf_counter()
        src = loader()
        rel = build_release(src, cache)
        src.files.clear()
        found = building.add(rel)
        if log:
            log(
                f"{rel.dist} {rel.version}: {len(building.present)} names so far, {found} events, "
                f"{time.perf_counter() - t0:.1f}s"
            )
    return building.index()


def extend_index(index: dict, rel: Release) -> dict:
    """The index with one more release, newer than all it has (the next-release command)."""
    if rel.version in index["releases"]:
        raise SystemExit(f"the index already has {rel.version}")
    if _parse_version(rel.version) < _parse_version(index["releases"][-1]):
        raise SystemExit(f"{rel.version} is older than the index's newest release, {index['releases'][-1]}")
    building = _Building.of(index)
    building.add(rel)
    return building.index()


def truncate_index(index: dict, keep: int) -> dict:
    """The index as it was with only its first `keep` releases (a rehearsal of the next-release command).
    Evidence and aliases are kept as they are: they only point at sites."""
    building = _Building.of(index)
    building.releases = building.releases[:keep]
    building.present = {n: [i for i in ix if i < keep] for n, ix in building.present.items()}
    building.present = {n: ix for n, ix in building.present.items() if ix}
    building.events = {k: [i for i in ix if i < keep] for k, ix in building.events.items()}
    building.events = {k: ix for k, ix in building.events.items() if ix}
    return building.index()


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
        self._parents: set[str] | None = None

    def has_children(self, name: str) -> bool:
        """Does any release bind a name inside `name` (a module's attribute or submodule)?"""
        if self._parents is None:
            self._parents = {a.rsplit(".", 1)[0] for a in self.apis}
        return name in self._parents

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
        """Releases that warn (a `@deprecated(..., category=None)` decoration never does: see `silent`)."""
        events = self.events(name, ("warn", "deprecated-decorator"))
        return set().union(*(e["releases"] for e in events if e["category"] != "None"))

    def silent(self, name: str) -> set[int]:
        """Releases where `name` is decorated `@deprecated(..., category=None)`: documented deprecated, no warning."""
        events = self.events(name, ("deprecated-decorator",))
        return set().union(*(e["releases"] for e in events if e["category"] == "None"))

    def raises(self, name: str) -> set[int]:
        return set().union(*(e["releases"] for e in self.events(name, ("removed",))))
