"""Tests of `run`."""
