"""What every part of the miner shares: the miner's version, the distributions' packages, names."""

from __future__ import annotations

import re

MINER_VERSION = "16"  # 16: full messages (rest2) + re-exports, category=None, f-string fields (claims2); bump when the per-file analysis changes (invalidates the cache)

TOP_PACKAGES = {
    "torch": ("torch", "functorch"),
    "torchvision": ("torchvision",),
    "torchaudio": ("torchaudio", "torio"),
}


# Type stubs of the C extension: the only static record of names bound in C++
# (`torch.cholesky`, `Tensor.qr`). stub path -> (public name prefix, class holding the names or None)
STUBS = {
    "torch/_C/_VariableFunctions.pyi": ("torch", None),
    "torch/_C/__init__.pyi": ("torch.Tensor", ("TensorBase", "_TensorBase")),
}


EXCLUDED_DIRS = {"test", "tests", "benchmarks", "third_party", "_vendor", "_vendored"}


def _parse_version(v: str) -> tuple:
    v = v.split("+", 1)[0]
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"[.]", v))


def module_name(rel: str) -> str:
    parts = rel[: -4 if rel.endswith(".pyi") else -3].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_excluded_path(rel: str) -> bool:
    return any(part in EXCLUDED_DIRS for part in rel.split("/")[:-1])


def is_private(dotted: str) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in dotted.split("."))


def whole(msg: str) -> str:
    """A message on one line, whole (the index and the mined catalogue quote it in full)."""
    return " ".join(msg.split())


def is_shim(analysis: dict) -> bool:
    """A module that defines nothing public and imports names: it exists to re-export them
    (`torch/quantization/quantize.py`, `torch/_opaque_base.py`: `from ... import CustomClassBase as OpaqueBase`)."""
    return bool(analysis["imported"]) and not analysis["public_defs"] and analysis["all"] is None


def fragment(msg: str, limit: int = 160) -> str:
    msg = whole(msg)
    return msg if len(msg) <= limit else msg[: limit - 1] + "…"
