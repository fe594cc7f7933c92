"""The rules, grouped by family into subpackages, discovered by `advisor.analysis.registry` (no hand-kept list).

Module names starting with `_` hold shared helpers, not rules; they import
nothing from `advisor` except `advisor.rule`.
"""
