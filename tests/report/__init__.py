"""Tests of `report`."""
