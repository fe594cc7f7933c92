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

A cache that arrived with a checkout is never read (docs/security.md): the options key is an
HMAC under this machine's key (advisor.core.machine_key), so a committed
`.advisor_cache/<key>/results.json` saying "no findings" sits under a name no run here looks
up. Each file is signed with the same key too (`signatures.json` beside the two files; a line of its
own atop each shared entry), so an entry edited or planted under the right folder, by whoever can write
the cache, is a miss like one of the wrong shape: analysed again and rewritten. Writes never go through
a link (advisor.core.atomic).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Sequence

from advisor import __version__
from advisor.core.atomic import real_dirs, write_output
from advisor.core.machine_key import sign, verify


# Bumped when the shape of a cached FileResult changes (2: ROCm markers; 3: kind, warns_from, breaks_in;
# 4: a notebook finding's file_region).
RESULT_FORMAT = 4


def options_key(rule_codes: list[str], target: str, min_version: str | None, extra: str = "") -> str | None:
    """The cache's folder name for these options; None (run uncached) when this machine has no key."""
    text = json.dumps([__version__, RESULT_FORMAT, sorted(rule_codes), target, min_version, extra])
    signed = sign(text.encode())
    return signed[:32] if signed else None


def run_key(rules: Sequence[Any], settings: Any) -> str | None:
    """The options key of a run with these rules and settings (advisor.run.engine's results, the JSON fix edits)."""
    versions = settings.versions
    return options_key(
        [r.code for r in rules], versions.target, versions.lowest, repr(sorted(settings.per_file_ignores))
    )


def _index_entry(entry: Any) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and type(entry[0]) is int
        and type(entry[1]) is int
        and isinstance(entry[2], str)
    )


def _absolute(path: str) -> str:
    """`os.path.abspath(path)`; a path discovery made from an absolute one is already that, and is not worked out
    again for each of a tree's files (only a path with `//`, `/.` or a final `/` can differ from its normal form)."""
    if path.startswith(os.sep) and os.sep == "/" and "//" not in path and "/." not in path and not path.endswith("/"):
        return path
    return os.path.abspath(path)


def _result_entry(entry: Any) -> bool:
    if not isinstance(entry, dict):
        return False
    findings, errors = entry.get("findings"), entry.get("errors")
    return (
        isinstance(findings, list)
        and isinstance(errors, list)
        and (not findings or all(isinstance(f, dict) for f in findings))  # most files: none, and no loop
        and (not errors or all(isinstance(e, str) for e in errors))
    )


def _read_signed(path: str) -> Any:
    """The JSON of a file written by `_signed`, or None when it is missing, unreadable or not signed here."""
    try:
        with open(path, "rb") as f:
            signature, _, raw = f.read().partition(b"\n")
        return json.loads(raw) if verify(raw, signature.decode("ascii", "replace")) else None
    except (OSError, ValueError):
        return None


def _signed(data: Any) -> bytes:
    """`data` as JSON, its signature on a line of its own in front (a shared entry, the edits store)."""
    raw = json.dumps(data).encode()
    return f"{sign(raw)}\n".encode() + raw


def content_hash(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Cache:
    """Two JSON files per options key, each read once and written once (atomically) per run."""

    def __init__(self, root: str, key: str, shared: str | None = None) -> None:
        self.root = root
        self.dir = os.path.join(root, key)
        self.usable = not os.path.islink(root)  # a linked cache folder is neither read nor written
        self._signatures = self._read("signatures.json", signed=False)
        # Entries of the wrong shape are misses: each is checked when asked for (a warm run asks for every one
        # once), not all of them up front, and none of them is written back.
        self._index: dict[str, Any] = self._read("index.json")
        self._results: dict[str, Any] = self._read("results.json")
        self._dirty = False
        self._shared = os.path.join(shared, key) if shared else None
        self._shared_new: dict[str, Any] = {}
        self.shared_hits = 0

    def _read(self, name: str, signed: bool = True) -> dict[str, Any]:
        if not self.usable:
            return {}
        try:
            with open(os.path.join(self.dir, name), "rb") as f:
                raw = f.read()
            if signed and not verify(raw, self._signatures.get(name)):
                return {}  # not what this machine wrote: a miss
            data = json.loads(raw)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def hash_for_stat(self, path: str, st: os.stat_result) -> str | None:
        """The content hash recorded for an unchanged file (same size and mtime)."""
        entry = self._index.get(_absolute(path))
        if entry and _index_entry(entry) and entry[0] == st.st_size and entry[1] == st.st_mtime_ns:
            return entry[2]
        return None

    def remember_stat(self, path: str, st: os.stat_result, digest: str) -> None:
        self._index[_absolute(path)] = [st.st_size, st.st_mtime_ns, digest]
        self._dirty = True

    def _shared_path(self, digest: str) -> str:
        assert self._shared is not None  # asked only with a shared cache
        return os.path.join(self._shared, digest[:2], f"{digest}.json")

    def get(self, digest: str) -> dict[str, Any] | None:
        found = self._results.get(digest)
        if found is not None and not _result_entry(found):
            found = None
        if found is None and self._shared is not None:
            found = _read_signed(self._shared_path(digest))
            if not _result_entry(found):
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
            real_dirs(self.root, os.path.basename(self.dir))
            gitignore = os.path.join(self.root, ".gitignore")
            if not os.path.lexists(gitignore) or os.path.islink(gitignore):
                write_output(gitignore, "# created by advisor\n*\n")
            index = {k: v for k, v in self._index.items() if _index_entry(v)}
            live = {entry[2] for entry in index.values()}
            results = {k: v for k, v in self._results.items() if k in live and _result_entry(v)}
            signatures = {}
            for name, data in (("results.json", results), ("index.json", index)):
                raw = json.dumps(data).encode()
                write_output(os.path.join(self.dir, name), raw)
                signatures[name] = sign(raw)
            write_output(os.path.join(self.dir, "signatures.json"), json.dumps(signatures))  # last: all or none
        except OSError:  # LinkError included
            self.usable = False  # read-only checkout: the run still succeeds, uncached
        self._dirty = False

    def _flush_shared(self) -> None:
        try:
            for digest, data in self._shared_new.items():
                assert self._shared is not None  # filled only with a shared cache
                real_dirs(os.path.dirname(self._shared), os.path.basename(self._shared), digest[:2])
                write_output(self._shared_path(digest), _signed(data))
        except OSError:
            self._shared = None  # not writable here: the run goes on with the repository's own cache
        self._shared_new = {}


class EditsStore:
    """Each file's JSON fix edits (advisor.fix.edits), which cost a second analysis and a fix per finding: one
    entry per path, `<options-key>/edits.json`, its signature on its first line, read and written once a run.
    An entry counts only for the same `digest` (the file's content and what else decides its edits)."""

    def __init__(self, root: str, key: str) -> None:
        self.root, self.path = root, os.path.join(root, key, "edits.json")
        self.usable = not os.path.islink(root)
        data = _read_signed(self.path) if self.usable else None
        self._entries: dict[str, Any] = data if isinstance(data, dict) else {}
        self._dirty = False

    def get(self, path: str, digest: str) -> Any:
        entry = self._entries.get(os.path.abspath(path))
        return entry[1] if isinstance(entry, list) and len(entry) == 3 and entry[0] == digest else None

    def content_hash(self, path: str, st: os.stat_result) -> str | None:
        """The content hash recorded with the file's entry, where the file's size and mtime are unchanged: as the
        scan's own stat index, so that a warm run reads no unchanged file for its edits either."""
        entry = self._entries.get(os.path.abspath(path))
        seen = entry[2] if isinstance(entry, list) and len(entry) == 3 else None
        if isinstance(seen, list) and len(seen) == 3 and seen[:2] == [st.st_size, st.st_mtime_ns]:
            return seen[2] if isinstance(seen[2], str) else None
        return None

    def put(self, path: str, digest: str, data: Any, st: os.stat_result, content: str) -> None:
        self._entries[os.path.abspath(path)] = [digest, data, [st.st_size, st.st_mtime_ns, content]]
        self._dirty = True

    def flush(self) -> None:
        if not (self.usable and self._dirty):
            return
        try:
            real_dirs(self.root, os.path.basename(os.path.dirname(self.path)))
            write_output(self.path, _signed(self._entries))
        except OSError:
            self.usable = False  # read-only: the run still succeeds, uncached
        self._dirty = False


def clean(root: str) -> bool:
    if os.path.islink(root):  # a committed link: remove the link, never what it points at
        os.unlink(root)
        return True
    if os.path.isdir(root):
        import shutil  # lazy: ~4 ms (zlib, bz2, lzma) that only `advisor clean` needs

        shutil.rmtree(root)
        return True
    return False
