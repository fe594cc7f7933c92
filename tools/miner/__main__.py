"""`python -m tools.miner ...`: the miner's command line (tools/miner/cli.py)."""

from .cli import main

raise SystemExit(main())
