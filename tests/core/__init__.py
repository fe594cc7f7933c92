"""Tests of `core`."""
