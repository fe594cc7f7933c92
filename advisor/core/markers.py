"""ROCm markers: the strings that say a file (or a project) targets AMD GPUs.

One regex pass over bytes the engine already holds; the result is plain data on
each `FileResult`, cached with it. `advisor.run.device` decides what they mean.
"""

from __future__ import annotations

import re
from functools import lru_cache

_MARKERS = (  # compiled on first use (_pattern): most files hold no needle, and a clean-file run never needs it
    rb"torch\.version\.hip\b"
    rb"|\b(?:_?is_hip|_?is_rocm|IS_HIP|IS_ROCM|TEST_WITH_ROCM|skipIfRocm|is_hip_available)\b"  # helpers
    rb"|\b(?:HIP_VISIBLE_DEVICES|ROCR_VISIBLE_DEVICES|PYTORCH_HIP_ALLOC_CONF|PYTORCH_ROCM_ARCH|TORCH_ROCM_FA_PREFER_CK)\b"
    rb"|whl/(?:nightly/)?rocm\d|rocm\.nightlies\.amd\.com|repo\.radeon\.com"  # wheel indexes
    rb"|FROM\s+(?:--\S+\s+)?rocm/"  # Docker base images
    rb"|\bgfx(?:9[0-9a-f]{2}|1[0-2][0-9a-f]{2})\b"  # AMD GPU architectures
)
MAX_MARKERS_PER_FILE = 20


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[bytes]:
    return re.compile(_MARKERS)


# Every marker contains one of these. `needle in data` runs at memory speed, while the full
# pattern over a whole file is ~50x slower: so the pattern only runs on lines holding a needle.
_NEEDLES = (b"hip", b"HIP", b"rocm", b"ROCM", b"Rocm", b"ROCR", b"gfx")
_LOWERED = (b"hip", b"rocm", b"rocr", b"gfx")


def _holds_needle(data: bytes, start: int) -> bool:
    end = data.find(b"\n", start)
    line = data[start : len(data) if end == -1 else end]
    return any(n in line for n in _NEEDLES)


def find_markers(data: bytes) -> list[list]:
    """[[marker text, line], ...] for the ROCm markers in `data` (at most MAX_MARKERS_PER_FILE)."""
    out: list[list] = []
    # In the lowered text, four searches instead of seven (most files hold none: each search reads all of it); a
    # line found there counts where it holds one of the needles as they are spelt.
    lowered = data.lower()
    needles = [n for n in _LOWERED if n in lowered]
    if not needles:
        return out
    lines: set[int] = set()  # start offsets of lines that hold a needle
    for needle in needles:
        pos = lowered.find(needle)
        while pos != -1:
            lines.add(data.rfind(b"\n", 0, pos) + 1)
            pos = lowered.find(needle, pos + len(needle))
    lines = {start for start in lines if _holds_needle(data, start)}
    seen: set[bytes] = set()
    for start in sorted(lines):
        end = data.find(b"\n", start)
        for m in _pattern().finditer(data, start, len(data) if end == -1 else end):
            text = m.group()
            if text in seen:  # the first place of each distinct marker is enough to explain the decision
                continue
            seen.add(text)
            out.append([text.decode("utf-8", "replace"), data.count(b"\n", 0, m.start()) + 1])
            if len(out) >= MAX_MARKERS_PER_FILE:
                return out
    return out
