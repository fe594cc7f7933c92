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
from typing import TYPE_CHECKING, Callable, Iterable

from advisor.analysis.textfiles import TEXT_FILE_PATTERNS, is_shell_script, is_text_file, is_text_name
from advisor.core.reading import PIN_FILE_LIMIT, read_text
from advisor.core.textlines import split_lines
from advisor.run.report_marker import REPORT_MARKER, own_report_files

if TYPE_CHECKING:
    from advisor.run.gitignore import GitIgnore

SKIP_DIRS = {
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".advisor_cache",
    "node_modules",
    "build",
    "dist",
    "site-packages",
    ".eggs",
}
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
# Skipped folders that never hold a project's code: leaving them out is not worth a word (advisor.run.hidden).
QUIET_SKIPS = {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".advisor_cache"}


def _literal_ends(patterns: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(ends, starts): a name that one of the `patterns` (globs) matches ends with one of `ends` or starts with one
    of `starts`. Two tests in C that most names fail, before the regex, which costs ~1 us a name."""
    ends: list[str] = []
    starts: list[str] = []
    for p in patterns:
        if "?" in p or "[" in p:
            starts.append("")  # not worth taking apart: every name goes on to the regex
        elif p.endswith("*"):
            starts.append(p[: p.index("*")])
        else:
            ends.append(p[p.rfind("*") + 1 :])
    return tuple(ends), tuple(starts)


_ENDS, _STARTS = _literal_ends((*("*" + suffix for suffix in SOURCE_SUFFIXES), *TEXT_FILE_PATTERNS))
_TEXT_ENDS, _TEXT_STARTS = _literal_ends(TEXT_FILE_PATTERNS)


def _candidate(name: str) -> bool:
    """Whether the walk may take a file of this name: a source file's or a text file's (advisor.analysis.textfiles)."""
    return (name.endswith(_ENDS) or name.startswith(_STARTS)) and (name.endswith(SOURCE_SUFFIXES) or is_text_name(name))


# A listing's (folders, files it may take, whether a .gitignore is there)
_Listing = tuple["list[os.DirEntry[str]]", "list[os.DirEntry[str]]", bool]


class DiscoveryError(ValueError):
    pass


@dataclass
class Discovered:
    files: list[str] = field(default_factory=list)
    text_files: list[str] = field(default_factory=list)  # Dockerfiles, shell scripts, .env (advisor.analysis.textfiles)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    notes: list[str] = field(default_factory=list)  # warnings for the user (stderr), e.g. a forged report marker
    # What the walk left out and why: (path, "exclude" | "skip" | the .gitignore's path); folders end in "/".
    left_out: list[tuple[str, str]] = field(default_factory=list)


class _GitIgnores:
    """Stack of .gitignore specs, loaded lazily (pathspec costs ~70 ms to import)."""

    def __init__(self) -> None:
        self._specs: dict[str, GitIgnore | None] = {}

    def _spec(self, directory: str):
        if directory not in self._specs:
            path = os.path.join(directory, ".gitignore")
            spec = None
            if os.path.isfile(path):
                from advisor.run.gitignore import GitIgnore  # pathspec, lazily

                try:  # a regular file only, bounded: a hostile tree's .gitignore may be a FIFO
                    spec = GitIgnore(split_lines(read_text(path, PIN_FILE_LIMIT)))
                except OSError:
                    spec = None
            self._specs[directory] = spec
        return self._specs[directory]

    def listed_without(self, directory: str) -> None:
        """`directory`'s listing holds no `.gitignore`: no need to ask the file system."""
        self._specs.setdefault(directory, None)

    def active(self, ancestors: list[str]) -> list[str]:
        """Those of `ancestors` that have a .gitignore: `ignored` asks only these (the same answer, found once
        per folder instead of once per file)."""
        return [d for d in ancestors if self._spec(d) is not None]

    def ignored(self, path: str, is_dir: bool, ancestors: list[str]) -> str | None:
        """The .gitignore that ignores `path`, or None."""
        for d in ancestors:
            spec = self._spec(d)
            if spec is None:
                continue
            rel = os.path.relpath(path, d).replace(os.sep, "/")
            if is_dir:
                rel += "/"
            if spec.match_file(rel):
                return os.path.normpath(os.path.join(d, ".gitignore"))
        return None


def excluded(path: str, patterns: Iterable[str]) -> bool:
    """Whether `path` matches one of the `exclude` globs (by name, by path, or as a folder on its way)."""
    return _excluded(path, patterns)


def _excluded(path: str, patterns: Iterable[str]) -> bool:
    norm = path.replace(os.sep, "/")
    name = os.path.basename(norm)
    for p in patterns:
        p = p.rstrip("/")
        if (
            fnmatch.fnmatch(norm, p)
            or fnmatch.fnmatch(name, p)
            or fnmatch.fnmatch(norm, f"*/{p}")
            or fnmatch.fnmatch(norm, f"{p}/*")
            or fnmatch.fnmatch(norm, f"*/{p}/*")
        ):
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


def _report_folder(directory: str, own: set[str], notes: list[str]) -> None:
    """Skip the files a report folder's manifest vouches for; a marker anyone could have written skips nothing."""
    files = own_report_files(directory)
    if files is None:
        notes.append(
            f"{os.path.normpath(directory)}: its {REPORT_MARKER} was not written by advisor on this machine, "
            "so the folder is scanned like any other"
        )
    else:
        own.update(files)


def _folder_left_out(
    full: str, exclude: list[str], ignores: _GitIgnores, ancestors: list[str], own: set[str], out: Discovered
) -> bool:
    """Whether the walk leaves the folder `full` out; if it could hold code, it goes into `out.left_out` with why."""
    name = os.path.basename(full)
    if name in SKIP_DIRS or name.endswith(".egg-info"):
        by: str | None = None if name in QUIET_SKIPS else "skip"
    elif exclude and _excluded(full, exclude):
        by = "exclude"
    else:
        if os.path.lexists(os.path.join(full, REPORT_MARKER)):
            _report_folder(full, own, out.notes)
        if not (by := ignores.ignored(full, True, ancestors)):
            return False
    if by:
        out.left_out.append((os.path.normpath(full) + "/", by))
    return True


def discover(
    paths: list[str], exclude: Iterable[str] = (), extend_include: Iterable[str] = (), force_exclude: bool = False
) -> Discovered:
    out = Discovered()
    seen: set[str] = set()
    walk = _Walk(out, seen, list(exclude), list(extend_include))  # extend_include: extra globs, e.g. "*.pyw"
    for raw in paths:
        if not os.path.lexists(raw):
            raise DiscoveryError(f"path does not exist: {raw}")
        if force_exclude and _excluded(os.path.normpath(raw), walk.exclude):
            out.left_out.append((os.path.normpath(raw), "exclude"))
            continue
        if os.path.isfile(raw):  # explicit files are always taken
            key = os.path.realpath(raw) if os.path.islink(raw) else os.path.abspath(raw)
            if key not in seen:
                seen.add(key)
                text = is_text_file(raw) or is_shell_script(raw)
                (out.text_files if text else out.files).append(os.path.normpath(raw))
            continue
        if not os.path.isdir(raw):
            if os.path.islink(raw):
                out.errors.append((raw, "dangling symbolic link"))
            else:
                out.errors.append((raw, "not a regular file or directory"))
            continue
        walk.tree(raw)
    return out


def _listing(directory: str, wanted: Callable[[str], object]) -> _Listing | None:
    """(folders, the other entries whose name is `wanted`, whether a `.gitignore` is there) of `directory`, the
    entries sorted by name, split as `os.walk` splits them (a link to a folder is a folder; an entry whose type
    cannot be read is not); None when it cannot be listed (`os.walk` skips it, and so do we). `os.scandir`'s
    entries know their type without a `stat` on Linux."""
    folders: list[os.DirEntry[str]] = []
    others: list[os.DirEntry[str]] = []
    gitignore = False
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                if is_dir:
                    folders.append(entry)
                elif wanted(entry.name):  # most of a tree's names are neither source nor text files
                    others.append(entry)
                elif entry.name == ".gitignore":
                    gitignore = True
    except OSError:
        return None
    folders.sort(key=_name)
    others.sort(key=_name)
    return folders, others, gitignore


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False  # as os.path.islink


class _Walk:
    """The walk of directories: each folder listed once, top-down, folders and files in name order (as `os.walk`
    with sorted names gave), a regular file's type known from its folder's listing: the engine's `stat` of it,
    for the cache's freshness check, is its only one."""

    def __init__(self, out: Discovered, seen: set[str], exclude: list[str], include: list[str]) -> None:
        self.out, self.seen, self.exclude, self.include = out, seen, exclude, include
        self.ignores = _GitIgnores()
        self.own: set[str] = set()  # files of report folders advisor wrote here, unchanged since

    def tree(self, root: str) -> None:
        real_root = os.path.realpath(root) + os.sep
        stack = [(root, _repo_parents(root) + [root])]
        while stack:
            dirpath, ancestors = stack.pop()
            listed = _listing(dirpath, self._wanted(dirpath))
            if listed is None:
                continue
            folders, others, gitignore = listed
            if not gitignore:
                self.ignores.listed_without(dirpath)
            if not (folders or others):
                continue
            active = self.ignores.active(ancestors)
            prefix = os.path.join(dirpath, "")  # + a name: os.path.join's result, without its cost per file
            below = []
            for entry in folders:
                full = prefix + entry.name
                if _folder_left_out(full, self.exclude, self.ignores, active, self.own, self.out):
                    continue
                if not _is_link(entry):  # symlinked directories are not followed
                    below.append((full, ancestors + [full]))
            stack.extend(reversed(below))  # the first folder is walked next, whole: depth first, in order
            if others:
                norm = os.path.normpath(dirpath)
                places = (
                    prefix,
                    "" if norm == "." else os.path.join(norm, ""),
                    os.path.join(os.path.abspath(dirpath), ""),
                )
                for entry in others:
                    self._file(entry, places, active, real_root)

    def _wanted(self, dirpath: str) -> Callable[[str], object]:
        """Whether a file name in `dirpath` may be taken: a source or text file's, or one `extend_include` names."""
        if not self.include:
            return _candidate
        include = self.include
        return lambda name: _candidate(name) or _excluded(os.path.join(dirpath, name), include)

    def _file(self, entry: os.DirEntry[str], places: tuple[str, str, str], active: list[str], real_root: str) -> None:
        """Take one file of a listing, or say why not. `places`: its folder as walked, normalised ("" for ".") and
        absolute, each ready to take a name; `active`: the folders above it that have a .gitignore."""
        name = entry.name
        out = self.out
        full = places[0] + name
        if self.exclude and _excluded(full, self.exclude):
            out.left_out.append((places[1] + name, "exclude"))
            return
        if active and (by := self.ignores.ignored(full, False, active)):
            out.left_out.append((places[1] + name, by))
            return
        link = _is_link(entry)
        if link:
            if not os.path.exists(full):
                out.errors.append((os.path.normpath(full), "dangling symbolic link"))
                return
            regular = os.path.isfile(full)
        else:
            try:
                regular = entry.is_file()
            except OSError:
                regular = False
        if not regular:
            if not os.path.isdir(full):  # a FIFO, socket or device by a source file's name
                out.errors.append((os.path.normpath(full), "not a regular file (a FIFO, socket or device); not read"))
            return
        if link and not os.path.realpath(full).startswith(real_root):
            return  # a link out of the scanned tree: not ours to read or rewrite
        absolute_path = places[2] + name
        if self.own and absolute_path in self.own:
            return  # our own report: its validation scripts call the APIs the rules look for
        # The walk does not follow directory links, so only a file link can alias another path.
        key = os.path.realpath(full) if link else absolute_path
        if key not in self.seen:
            self.seen.add(key)
            text = (name.endswith(_TEXT_ENDS) or name.startswith(_TEXT_STARTS)) and is_text_name(name)  # not for x.py
            (out.text_files if text else out.files).append(places[1] + name)
