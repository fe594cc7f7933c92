"""Tests of `rules`."""
