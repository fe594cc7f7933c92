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
from dataclasses import dataclass, field
from typing import Iterable

from advisor.core.config import DEVICES  # noqa: F401  (re-exported: the devices scoping knows)
from advisor.core.markers import find_markers
from advisor.analysis.registry import all_rules


# Files at the project root that say which wheel or image a project uses, read even
# when only a few files are scanned (a pre-commit run passes just the changed files).
PROJECT_FILES = (
    "requirements.txt", "requirements-dev.txt", "requirements-rocm.txt", "requirements_rocm.txt",
    "constraints.txt", "environment.yml", "pyproject.toml", "setup.py", "setup.cfg",
    "Dockerfile", "Dockerfile.rocm", "docker/Dockerfile", "docker/Dockerfile.rocm", ".env",
)


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

    `result` is an `advisor.run.engine.ScanResult` whose file results carry `markers`.
    """
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
