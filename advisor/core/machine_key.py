"""A random key that belongs to this user on this machine, kept outside every scanned tree.

What advisor writes inside a tree (the cache, a report folder's `.advisor-report` manifest)
is signed or named with it, so a file that arrived with a checkout, written by someone
else, is never taken for advisor's own (docs/security.md). It lives at
`$XDG_CACHE_HOME/torch-upgrade-advisor/key` (default `~/.cache/...`); when that cannot be
read or created, `machine_key()` is None and callers trust nothing.
"""

from __future__ import annotations

import os
import stat

_KEY_BYTES = 32
_cached: bytes | None = None


def key_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torch-upgrade-advisor", "key")


def _read(path: str) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        # Ours alone (0600, our uid): a checkout can't plant one, since git writes files 0644 or 0755.
        if (
            not stat.S_ISREG(st.st_mode)
            or st.st_mode & 0o077
            or st.st_uid != getattr(os, "geteuid", lambda: st.st_uid)()
        ):
            return None
        data = f.read(_KEY_BYTES + 1)
    return data if len(data) == _KEY_BYTES else None


def _create(path: str) -> None:
    """Write a new key; concurrent first runs agree on one (the first link wins)."""
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(_KEY_BYTES))
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: the last writer wins
            os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def machine_key() -> bytes | None:
    global _cached
    if _cached is None:
        path = key_path()
        key = _read(path)
        if key is None:
            try:
                _create(path)
            except OSError:
                return None
            key = _read(path)
        _cached = key
    return _cached


def sign(data: bytes) -> str | None:
    """HMAC-SHA256 of `data` under this machine's key (hex); None without a key."""
    import hashlib
    import hmac  # lazy: start-up

    key = machine_key()
    return hmac.new(key, data, hashlib.sha256).hexdigest() if key is not None else None


def verify(data: bytes, signature: object) -> bool:
    import hmac  # lazy: start-up

    expected = sign(data)
    return expected is not None and isinstance(signature, str) and hmac.compare_digest(expected, signature)
