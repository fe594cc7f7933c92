"""Tests of `rehearse`."""
