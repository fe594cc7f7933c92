"""The release row of a new torch release (advisor/core/releases.py), from the wheels' METADATA.

`Release("2.16", torchvision, torchaudio, python)`: `python` is the torch wheel's `Requires-Python` floor;
`torchvision` / `torchaudio` are the versions of the companion wheels given, each checked to declare
`Requires-Dist: torch==<the new release>`; a companion not given keeps the previous row's (torchaudio stopped
at 2.11 and torchvision 0.29 served two torch releases).
"""

from __future__ import annotations

import re
import zipfile
from email.parser import Parser
from pathlib import Path

RELEASES = Path(__file__).resolve().parents[2] / "advisor" / "core" / "releases.py"
_ROW = re.compile(r'^    Release\("(?P<torch>[\d.]+)", "(?P<tv>[\d.]+)", "(?P<ta>[\d.]+)", "(?P<py>[\d.]+)"\),$', re.M)


def metadata(wheel: Path) -> dict[str, list[str]]:
    """The wheel's METADATA headers (a header that repeats, such as Requires-Dist, keeps every value)."""
    with zipfile.ZipFile(wheel) as z:
        name = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(z.read(name).decode("utf-8", "replace"), headersonly=True)
    out: dict[str, list[str]] = {}
    for key, value in message.items():
        out.setdefault(key, []).append(value.strip())
    return out


def _minor(version: str) -> str:
    return ".".join(version.split("+")[0].split(".")[:2])


def python_floor(meta: dict[str, list[str]], previous: str) -> str:
    """The `Requires-Python` floor (`>=3.11` -> "3.11"); the previous row's where the wheel states none."""
    m = re.search(r">=\s*(\d+\.\d+)", (meta.get("Requires-Python") or [""])[0])
    return m.group(1) if m else previous


def companion(wheel: Path, torch_version: str) -> str:
    """The companion's minor version, once its METADATA pins the new torch."""
    meta = metadata(wheel)
    name, version = meta["Name"][0], meta["Version"][0]
    pins = [r for r in meta.get("Requires-Dist", []) if re.match(r"torch\s*[(=>]", r)]
    if not any(_admits(p, torch_version) for p in pins):
        raise SystemExit(f"{name} {version} does not require torch {torch_version} (Requires-Dist: {pins})")
    return _minor(version)


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0])[:3])


def _admits(pin: str, version: str) -> bool:
    """`torch (==2.16.0)`, or a floor at or below it (`torch (>=2.14.0)`: torchvision 0.29.2) with no `<`."""
    exact = re.search(r"==\s*([\d.]+)", pin)
    if exact:
        return _key(exact.group(1)) == _key(version)
    floor = re.search(r">=\s*([\d.]+)", pin)
    return floor is not None and "<" not in pin and _key(floor.group(1)) <= _key(version)


def rows(text: str) -> list[dict[str, str]]:
    return [m.groupdict() for m in _ROW.finditer(text)]


def add_row(torch_wheel: Path, version: str, companions: dict[str, Path], path: Path = RELEASES) -> str | None:
    """Add the new release's row after the newest one; the row written (None: it was there already)."""
    text = path.read_text(encoding="utf-8")
    known = rows(text)
    minor = _minor(version)
    if any(r["torch"] == minor for r in known):
        return None
    last = known[-1]
    tv = companion(companions["torchvision"], version) if "torchvision" in companions else last["tv"]
    ta = companion(companions["torchaudio"], version) if "torchaudio" in companions else last["ta"]
    row = f'    Release("{minor}", "{tv}", "{ta}", "{python_floor(metadata(torch_wheel), last["py"])}"),'
    anchor = list(_ROW.finditer(text))[-1]
    path.write_text(text[: anchor.end()] + "\n" + row + text[anchor.end() :], encoding="utf-8")
    return row.strip()
