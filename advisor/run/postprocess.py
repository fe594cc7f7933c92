"""The one step between the engine and every consumer: raw findings in, the run's findings out.

`engine.scan` returns what each file's rules reported (suppressions and fix
applicability already decided at analysis). Everything that depends on the
project as a whole, not on one file's content, happens here and only here, in
this order:

1. device scoping: device-specific rules (ADV8xx) report only in code that targets that device;
2. discovery errors become file errors, so they reach the outputs and the exit status;
3. deprecations said once: the sites in tests of a rule with `said_once_in_tests` become one
   project-level finding, its import-time sites in library code rank first (advisor.run.tests_summary);
4. the baseline drops the findings it records;
5. report-only rules (ADV900) leave the listing unless the user selected them.

A new project-wide step (a release window, a finding kind) is one more
function called from `shape`. Per-file-ignores are not a step: they choose a
file's rules before analysis, so an ignored rule never costs a parse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from advisor.run import tests_summary
from advisor.run.baseline import apply_baseline, find_baseline
from advisor.run.device import DeviceContext, apply_scope
from advisor.core.findings import ScanResult
from advisor.core.selector import Selector
from advisor.analysis.registry import entries
from advisor.core.findings import FileError, FileResult
from advisor.core.plain import Plain

if TYPE_CHECKING:
    from advisor.analysis.rule_index import AnyRule  # a rule's class, or its index entry


class PostprocessError(ValueError):
    """A project-level input (the baseline) cannot be used; the message is for the user."""


class Shaping(Plain):
    """What `shape` needs to know about the project."""

    __slots__ = ("project_root", "device", "baseline", "discovery_errors", "project_markers", "listed", "baseline_hid")
    project_root: str
    device: str | None  # --device / config: overrides the ROCm markers
    baseline: str | None  # None: advisor-baseline.json at the project root, if present; "": none (--no-baseline)
    discovery_errors: Sequence[tuple[str, str]]
    project_markers: list | None  # known already (an audit's plan); None: read at the project root
    listed: frozenset[str]  # report-only codes the user selected
    baseline_hid: tuple[str, int] | None  # set by `shape`: the baseline applied, and how many it dropped

    def __init__(
        self,
        project_root: str,
        device: str | None = None,
        baseline: str | None = None,
        discovery_errors: Sequence[tuple[str, str]] = (),
        project_markers: list | None = None,
        listed: frozenset[str] = frozenset(),
        baseline_hid: tuple[str, int] | None = None,
    ) -> None:
        self.project_root, self.device, self.baseline = project_root, device, baseline
        self.discovery_errors, self.project_markers, self.listed = discovery_errors, project_markers, listed
        self.baseline_hid = baseline_hid


def report_rules(rules: Sequence[AnyRule], ignored: Sequence[str], by_code) -> tuple[list[AnyRule], frozenset[str]]:
    """The rules a `--report` run needs (report-only ones added unless ignored), and the report-only codes selected."""
    codes, report_only = {r.code for r in rules}, report_only_codes()
    listed = frozenset(report_only & codes)
    off = Selector.of(ignored)
    extra = [by_code(c) for c in sorted(report_only - codes) if not off.matches(c)]
    return [*rules, *extra], listed


def shape(result: ScanResult, how: Shaping) -> DeviceContext:
    """Shape `result` in place (steps 1-4); return what device scoping decided."""
    root = None if how.project_markers is not None else how.project_root
    context = apply_scope(result, how.device, root, extra_markers=how.project_markers, scope_root=how.project_root)
    for unread, reason in how.discovery_errors:
        result.results.append(FileResult(unread, errors=[FileError(unread, reason)]))
    tests_summary.fold(result, how.project_root)
    path = how.baseline if how.baseline is not None else find_baseline(how.project_root)
    if path:
        try:
            how.baseline_hid = (path, apply_baseline(result, path, how.project_root))
        except ValueError as e:
            raise PostprocessError(str(e)) from None
    return context


def report_only_codes() -> frozenset[str]:
    """The codes of the rules whose findings the report lists apart (`Rule.report_only`)."""
    return frozenset(r.code for r in entries() if r.report_only)


def drop_report_only(result: ScanResult, listed: frozenset[str]) -> None:
    """Step 5, after the report took its share: report-only findings stay only where selected."""
    report_only = report_only_codes()
    for r in result.results:
        r.findings = [f for f in r.findings if f.rule not in report_only or f.rule in listed]
