"""Tests of `analysis`."""
