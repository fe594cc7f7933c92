"""Fixes: apply the rules' rewrites until nothing changes, and write files atomically (fix_project -> FixRun)."""
