"""Which files a run looks at.

Directories are walked (symlinked directories are not followed), skipping
well-known tool folders and anything a `.gitignore` on the way down ignores.
Files named explicitly on the command line are always taken, as in Ruff, so
pre-commit can hand us exactly the staged files; with `force_exclude` (Ruff's
`--force-exclude`, which both pre-commit hooks pass) `exclude` applies to them too.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass, field
from typing import Iterable

from advisor.analysis.textfiles import is_shell_script, is_text_file
from advisor.core.reading import PIN_FILE_LIMIT, read_text
from advisor.core.textlines import split_lines

SKIP_DIRS = {
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", ".mypy_cache",
    ".pytest_cache", ".ruff_cache", ".advisor_cache", "node_modules", "build", "dist",
    "site-packages", ".eggs",
}
# Written into every report directory (advisor.report.render) so later scans skip it.
REPORT_MARKER = ".advisor-report"
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")


class DiscoveryError(ValueError):
    pass


@dataclass
class Discovered:
    files: list[str] = field(default_factory=list)
    text_files: list[str] = field(default_factory=list)  # Dockerfiles, shell scripts, .env (advisor.analysis.textfiles)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)


class _GitIgnores:
    """Stack of .gitignore specs, loaded lazily (pathspec costs ~70 ms to import)."""

    def __init__(self) -> None:
        self._specs: dict[str, object | None] = {}

    def _spec(self, directory: str):
        if directory not in self._specs:
            path = os.path.join(directory, ".gitignore")
            spec = None
            if os.path.isfile(path):
                import pathspec

                try:  # a regular file only, bounded: a hostile tree's .gitignore may be a FIFO
                    spec = pathspec.PathSpec.from_lines("gitwildmatch", split_lines(read_text(path, PIN_FILE_LIMIT)))
                except OSError:
                    spec = None
            self._specs[directory] = spec
        return self._specs[directory]

    def ignored(self, path: str, is_dir: bool, ancestors: list[str]) -> bool:
        for d in ancestors:
            spec = self._spec(d)
            if spec is None:
                continue
            rel = os.path.relpath(path, d).replace(os.sep, "/")
            if is_dir:
                rel += "/"
            if spec.match_file(rel):  # type: ignore[attr-defined]
                return True
        return False


def excluded(path: str, patterns: Iterable[str]) -> bool:
    """Whether `path` matches one of the `exclude` globs (by name, by path, or as a folder on its way)."""
    return _excluded(path, patterns)


def _excluded(path: str, patterns: Iterable[str]) -> bool:
    norm = path.replace(os.sep, "/")
    name = os.path.basename(norm)
    for p in patterns:
        p = p.rstrip("/")
        if fnmatch.fnmatch(norm, p) or fnmatch.fnmatch(name, p) or fnmatch.fnmatch(norm, f"*/{p}") or fnmatch.fnmatch(norm, f"{p}/*") or fnmatch.fnmatch(norm, f"*/{p}/*"):
            return True
    return False


def _repo_parents(directory: str) -> list[str]:
    """Directories above `directory` up to its git root, whose .gitignore also applies."""
    here = os.path.abspath(directory)
    parents: list[str] = []
    if os.path.isdir(os.path.join(here, ".git")):
        return parents
    cur = os.path.dirname(here)
    while True:
        parents.append(cur)
        if os.path.exists(os.path.join(cur, ".git")):
            return list(reversed(parents))
        nxt = os.path.dirname(cur)
        if nxt == cur:
            return []  # not inside a git repository: only the tree's own .gitignore files
        cur = nxt


def discover(paths: list[str], exclude: Iterable[str] = (), extend_include: Iterable[str] = (), force_exclude: bool = False) -> Discovered:
    out = Discovered()
    seen: set[str] = set()
    exclude = list(exclude)
    include = list(extend_include)  # extra globs, e.g. "*.pyw"
    ignores = _GitIgnores()

    def add(p: str, explicit: bool = False) -> None:
        # The walk does not follow directory links, so only a file link can alias another path.
        key = os.path.realpath(p) if os.path.islink(p) else os.path.abspath(p)
        if key not in seen:
            seen.add(key)
            text = is_text_file(p) or (explicit and is_shell_script(p))
            (out.text_files if text else out.files).append(os.path.normpath(p))

    for raw in paths:
        if not os.path.lexists(raw):
            raise DiscoveryError(f"path does not exist: {raw}")
        if force_exclude and _excluded(os.path.normpath(raw), exclude):
            continue
        if os.path.isfile(raw):
            add(raw, explicit=True)  # explicit files are always taken
            continue
        if not os.path.isdir(raw):
            if os.path.islink(raw):
                out.errors.append((raw, "dangling symbolic link"))
            else:
                out.errors.append((raw, "not a regular file or directory"))
            continue
        root = raw
        real_root = os.path.realpath(root) + os.sep
        ancestors_of: dict[str, list[str]] = {root: _repo_parents(root) + [root]}
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            ancestors = ancestors_of.get(dirpath, [dirpath])
            keep = []
            for d in sorted(dirnames):
                full = os.path.join(dirpath, d)
                if d in SKIP_DIRS or d.endswith(".egg-info") or _excluded(full, exclude):
                    continue
                if os.path.exists(os.path.join(full, REPORT_MARKER)):
                    continue  # our own report: its validation scripts call the APIs the rules look for
                if ignores.ignored(full, True, ancestors):
                    continue
                ancestors_of[full] = ancestors + [full]
                keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                if not name.endswith(SOURCE_SUFFIXES) and not _excluded(full, include) and not is_text_file(name):
                    continue
                if _excluded(full, exclude):
                    continue
                if ignores.ignored(full, False, ancestors):
                    continue
                if os.path.islink(full) and not os.path.exists(full):
                    out.errors.append((os.path.normpath(full), "dangling symbolic link"))
                    continue
                if not os.path.isfile(full):
                    if not os.path.isdir(full):  # a FIFO, socket or device by a source file's name
                        out.errors.append((os.path.normpath(full), "not a regular file (a FIFO, socket or device); not read"))
                    continue
                if os.path.islink(full) and not os.path.realpath(full).startswith(real_root):
                    continue  # a link out of the scanned tree: not ours to read or rewrite
                add(full)
    return out
