"""The stable JSON format (documented in the README)."""

from __future__ import annotations

from collections import Counter
from typing import Any, TextIO

from advisor import __version__
from advisor.core.findings import ScanResult, fix_counts, kind_counts
from advisor.report.output.indented_json import dumps


def as_dict(
    result: ScanResult,
    target: str,
    target_source: str,
    device: Any = None,
    min_torch: str | None = None,
    min_torch_source: str | None = None,
) -> dict[str, Any]:
    findings = result.findings
    out = {
        "version": __version__,
        "target_version": target,
        "target_source": target_source,
        # The lowest supported torch decides fix safety: the bound and where it came from (pin, config, default).
        "min_torch": min_torch,
        "min_torch_source": min_torch_source,
        "findings": [f.to_json() for f in findings],
        "errors": [e.to_json() for e in result.errors],
        "summary": {
            "files": result.files_scanned,
            # Files that needed a parse, on this run or on the one cached: a warm run says what a cold one does.
            "files_parsed": result.files_needing_parse,
            "files_cached": result.files_cached,
            "findings": len(findings),
            "errors": len(result.errors),
            "suppressed": result.suppressed,
            "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
            "by_severity": dict(sorted(Counter(f.severity for f in findings).items())),
            "by_kind": kind_counts(findings),
            "fixable": fix_counts(findings),
        },
    }
    if device is not None:
        out["device"] = device.to_json()
    return out


def render(
    result: ScanResult,
    stream: TextIO,
    *,
    target: str,
    target_source: str,
    device: Any = None,
    min_torch: str | None = None,
    min_torch_source: str | None = None,
) -> None:
    stream.write(dumps(as_dict(result, target, target_source, device, min_torch, min_torch_source), indent=2))
    stream.write("\n")
