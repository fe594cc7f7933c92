"""Which device a file targets: ROCm markers, and the scoping step for device-specific rules.

A rule with `device = "rocm"` reports only in code that targets ROCm, so CUDA-only
users are not pestered. The decision is per directory: a marker scopes the
directory of the file it is in, and everything below it (one `torch.version.hip`
test deep in `pkg/ops/amd/` makes `pkg/ops/amd/` ROCm code, not its sibling
packages). A marker in a project-level file (PROJECT_FILES: the root requirements,
setup.py, Dockerfiles, ...) or in any file at the project root scopes the whole
project. Each ROCm finding names the marker that scoped it. `--device` (or
`device = "..."` in config) overrides the detection.

Markers are found by one regex pass over the bytes the engine already reads;
they are plain data on each `FileResult`, so they are cached with it. The
scoping runs after the engine, on findings: nothing flows back into analysis.
"""

from __future__ import annotations

import os
from dataclasses import replace  # of a Finding (a dataclass)
from typing import Iterable

from advisor.core.config import DEVICES  # noqa: F401  (re-exported: the devices scoping knows)
from advisor.core.markers import find_markers
from advisor.core.plain import Plain
from advisor.core.reading import read_bytes
from advisor.analysis.registry import entries


# Files at the project root that say which wheel or image a project uses, read even
# when only a few files are scanned (a pre-commit run passes just the changed files).
PROJECT_FILES = (
    "requirements.txt",
    "requirements-dev.txt",
    "requirements-rocm.txt",
    "requirements_rocm.txt",
    "constraints.txt",
    "environment.yml",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "Dockerfile",
    "Dockerfile.rocm",
    "docker/Dockerfile",
    "docker/Dockerfile.rocm",
    ".env",
)

_PROJECT_NAMES = (*{os.path.basename(rel) for rel in PROJECT_FILES}, os.sep, "/", ".")


class DeviceContext(Plain):
    """What the run decided about devices, for outputs and the report."""

    __slots__ = ("override", "markers", "mentions")
    override: str | None  # --device / config
    markers: list[tuple[str, int, str]]  # (path, line, marker)
    mentions: set[str]  # every marker text seen anywhere (e.g. PYTORCH_ROCM_ARCH)

    def __init__(
        self,
        override: str | None = None,
        markers: list[tuple[str, int, str]] | None = None,
        mentions: set[str] | None = None,
    ) -> None:
        self.override = override
        self.markers = [] if markers is None else markers
        self.mentions = set() if mentions is None else mentions

    @property
    def project_is_rocm(self) -> bool:
        if self.override is not None:
            return self.override == "rocm"
        return bool(self.markers)

    @property
    def source(self) -> str:
        if self.override is not None:
            return f"--device {self.override}"
        return "markers" if self.markers else "no ROCm markers"

    def summary(self) -> str:
        """One line for the text output."""
        if self.override is not None:
            return f"Device: {self.override} (--device); ROCm-specific rules {'on' if self.project_is_rocm else 'off'}."
        if not self.markers:
            return "No ROCm markers seen: ROCm-specific rules (ADV8xx) stay silent (use --device rocm to force them)."
        shown = ", ".join(f"{m} ({p}:{ln})" for p, ln, m in self.markers[:3])
        more = f" and {len(self.markers) - 3} more" if len(self.markers) > 3 else ""
        return f"ROCm markers seen: {shown}{more}; ROCm-specific rules are on below each marker's directory (everywhere for project files)."

    def to_json(self) -> dict:
        return {
            "rocm": self.project_is_rocm,
            "source": self.source,
            "markers": [{"path": p, "line": ln, "marker": m} for p, ln, m in self.markers],
        }


def project_markers(root: str, seen_paths: Iterable[str]) -> list[tuple[str, int, str]]:
    """Markers in the project-level files at `root` that the run did not scan itself."""
    # Only a path that ends in a project file's name can be one (or one whose last part `abspath` drops: a final
    # `/`, `.` or `..`): the others, most of a tree, need no `abspath`.
    seen = {os.path.abspath(p) for p in seen_paths if p.endswith(_PROJECT_NAMES)}
    out: list[tuple[str, int, str]] = []
    for rel in PROJECT_FILES:
        path = os.path.join(root, rel)
        if os.path.abspath(path) in seen or not os.path.isfile(path):
            continue
        try:
            data = read_bytes(path, 1 << 20, head=True)  # a regular file only: a FIFO must not block
        except OSError:
            continue
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
        out.extend((os.path.normpath(shown), line, text) for text, line in find_markers(data))
    return out


def _scopes(markers: list[tuple[str, int, str]], root: str) -> list[tuple[str, tuple[str, int, str]]]:
    """[(absolute directory a marker scopes, the marker)], whole-project markers first."""
    project_files = {os.path.normpath(p) for p in PROJECT_FILES}
    out = []
    for marker in markers:
        path = os.path.abspath(marker[0])
        rel = os.path.relpath(path, root)
        if rel.startswith(".."):  # outside the root (a path named on the command line): its own directory
            out.append((os.path.dirname(path), marker))
            continue
        whole = rel in project_files or os.path.dirname(rel) in ("", ".")
        out.append((root if whole else os.path.dirname(path), marker))
    return sorted(out, key=lambda s: len(s[0]))


def _scoping_marker(path: str, scopes: list[tuple[str, tuple[str, int, str]]]) -> tuple[str, int, str] | None:
    """The marker whose directory holds `path` (the widest scope first), or None."""
    path = os.path.abspath(path)
    for directory, marker in scopes:
        if path == directory or path.startswith(directory.rstrip(os.sep) + os.sep):
            return marker
    return None


def apply_scope(
    result, override: str | None, project_root: str | None = None, extra_markers=None, scope_root: str | None = None
) -> DeviceContext:
    """Drop device-scoped findings from files that do not target that device; say why.

    `result` is an `advisor.run.engine.ScanResult` whose file results carry `markers`.
    A kept ROCm finding's message ends with the marker that scoped it. `project_root`: where to read
    project-level markers (None when `extra_markers` already holds them, as in an audit's plan);
    `scope_root`: the root that markers scope from (default: `project_root`, else the current directory).
    """
    device_of = {r.code: (r.device, r.unless_project_mentions) for r in entries()}

    ctx = DeviceContext(override=override)
    for r in result.results:
        for text, line in r.markers:
            ctx.markers.append((r.path, line, text))
            ctx.mentions.add(text)
    extra = list(extra_markers or [])
    if project_root is not None:
        extra += project_markers(project_root, (r.path for r in result.results))
    ctx.markers.extend(tuple(m) for m in extra)
    ctx.mentions.update(m for _, _, m in extra)
    ctx.markers.sort()

    scopes = _scopes(ctx.markers, os.path.abspath(scope_root or project_root or os.curdir))
    for r in result.results:
        if not r.findings:
            continue
        marker = None if override is not None else _scoping_marker(r.path, scopes)
        is_rocm = override == "rocm" if override is not None else marker is not None
        kept = []
        for f in r.findings:
            device, unless = device_of[f.rule]
            if device == "rocm" and not is_rocm:
                continue
            if any(m in ctx.mentions for m in unless):
                continue
            if device == "rocm" and marker is not None:
                where = f"{marker[0]}:{marker[1]}"
                f = replace(
                    f,
                    message=f"{f.message} [ROCm code: marker `{marker[2]}` at {where}]",
                    data={**f.data, "rocm_marker": {"path": marker[0], "line": marker[1], "marker": marker[2]}},
                )
            kept.append(f)
        r.findings = kept
    return ctx
