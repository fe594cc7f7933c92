"""Replace a file atomically: write a temp file beside it, then rename over it.

A reader (or an interrupted run) sees the old bytes or the new ones, never half of each.
"""

from __future__ import annotations

import os
import tempfile


def replace_file(path: str, data: bytes, mode: int | None = None, durable: bool = False) -> None:
    real = os.path.realpath(path)
    directory = os.path.dirname(real) or "."
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(real)}.", suffix=".advisor-tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
