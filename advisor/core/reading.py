"""Reading a file of the scanned tree, which may be hostile: regular files only, bounded, never blocking.

Every file `advisor` reads from a project (sources, notebooks, pin files, pyproject.toml,
.gitignore) comes through `read_bytes`. A FIFO named `requirements-dev.txt` or a source file
swapped for one mid-scan would block a plain `open()` forever, and `/dev/zero` (or `-r /dev/zero`,
a symlinked `requirements.txt`) would be read until the process is killed. So the file is opened
with O_NONBLOCK (opening a FIFO then returns at once), checked with `fstat` to be a regular file,
and read up to a size cap. With `root`, a path whose real location is outside `root` is refused:
a link (or an include such as `-r ../../etc/x`) never takes a read out of the project.
"""

from __future__ import annotations

import os
import stat
from typing import Any

MB = 1024 * 1024
# Pin files, configs and lock files: the largest real poetry.lock / uv.lock seen are a few MB.
PIN_FILE_LIMIT = 16 * MB
# Sources and notebooks: a notebook with its outputs can be tens of MB (the text filter reads it
# all; only files a rule must parse meet the parser's own, lower, limit in advisor.analysis.analyse).
SOURCE_LIMIT = 64 * MB


def source_limit() -> int:
    """SOURCE_LIMIT, or more when ADVISOR_MAX_FILE_MB lets the parser take larger files."""
    try:
        parse_mb = float(os.environ.get("ADVISOR_MAX_FILE_MB", "0"))
    except ValueError:
        parse_mb = 0.0
    return max(SOURCE_LIMIT, int(parse_mb * MB))


_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class UnsafeFile(OSError):
    """A path `read_bytes` refused: not a regular file, too large, or outside the tree. `str()` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.strerror = reason

    def __str__(self) -> str:
        return self.strerror or ""


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a directory"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def inside(path: str, root: str) -> bool:
    """Whether `path`, links resolved, lies in `root` (links resolved too)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def read_bytes(path: str, limit: int = SOURCE_LIMIT, root: str | None = None, head: bool = False) -> bytes:
    """The bytes of the regular file `path`, at most `limit` of them (`head`: its first `limit` bytes).

    Raises `UnsafeFile` (an OSError) for a FIFO, device, socket or directory, a file over
    `limit` (unless `head`), or, with `root`, a path that resolves outside `root`; OSError as `open` would.
    """
    if root is not None and not inside(path, root):
        raise UnsafeFile(f"resolves outside the project ({os.path.realpath(path)}); not read")
    fd = os.open(path, _FLAGS)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UnsafeFile(f"{_kind(st.st_mode)}, not a regular file; not read")
        if head:
            return os.read(fd, limit)
        if st.st_size > limit:
            raise UnsafeFile(f"file is {st.st_size / MB:.1f} MB, over the {limit / MB:.0f} MB advisor reads; not read")
        chunks: list[bytes] = []
        size = 0
        while True:  # a regular file can still grow while we read it: never past the cap
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise UnsafeFile(f"file grew past the {limit / MB:.0f} MB advisor reads; not read")
    finally:
        os.close(fd)


def read_text(path: str, limit: int = PIN_FILE_LIMIT, root: str | None = None) -> str:
    """`read_bytes`, decoded as UTF-8 (undecodable bytes replaced): for data files, not Python sources."""
    return read_bytes(path, limit, root).decode("utf-8", "replace")


def toml() -> Any:
    """tomllib (tomli before Python 3.11), imported when a TOML file is there to read: most runs have none."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib
