"""Tests of `miner`."""
