"""Maintainer tools (not shipped with `advisor`): the deprecation miner (`tools.miner`), the coverage ledger."""
