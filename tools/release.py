#!/usr/bin/env python3
"""The next-release command, kept short to type: `python tools/release.py 2.16.0 --wheel ...`; the code is
tools/miner/release.py (`python -m tools.miner.release ...` is the same command)."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tools.miner.release import main

    raise SystemExit(main())
