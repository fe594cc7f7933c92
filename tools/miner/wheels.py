"""Sources: a wheel (`.whl` zip) or an installed tree, read without importing anything."""

from __future__ import annotations

import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from .common import STUBS, TOP_PACKAGES


@dataclass
class Source:
    dist: str
    version: str
    origin: str
    files: dict[str, bytes] = field(default_factory=dict)  # relpath -> bytes


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
