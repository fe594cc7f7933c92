"""Tests of `fix`."""
