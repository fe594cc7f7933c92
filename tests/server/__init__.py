"""Tests of `server`."""
