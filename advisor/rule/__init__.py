"""A rule's whole world: everything a rule in `rules/` may use, from one module.

Rules import nothing else from `advisor`. What is here:

- the bases: `Rule` (a rule with its own visit methods), `ReferenceRule` (flag
  references to a set of qualified names; calls and other references dispatched
  once each), `SymbolRule` (a table of `Symbol`s: renames and advice), and the
  table generator (`generate`: one `Row` of `Entry`s per generated rule; `calls`,
  and `SAFE`/`UNSAFE`/`NONE` for its fixes);
- what a rule declares and reports: `Example`, `Severity`, `Applicability`, `Kind`, `Window`, `Safety`,
  `Context`, `Report`, `CHECKS` (the validation check names);
- the name resolver's public lookup (`NameResolver`, `Scope`, `dotted_name`,
  `any_match`) and the helpers in `advisor.rule.helpers`;
- `cst`, libcst imported on first use, so that discovering rules stays cheap.
"""

from __future__ import annotations

from advisor.core.findings import Applicability, Kind, Safety, Severity, Window
from advisor.core.lazy import cst
from advisor.syntax.names import NameResolver, Scope, any_match, dotted_name
from advisor.rule.base import CHECKS, Context, Example, Report, Rule, parse_version
from advisor.rule.gates import (
    AFTER_OPERAND,
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAP,
    TEXT_GAPS,
    getattr_called,
    keyword_calls,
    two_deep,
)
from advisor.rule.helpers import (
    append_args,
    bool_value,
    calls_in,
    calls_to,
    callee_targets,
    explode_args,
    expr,
    get_arg,
    has_star_args,
    kwarg,
    literal_matrix_facts,
    longest_line,
    positional,
    prepend_args,
    rewrite_reference,
    simple_name,
    string_value,
    uses_magic_commas,
    with_comma,
)
from advisor.rule.reference import ReferenceRule, Symbol, SymbolRule
from advisor.rule.style import line_length
from advisor.rule.table import NONE, SAFE, UNSAFE, Entry, Row, calls, generate
from advisor.syntax.references import prefixes_of
from advisor.syntax.walk import nodes_of, walk

__all__ = [
    "CHECKS",
    "TEXT_GAP",
    "TEXT_GAPS",
    "CODE_ONLY",
    "ALSO_NEEDED",
    "AFTER_OPERAND",
    "getattr_called",
    "keyword_calls",
    "two_deep",
    "NONE",
    "SAFE",
    "UNSAFE",
    "Entry",
    "Row",
    "calls",
    "generate",
    "Applicability",
    "Context",
    "Example",
    "Kind",
    "NameResolver",
    "ReferenceRule",
    "Report",
    "Rule",
    "Scope",
    "Severity",
    "Symbol",
    "SymbolRule",
    "Window",
    "Safety",
    "any_match",
    "append_args",
    "bool_value",
    "calls_in",
    "calls_to",
    "callee_targets",
    "cst",
    "dotted_name",
    "explode_args",
    "expr",
    "get_arg",
    "has_star_args",
    "kwarg",
    "line_length",
    "literal_matrix_facts",
    "longest_line",
    "nodes_of",
    "prefixes_of",
    "walk",
    "parse_version",
    "positional",
    "prepend_args",
    "rewrite_reference",
    "simple_name",
    "string_value",
    "uses_magic_commas",
    "with_comma",
]
