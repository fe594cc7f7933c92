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
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from advisor.analysis.textfiles import is_shell_script, is_text_file, is_text_name
from advisor.core.machine_key import sign, verify
from advisor.core.reading import PIN_FILE_LIMIT, read_text
from advisor.core.textlines import split_lines

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
# Written into every report directory (advisor.report.render): the manifest of the files advisor wrote there.
REPORT_MARKER = ".advisor-report"
SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")
# Skipped folders that never hold a project's code: leaving them out is not worth a word (advisor.run.hidden).
QUIET_SKIPS = {".git", ".hg", ".svn", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".advisor_cache"}
_MAX_MANIFEST_BYTES = 1 << 20


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


def manifest_text(files: dict[str, str], version: str, signed: bool = True) -> str:
    """The `.advisor-report` manifest: {relative path: sha256} of what advisor wrote, signed on this machine."""
    import json  # lazy: start-up

    body = json.dumps(files, sort_keys=True)
    return (
        json.dumps(
            {
                "written_by": "torch-upgrade-advisor",
                "version": version,
                "files": files,
                "signature": sign(body.encode()) if signed else None,
            },
            indent=1,
            sort_keys=True,
        )
        + "\n"
    )


def read_manifest(directory: str) -> tuple[dict[str, str], bool] | None:
    """(files, signed here) from `directory`'s manifest; None when there is none or it is not one."""
    import json  # lazy: start-up

    try:
        fd = os.open(
            os.path.join(directory, REPORT_MARKER),
            os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0),
        )
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            data = json.loads(f.read(_MAX_MANIFEST_BYTES))
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        return None
    return files, verify(json.dumps(files, sort_keys=True).encode(), data.get("signature"))


def file_digest(path: str) -> str | None:
    """sha256 of a regular file (a link or anything else: None)."""
    import hashlib  # lazy: start-up

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _own_report_files(directory: str) -> set[str] | None:
    """The files of a report folder advisor wrote on this machine, still as written; None: not one."""
    found = read_manifest(directory)
    if found is None or not found[1]:
        return None
    return {
        os.path.abspath(os.path.join(directory, rel))
        for rel, digest in found[0].items()
        if file_digest(os.path.join(directory, rel)) == digest
    }


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
    files = _own_report_files(directory)
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
    elif _excluded(full, exclude):
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
    exclude = list(exclude)
    include = list(extend_include)  # extra globs, e.g. "*.pyw"
    ignores = _GitIgnores()
    own: set[str] = set()  # files of report folders advisor wrote here, unchanged since

    def add(p: str, explicit: bool = False, link: bool | None = None) -> None:
        # The walk does not follow directory links, so only a file link can alias another path.
        key = os.path.realpath(p) if (os.path.islink(p) if link is None else link) else os.path.abspath(p)
        if key not in seen:
            seen.add(key)
            text = is_text_file(p) or (explicit and is_shell_script(p))
            (out.text_files if text else out.files).append(os.path.normpath(p))

    for raw in paths:
        if not os.path.lexists(raw):
            raise DiscoveryError(f"path does not exist: {raw}")
        if force_exclude and _excluded(os.path.normpath(raw), exclude):
            out.left_out.append((os.path.normpath(raw), "exclude"))
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
                if _folder_left_out(full, exclude, ignores, ancestors, own, out):
                    continue
                ancestors_of[full] = ancestors + [full]
                keep.append(d)
            dirnames[:] = keep
            for name in sorted(filenames):
                # Most of a tree's names are neither source nor text files: judged by the name alone first.
                if (
                    not name.endswith(SOURCE_SUFFIXES)
                    and not is_text_name(name)
                    and not (include and _excluded(os.path.join(dirpath, name), include))
                ):
                    continue
                full = os.path.join(dirpath, name)
                if _excluded(full, exclude):
                    out.left_out.append((os.path.normpath(full), "exclude"))
                    continue
                if by := ignores.ignored(full, False, ancestors):
                    out.left_out.append((os.path.normpath(full), by))
                    continue
                link = os.path.islink(full)  # asked once: a tree's every file
                if link and not os.path.exists(full):
                    out.errors.append((os.path.normpath(full), "dangling symbolic link"))
                    continue
                if not os.path.isfile(full):
                    if not os.path.isdir(full):  # a FIFO, socket or device by a source file's name
                        out.errors.append(
                            (os.path.normpath(full), "not a regular file (a FIFO, socket or device); not read")
                        )
                    continue
                if link and not os.path.realpath(full).startswith(real_root):
                    continue  # a link out of the scanned tree: not ours to read or rewrite
                if own and os.path.abspath(full) in own:
                    continue  # our own report: its validation scripts call the APIs the rules look for
                add(full, link=link)
    return out
