"""Results cache keyed by file content hash, advisor version, rules and options.

Layout under the cache dir (default `.advisor_cache/` at the project root):
`<options-key>/<content-sha256>.json` holds one file's result, and
`<options-key>/index.json` maps path -> (size, mtime_ns, content hash), so a
warm re-run of an unchanged tree does not even read the files.

A shared store (`advisor audit`: one per audit, for all its repositories) adds
`<shared>/<options-key>/<hash[:2]>/<content-sha256>.json`, one file per result,
each written atomically: repositories that hold the same file (vendored code,
copied utilities) analyse it once, and repositories scanned at the same time
never overwrite each other's entries.
"""

from __future__ import annotations

import shutil
import hashlib
import json
import os
from typing import Any

from advisor import __version__
from advisor.core.atomic import replace_file


# Bumped when the shape of a cached FileResult changes (2: ROCm markers; 3: kind, warns_from, breaks_in;
# 4: a notebook finding's file_region).
RESULT_FORMAT = 4


def options_key(rule_codes: list[str], target: str, min_version: str | None, extra: str = "") -> str:
    text = json.dumps([__version__, RESULT_FORMAT, sorted(rule_codes), target, min_version, extra])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Cache:
    """Two JSON files per options key, each read once and written once (atomically) per run."""

    def __init__(self, root: str, key: str, shared: str | None = None) -> None:
        self.root = root
        self.dir = os.path.join(root, key)
        self.usable = True
        self._index: dict[str, list[Any]] = self._read("index.json")
        self._results: dict[str, Any] = self._read("results.json")
        self._dirty = False
        self._shared = os.path.join(shared, key) if shared else None
        self._shared_new: dict[str, Any] = {}
        self.shared_hits = 0

    def _read(self, name: str) -> dict[str, Any]:
        try:
            with open(os.path.join(self.dir, name), encoding="utf-8") as f:
                data = json.load(f)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def hash_for_stat(self, path: str, st: os.stat_result) -> str | None:
        """The content hash recorded for an unchanged file (same size and mtime)."""
        entry = self._index.get(os.path.abspath(path))
        if entry and entry[0] == st.st_size and entry[1] == st.st_mtime_ns:
            return entry[2]
        return None

    def remember_stat(self, path: str, st: os.stat_result, digest: str) -> None:
        self._index[os.path.abspath(path)] = [st.st_size, st.st_mtime_ns, digest]
        self._dirty = True

    def _shared_path(self, digest: str) -> str:
        return os.path.join(self._shared, digest[:2], f"{digest}.json")

    def get(self, digest: str) -> dict[str, Any] | None:
        found = self._results.get(digest)
        if found is None and self._shared is not None:
            try:
                with open(self._shared_path(digest), encoding="utf-8") as f:
                    found = json.load(f)
            except (OSError, ValueError):
                return None
            if not isinstance(found, dict):
                return None
            self.shared_hits += 1
            self._results[digest] = found  # kept in this repository's own cache too
            self._dirty = True
        return found

    def put(self, digest: str, data: dict[str, Any]) -> None:
        self._results[digest] = data
        self._dirty = True
        if self._shared is not None:
            self._shared_new[digest] = data

    def flush(self) -> None:
        self._flush_shared()
        if not (self.usable and self._dirty):
            return
        try:
            os.makedirs(self.dir, exist_ok=True)
            gitignore = os.path.join(self.root, ".gitignore")
            if not os.path.exists(gitignore):
                with open(gitignore, "w") as f:
                    f.write("# created by advisor\n*\n")
            live = {entry[2] for entry in self._index.values()}
            results = {k: v for k, v in self._results.items() if k in live}
            replace_file(os.path.join(self.dir, "results.json"), json.dumps(results).encode())
            replace_file(os.path.join(self.dir, "index.json"), json.dumps(self._index).encode())
        except OSError:
            self.usable = False  # read-only checkout: the run still succeeds, uncached
        self._dirty = False

    def _flush_shared(self) -> None:
        try:
            for digest, data in self._shared_new.items():
                path = self._shared_path(digest)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                replace_file(path, json.dumps(data).encode())
        except OSError:
            self._shared = None  # not writable here: the run goes on with the repository's own cache
        self._shared_new = {}


def clean(root: str) -> bool:
    if os.path.isdir(root):
        shutil.rmtree(root)
        return True
    return False
