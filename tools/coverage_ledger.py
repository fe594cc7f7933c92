#!/usr/bin/env python3
"""The coverage ledger's command line, kept at its documented path: the code is tools/miner/ledger.py
(`python -m tools.miner.ledger ...` is the same command)."""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tools.miner.ledger import main

    raise SystemExit(main())
