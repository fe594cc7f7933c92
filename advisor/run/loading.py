"""Reading a file for the run, or its result from the cache: what the engine (advisor.run.engine) does before any
analysis. `options` is the engine's `ScanOptions`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from advisor.core.findings import FileError, FileResult
from advisor.core.reading import read_bytes, source_limit

if TYPE_CHECKING:
    from advisor.run.cache import Cache

_TEXT_SALT = b"advisor text file\0"


def read_file(path: str) -> bytes:
    """A source file's bytes: a regular file, bounded (a FIFO or device raises `UnsafeFile`, an OSError)."""
    return read_bytes(path, source_limit())


def cannot_read(path: str, e: OSError) -> FileError:
    return FileError(path, f"cannot read: {e.strerror or e}")


def cache_salt(path: str, options: Any) -> bytes:
    """What besides the content decides a file's result: its kind, and rules switched off for its path.

    Cached results are keyed by content (and shared across repositories): the same bytes at a path
    where `per-file-ignores` turns rules off, or as a notebook, must not reuse another file's result.
    """
    parts = []
    if path.endswith(".ipynb"):
        parts.append(b"notebook")
    off = options.settings.ignored_for(path) if options.settings.per_file_ignores else None  # asked per file
    if off:
        parts.append(",".join(sorted(off.patterns)).encode())
    return b"advisor salt\0" + b"\0".join(parts) + b"\0" if parts else b""


def from_cache(cache: Cache, path: str, digest: str) -> FileResult | None:
    cached = cache.get(digest)
    try:
        return FileResult.from_dict(path, cached) if cached is not None else None
    except (TypeError, KeyError, ValueError, AttributeError):
        return None  # an entry of the wrong shape is a miss: the run rewrites it


def load(path: str, cache: Cache | None, text: bool, salt: bytes = b"") -> tuple[FileResult | None, bytes, str]:
    """(cached or error result, data, content digest) of one file; data is empty when the result is known."""
    try:
        st = os.stat(path)
    except OSError as e:
        return FileResult(path, errors=[cannot_read(path, e)]), b"", ""
    if cache is not None:
        cached = cache.hash_for_stat(path, st)
        known = from_cache(cache, path, cached) if cached else None
        if cached and known is not None:
            return known, b"", cached
    try:
        data = read_file(path)
    except OSError as e:
        return FileResult(path, errors=[cannot_read(path, e)]), b"", ""
    if cache is None:
        return None, data, ""  # no cache: no digest needed
    from advisor.run.cache import content_hash  # imported by open_cache already

    # A text file's result is not a Python file's result for the same bytes: keep them apart in the cache.
    digest = content_hash(_TEXT_SALT + salt + data if text else salt + data)
    cache.remember_stat(path, st, digest)
    known = from_cache(cache, path, digest)
    if known is not None:
        return known, b"", digest
    return None, data, digest


def open_cache(options: Any) -> Cache | None:
    """The cache of a run with these options (its rules and settings make the key); None without one."""
    if not options.cache_dir:
        return None
    # Lazy: a run without a cache (--no-cache, an editor's) never hashes, signs or reads JSON.
    from advisor.run.cache import Cache, run_key

    key = run_key(options.rules, options.settings)
    # No key without a machine key (no writable home): nothing to trust, so no cache.
    return Cache(options.cache_dir, key, options.shared_cache_dir) if key and options.cache_dir else None


def cached_result(path: str, cache: Cache, options: Any) -> tuple[FileResult | None, bytes]:
    """A Python file's or notebook's result as `cache` holds it (None: a miss) and, when it had to be read to
    know, its bytes. An unchanged file (same size and mtime) is not even read."""
    known, data, _ = load(path, cache, text=False, salt=cache_salt(path, options))
    return known, data
