"""A report made a finding: its kind, severity, fix and message decided by the policy (advisor.core.policy), its
position and snippet read off the tree, and its suppression applied. The analysis (advisor.analysis.analyse, where a
finding is born) calls `place` once per tree it checked, whole file or slice.
"""

from __future__ import annotations

import re
from typing import Any

from advisor.analysis.fix_text import fix_text
from advisor.analysis.positions import compute_positions
from advisor.analysis.suppressions import Suppressions
from advisor.core import policy
from advisor.core.findings import Applicability, FileResult, Finding
from advisor.core.policy import Decision
from advisor.rule import Context, Report, Rule


def _with_fix_range(rep: Report, positions: dict[int, tuple[int, int, int, int]]) -> dict:
    """The report's data, plus the 1-based range its replacement covers (for SARIF fixes)."""
    data = dict(rep.data or {})
    if rep.replacement is not None:
        sl, sc, el, ec = positions[id(rep.target_node)]
        data["fix_range"] = [sl, sc + 1, el, ec + 1]
    return data


def decide(rule: type[Rule], rep: Report, target: Any, lowest: Any) -> Decision | None:
    """Kind, severity, fix applicability and message, decided once (advisor.core.policy), before the `Finding` exists.

    None: the report does not apply to this target (replacement too new, not yet
    deprecated, un-deprecated). The fixer reads the result from the finding (`Finding.fix`), never from the report.
    """
    window = policy.torch_window(rep.window or rule.window(), rule.library)
    return policy.decide(
        window,
        rep.kind or rule.kind,
        rule.severity,
        rep.applicability,
        rep.message,
        target,
        lowest,
        rep.compat_until,
        rep.compat,
        rep.safety or rule.safety,
    )


def shaped(
    rule: type[Rule],
    rep: Report,
    decision: Decision,
    path: str,
    span: tuple[int, int, int, int],
    snippet: str,
    replacement: str | None,
    positions: Any,
) -> Finding:
    """The finding of `rep` as the policy decided it: `span` its node's (line, column, end line, end column), columns
    0-based; `snippet` the node's code; `replacement` the fixed node's code where a fix is offered; `positions` maps
    id(node) to spans, for the fix's range. The one place a finding takes its shape, from LibCST's tree
    (`place`) or from `ast`'s (advisor.analysis.ast_reports)."""
    start_line, start_col, end_line, end_col = span
    applicability, message = decision.applicability, decision.message
    return Finding(
        rule=rule.code,
        name=rule.name,
        severity=decision.severity.value,
        path=path,
        line=start_line,
        column=start_col + 1,
        end_line=end_line,
        end_column=end_col + 1,
        message=message,
        fix=None if applicability is Applicability.NONE else applicability.value,
        validation=rule.validation,
        replacement=replacement,
        snippet=re.sub(r"\s+", " ", snippet).strip()[:200],
        data=_with_fix_range(rep, positions) | ({"compat_until": rep.compat_until} if rep.compat else {}),
        kind=decision.kind.value,
        warns_from=decision.warns_from,
        breaks_in=decision.breaks_in,
    )


def place(
    ctx: Context,
    result: FileResult,
    suppressions: Suppressions,
    analysed: Any = None,  # advisor.analysis.analyse.Analysed, which the fixer reads
    positions: Any = None,
) -> None:
    """Positions, suppressions and Finding objects for the context's reports (kept in `analysed` for the fixer)."""
    module, path = ctx.module, ctx.path
    if not ctx.reports:
        return
    if positions is None:
        positions = compute_positions(module)  # id(node) -> (line, col, end line, end col), columns 0-based
    seen: set[tuple[str, int, int]] = set()
    for rep in ctx.reports:
        start_line, start_col, end_line, end_col = positions[id(rep.node)]
        rule = type(rep.rule)
        key = (rule.code, start_line, start_col)
        if key in seen:  # two visit paths reported the same node
            continue
        seen.add(key)
        if suppressions.is_suppressed(rule.code, start_line, end_line):
            result.suppressed += 1
            continue
        decision = decide(rule, rep, ctx.target, ctx.lowest)
        if decision is None:
            continue
        replacement = None
        if rep.replacement is not None and decision.applicability is not Applicability.NONE:
            replacement = fix_text(module, rep.replacement)
        snippet = module.code_for_node(rep.node)
        finding = shaped(rule, rep, decision, path, positions[id(rep.node)], snippet, replacement, positions)
        result.findings.append(finding)
        if analysed is not None:
            analysed.items.append((rep, finding))
