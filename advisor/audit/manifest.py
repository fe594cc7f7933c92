"""The audit's manifest: which checkouts to scan, as TOML (`[[repo]]` tables) or text (one path per line)."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from advisor.audit.executors import AuditError
from advisor.core.reading import toml


@dataclass
class Repo:
    path: str
    name: str
    owner: str | None = None
    tags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"path": self.path, "name": self.name, "owner": self.owner, "tags": list(self.tags)}


def read_manifest(path: str) -> list[Repo]:
    """Repositories from a TOML manifest (`[[repo]]` tables) or a text one (one per line)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise AuditError(f"cannot read manifest {path}: {e.strerror or e}") from None
    base = os.path.dirname(os.path.abspath(path))
    entries = _toml_entries(path, data) if path.endswith(".toml") else _text_entries(path, data)
    repos: list[Repo] = []
    names: Counter = Counter()
    for where, entry in entries:
        raw = entry.get("path")
        if not isinstance(raw, str) or not raw:
            raise AuditError(f"{where}: every repository needs a path")
        full = os.path.normpath(os.path.join(base, os.path.expanduser(raw)))
        name = entry.get("name") or os.path.basename(full.rstrip(os.sep)) or full
        tags = entry.get("tags") or []
        if isinstance(tags, str):
            tags = [t for t in tags.split(",") if t]
        if not isinstance(name, str) or not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            raise AuditError(f"{where}: name must be a string and tags a list of strings")
        names[name] += 1
        if names[name] > 1:  # two checkouts with one basename: keep both, apart
            name = f"{name}-{names[name]}"
        owner = entry.get("owner") or entry.get("team")
        repos.append(Repo(full, name, owner if isinstance(owner, str) else None, tags))
    if not repos:
        raise AuditError(f"{path}: the manifest lists no repositories")
    return repos


def _toml_entries(path: str, data: bytes) -> list[tuple[str, dict]]:
    try:
        doc = toml().loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise AuditError(f"{path}: invalid TOML: {e}") from None
    tables = doc.get("repo", doc.get("repositories", []))
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise AuditError(f"{path}: expected [[repo]] tables with path, name, owner, tags")
    unknown = {k for t in tables for k in t} - {"path", "name", "owner", "team", "tags"}
    if unknown:
        raise AuditError(f"{path}: unknown key(s) in [[repo]]: {', '.join(sorted(unknown))}")
    return [(f"{path}: repo #{i}", t) for i, t in enumerate(tables, 1)]


_FIELD = re.compile(r"^(name|owner|team|tags)=(.*)$")


def _text_entries(path: str, data: bytes) -> list[tuple[str, dict]]:
    """`PATH [name=N] [owner=O] [tags=a,b]` per line; `#` starts a comment."""
    out = []
    for lineno, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        first, *rest = line.split()
        entry: dict[str, Any] = {"path": first}
        for word in rest:
            m = _FIELD.match(word)
            if not m:
                raise AuditError(f"{path}:{lineno}: expected name=, owner= or tags= after the path, got {word!r}")
            entry[m.group(1)] = m.group(2)
        out.append((f"{path}:{lineno}", entry))
    return out
