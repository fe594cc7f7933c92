"""The maintainer tools under tools/ (a package: `tools.miner`, `tools.miner.ledger`, ...), for the tests that
exercise them. Imported by name, so every test shares one module object (its classes compare equal)."""

from __future__ import annotations

import importlib


def load_tool(name: str):
    """`tools.<name>`: load_tool("miner"), load_tool("miner.ledger")."""
    return importlib.import_module(f"tools.{name}")
