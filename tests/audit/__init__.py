"""Tests of `audit`."""
