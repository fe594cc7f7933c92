"""The scripts under tools/ (not a package), loaded once by path for the tests that exercise them."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def load_tool(name: str):
    """tools/<name>.py as module `name`; one module object for every test (its classes compare equal)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # before exec: its dataclasses look their module up while being built
    spec.loader.exec_module(mod)
    return mod
