#!/usr/bin/env python3
"""The deprecation miner's command line, kept at its documented path: the code is the package tools/miner
(`python -m tools.miner ...` is the same command)."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tools.miner.cli import main

    raise SystemExit(main())
