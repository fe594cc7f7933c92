"""The rules: one per file, discovered by `advisor.registry` (no hand-kept list).

Module names starting with `_` hold shared helpers, not rules.
"""
