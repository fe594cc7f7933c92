"""Write files atomically and never through a symbolic link: every file advisor writes goes through here.

A reader (or an interrupted run, or a full disk) sees the old bytes or the new ones, never half of
each: the data goes to a temp file beside the target, then `os.replace` renames it over the target.
The scanned tree is hostile (docs/security.md): a committed `report.html -> ~/.bashrc` or
`.advisor_cache -> /etc` must not make advisor write there. So `write_output` replaces a link at
the target's own name (the link goes, its target is untouched), and `real_dir` refuses a folder
that is a link, where every write below it would land outside the tree.
"""

from __future__ import annotations

import os
import stat


class LinkError(OSError):
    """A folder advisor would write into is a symbolic link (or not a folder)."""


def _write_temp(directory: str, name: str, data: bytes, durable: bool) -> str:
    import tempfile  # lazy: start-up

    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".advisor-tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if durable:
                os.fsync(f.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_output(path: str, data: bytes | str, durable: bool = False) -> None:
    """Replace `path` with `data` (str: UTF-8). A link at `path` is replaced itself, never followed.

    A device, FIFO or socket at `path` (`-o /dev/null`, `-o /dev/stdout`) is written to, as a shell redirect
    would: renaming a file over it would replace the device itself (as root, /dev/null became a file)."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        st = os.lstat(path)
    except OSError:
        st = None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        with open(path, "wb") as f:
            f.write(raw)
        return
    directory = os.path.dirname(path) or "."
    tmp = _write_temp(directory, os.path.basename(path), raw, durable)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # what open(path, "w") would have given, not mkstemp's 0600
        os.replace(tmp, path)
    except BaseException:
        _unlink(tmp)
        raise


def _read_umask() -> int:
    mask = os.umask(0)  # the only way to read it; done once, at import, before any thread starts
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def real_dir(path: str, create: bool = True) -> str:
    """`path`, a real folder (created when missing, one level): LinkError if it is a link or a file."""
    if create:
        try:
            os.mkdir(path)
        except FileExistsError:
            pass
    st = os.lstat(path)
    if stat.S_ISLNK(st.st_mode):
        raise LinkError(
            f"{path} is a symbolic link; advisor never writes through one (remove it, or name the real folder)"
        )
    if not stat.S_ISDIR(st.st_mode):
        raise LinkError(f"{path} is not a folder")
    return path


def real_dirs(base: str, *parts: str) -> str:
    """`base/parts...`, each level a real folder (created when missing); `base` may be created too."""
    os.makedirs(os.path.dirname(os.path.abspath(base)), exist_ok=True)
    path = real_dir(base)
    for part in parts:
        path = real_dir(os.path.join(path, part))
    return path


def inside(path: str, root: str) -> str:
    """`path`'s real path, or LinkError when it lies outside `root` (a link named on the command line, or
    swapped in during the run, that leads out of the project: advisor never writes there)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    if real != top and not real.startswith(top.rstrip(os.sep) + os.sep):
        raise LinkError(f"{path} leads to {real}, outside the project ({top}); not modified")
    return real


def read_in_place(real: str, limit: int) -> tuple[bytes, os.stat_result]:
    """The bytes (at most `limit` + 1) of the regular file at `real`, never through a link and never blocking
    (a file swapped for a link or a FIFO after it was first read is refused, not followed or waited on)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(real, flags)
    except OSError as e:
        raise LinkError(f"{real} is no longer a regular file ({e.strerror or e}); not modified") from None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise LinkError(f"{real} is no longer a regular file; not modified")
        return f.read(limit + 1), st


def replace_file(
    path: str, data: bytes, mode: int | None = None, durable: bool = False, root: str | None = None
) -> None:
    """Rewrite a source file in place of itself (the fixer): keep its mode and, where permitted, owner.

    A link inside the project (`root`) is rewritten at its target; one that leads out of it is refused,
    whether discovery met it or the command line named it. A file with other hard links is refused: the
    rename would split it from them. The rename replaces a name, so it never writes through a link.
    """
    real = inside(path, root) if root is not None else os.path.realpath(path)
    st = os.lstat(real)
    if not stat.S_ISREG(st.st_mode):
        raise LinkError(f"{path} is not a regular file; not modified")
    if st.st_nlink > 1:
        raise LinkError(
            f"{path} has {st.st_nlink} hard links; advisor replaces files atomically, which would "
            "split it from the others, so it is left alone"
        )
    directory = os.path.dirname(real) or "."
    tmp = _write_temp(directory, os.path.basename(real), data, durable)
    try:
        if hasattr(os, "chown") and (st.st_uid, st.st_gid) != (os.geteuid(), os.getegid()):
            try:  # as root (or a group member), the new file keeps the old owner and group
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass
        os.chmod(tmp, (st.st_mode & 0o7777) if mode is None else mode)
        os.replace(tmp, real)
    except BaseException:
        _unlink(tmp)
        raise
