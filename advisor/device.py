"""Which device a file targets: ROCm markers, and the scoping step for device-specific rules.

A rule with `device = "rocm"` reports only in code that targets ROCm, so CUDA-only
users are not pestered. The decision is per file, with the project as fallback:
a file is ROCm code if it carries a marker itself, or if any scanned file (or a
project-level file such as a requirements list or Dockerfile) does. `--device`
(or `device = "..."` in config) overrides the detection.

Markers are found by one regex pass over the bytes the engine already reads;
they are plain data on each `FileResult`, so they are cached with it. The
scoping runs after the engine, on findings: nothing flows back into analysis.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Iterable

DEVICES = ("rocm", "cuda", "xpu", "cpu")

_MARKERS = re.compile(
    rb"torch\.version\.hip\b"
    rb"|\b(?:_?is_hip|_?is_rocm|IS_HIP|IS_ROCM|TEST_WITH_ROCM|skipIfRocm|is_hip_available)\b"  # helpers
    rb"|\b(?:HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|PYTORCH_HIP_ALLOC_CONF|PYTORCH_ROCM_ARCH|TORCH_ROCM_FA_PREFER_CK)\b"
    rb"|whl/(?:nightly/)?rocm\d|rocm\.nightlies\.amd\.com|repo\.radeon\.com"  # wheel indexes
    rb"|FROM\s+(?:--\S+\s+)?rocm/"  # Docker base images
    rb"|\bgfx(?:9[0-9a-f]{2}|1[0-2][0-9a-f]{2})\b"  # AMD GPU architectures
)
MAX_MARKERS_PER_FILE = 20

# Files at the project root that say which wheel or image a project uses, read even
# when only a few files are scanned (a pre-commit run passes just the changed files).
PROJECT_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-rocm.txt", "requirements_rocm.txt",
    "constraints.txt", "environment.yml", "pyproject.toml", "setup.py", "setup.cfg",
    "Dockerfile", "Dockerfile.rocm", "docker/Dockerfile", "docker/Dockerfile.rocm", ".env",
)


# Every marker contains one of these. `needle in data` runs at memory speed, while the full
# pattern over a whole file is ~50x slower: so the pattern only runs on lines holding a needle.
_NEEDLES = (b"hip", b"HIP", b"rocm", b"ROCM", b"Rocm", b"ROCR", b"gfx")


def find_markers(data: bytes) -> list[list]:
    """[[marker text, line], ...] for the ROCm markers in `data` (at most MAX_MARKERS_PER_FILE)."""
    out: list[list] = []
    needles = [n for n in _NEEDLES if n in data]
    if not needles:
        return out
    lines: set[int] = set()  # start offsets of lines that hold a needle
    for needle in needles:
        pos = data.find(needle)
        while pos != -1:
            lines.add(data.rfind(b"\n", 0, pos) + 1)
            pos = data.find(needle, pos + len(needle))
    seen: set[bytes] = set()
    for start in sorted(lines):
        end = data.find(b"\n", start)
        for m in _MARKERS.finditer(data, start, len(data) if end == -1 else end):
            text = m.group()
            if text in seen:  # the first place of each distinct marker is enough to explain the decision
                continue
            seen.add(text)
            out.append([text.decode("utf-8", "replace"), data.count(b"\n", 0, m.start()) + 1])
            if len(out) >= MAX_MARKERS_PER_FILE:
                return out
    return out


@dataclass
class DeviceContext:
    """What the run decided about devices, for outputs and the report."""

    override: str | None = None  # --device / config
    markers: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, marker)
    mentions: set[str] = field(default_factory=set)  # every marker text seen anywhere (e.g. PYTORCH_ROCM_ARCH)

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
        return f"ROCm markers seen: {shown}{more}; ROCm-specific rules are on."

    def to_json(self) -> dict:
        return {
            "rocm": self.project_is_rocm,
            "source": self.source,
            "markers": [{"path": p, "line": ln, "marker": m} for p, ln, m in self.markers],
        }


def project_markers(root: str, seen_paths: Iterable[str]) -> list[tuple[str, int, str]]:
    """Markers in the project-level files at `root` that the run did not scan itself."""
    seen = {os.path.abspath(p) for p in seen_paths}
    out = []
    for rel in PROJECT_FILES:
        path = os.path.join(root, rel)
        if os.path.abspath(path) in seen or not os.path.isfile(path):
            continue
        try:
            with open(path, "rb") as f:
                data = f.read(1 << 20)
        except OSError:
            continue
        shown = os.path.relpath(path) if not os.path.relpath(path).startswith("..") else path
        out.extend((os.path.normpath(shown), line, text) for text, line in find_markers(data))
    return out


def apply_scope(result, override: str | None, project_root: str | None = None, extra_markers=None) -> DeviceContext:
    """Drop device-scoped findings from files that do not target that device; say why.

    `result` is an `advisor.engine.ScanResult` whose file results carry `markers`.
    """
    from advisor.registry import all_rules

    device_of = {r.code: (r.device, r.unless_project_mentions) for r in all_rules()}

    ctx = DeviceContext(override=override)
    rocm_files = set()
    for r in result.results:
        for text, line in r.markers:
            ctx.markers.append((r.path, line, text))
            ctx.mentions.add(text)
        if r.markers:
            rocm_files.add(r.path)
    extra = list(extra_markers or [])
    if project_root is not None:
        extra += project_markers(project_root, (r.path for r in result.results))
    ctx.markers.extend(tuple(m) for m in extra)
    ctx.mentions.update(m for _, _, m in extra)
    ctx.markers.sort()

    project = bool(ctx.markers)
    for r in result.results:
        if not r.findings:
            continue
        is_rocm = override == "rocm" if override is not None else (r.path in rocm_files or project)
        kept = []
        for f in r.findings:
            device, unless = device_of[f.rule]
            if device == "rocm" and not is_rocm:
                continue
            if any(m in ctx.mentions for m in unless):
                continue
            kept.append(f)
        r.findings = kept
    return ctx
