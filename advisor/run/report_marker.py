"""The manifest advisor writes into every report folder it makes (advisor.report.render), `.advisor-report`:
the files it wrote there and their sha256, signed on this machine. Discovery skips the files a manifest signed here
vouches for (a report's validation scripts call the APIs the rules look for); `validate` runs only scripts it lists.
"""

from __future__ import annotations

import os
import stat

from advisor.core.machine_key import sign, verify

# Written into every report directory (advisor.report.render): the manifest of the files advisor wrote there.
REPORT_MARKER = ".advisor-report"
_MAX_MANIFEST_BYTES = 1 << 20


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


def own_report_files(directory: str) -> set[str] | None:
    """The files of a report folder advisor wrote on this machine, still as written; None: not one."""
    found = read_manifest(directory)
    if found is None or not found[1]:
        return None
    return {
        os.path.abspath(os.path.join(directory, rel))
        for rel, digest in found[0].items()
        if file_digest(os.path.join(directory, rel)) == digest
    }
