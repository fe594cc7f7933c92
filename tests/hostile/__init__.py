"""Tests of `hostile`."""
