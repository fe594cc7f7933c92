"""The upgrade report: Markdown and HTML from jinja2 templates, plus per-rule docs pages.

Findings are grouped by what the user must do: blockers, unsafe rewrites to
review, safe rewrites, advice. Each finding links to its rule's docs and to the
validation script that checks it; `advisor validate` puts the results back in.
Scanned text (paths, messages, snippets) is data: HTML is autoescaped, and
Markdown escapes it (a file may be named `x'"<img src=x onerror=...>.py`).
"""

from __future__ import annotations

import json
import os
from collections import Counter

from advisor import __version__
from advisor.core.findings import Finding, Kind, fix_counts, kind_counts
from advisor.report.templating import environment, md_code, md_escape  # noqa: F401  (md_*: used by templates and tests)
from advisor.run.discovery import REPORT_MARKER
from advisor.analysis.registry import rule_by_code
from advisor.analysis.textfiles import is_text_file
from advisor.report.upgrade_path import hops
from advisor.report.validation import write_scripts

FAMILIES = {
    "ADV1": "Superseded device-specific APIs",
    "ADV2": "Linear algebra: MAGMA and cuSOLVER",
    "ADV3": "Graph capture",
    "ADV4": "Export and serialization",
    "ADV5": "Compiled numerics",
    "ADV6": "Profiler",
    "ADV7": "Deprecation catalogue",
    "ADV8": "ROCm",
    "ADV9": "Limits of static analysis",
}
GROUPS = (
    ("blockers", "Errors and blockers", "Code that fails or misbehaves: fix these first."),
    ("unsafe", "Unsafe rewrites to review", "`advisor fix --unsafe-fixes` can rewrite these; review each, since behaviour may change."),
    ("safe", "Safe rewrites", "`advisor fix` rewrites these without changing behaviour on the target torch."),
    ("advice", "Advice", "No automatic fix: read the advice, then run the paired validation script."),
)
DYNAMIC_RULE = "ADV900"
ROCM_CHECK = "rocm_runtime"

# What a ROCm project gets on upgrade with no code change (rocm-2.12-facts.md §4-§6): listed
# in every ROCm report, so a project with zero findings still learns what to re-measure.
ROCM_SILENT_CHANGES = (
    {"what": "FlexAttention forward defaults",
     "detail": "fp16/bf16 forward configs go from 1 to 2 pipeline stages on every ROCm GPU (tuned on MI350X only; 2.13 makes them per-architecture).",
     "measure": "forward time and numerics with the default vs kernel_options={\"num_stages\": 1}"},
    {"what": "kpack defaults",
     "detail": "ROCm Inductor configs default to kpack=1 (was 2); FlexAttention uses 1 on gfx942 and 2 elsewhere; GEMM autotuning tries both.",
     "measure": "compiled GEMM / attention throughput; Triton kpack warnings on gfx950"},
    {"what": "AMD-SMI device index mapping",
     "detail": "torch.cuda.temperature/utilization/power_draw/clock_rate/memory_usage translate HIP indices to AMD-SMI indices.",
     "measure": "readings per GPU against the HIP-ID column of `amd-smi monitor`"},
    {"what": "C++/HIP extension architectures",
     "detail": "with PYTORCH_ROCM_ARCH unset, extensions build for the visible GPUs (none on a GPU-less build host) instead of torch's own arch list.",
     "measure": "what _get_rocm_arch_flags() returns in your build image"},
    {"what": "-std=c++20 for extensions",
     "detail": "extension compile flags moved from -std=c++17 to -std=c++20 on all platforms.",
     "measure": "a clean rebuild of every C++/HIP extension"},
)


def _group(f: Finding) -> str:
    if f.kind == Kind.BREAKING.value:
        return "blockers"
    return f.fix or "advice"  # "unsafe" or "safe"


def build_context(findings: list[Finding], errors: list[dict], meta: dict, results: dict | None) -> dict:


    results = results or {}
    device = meta.get("device") or {"rocm": False, "source": "not recorded", "markers": []}
    by_check = {c["name"]: c for c in results.get("checks", [])}
    real = [f for f in findings if f.rule != DYNAMIC_RULE]
    dynamic = [f for f in findings if f.rule == DYNAMIC_RULE]
    items = []
    for f in real:
        rule = rule_by_code(f.rule)
        items.append(
            {
                "f": f,
                "group": _group(f),
                "summary": rule.summary(),
                "doc": f"rules/{f.rule}.md",
                "script": f"validation/{f.validation}.py" if f.validation else None,
                "result": by_check.get(f.validation) if f.validation else None,
            }
        )
    checks = Counter(f.validation for f in real if f.validation)
    if device["rocm"]:
        checks.setdefault(ROCM_CHECK, 0)
    for i in items:
        i["text_file"] = is_text_file(i["f"].path)
    families = Counter(f.rule[:4] for f in real)
    return {
        "version": __version__,
        "meta": meta,
        "groups": [
            {"key": key, "title": title, "intro": intro, "entries": [i for i in items if i["group"] == key and not i["text_file"]]}
            for key, title, intro in GROUPS
        ],
        "total": len(real),
        "families": [(FAMILIES.get(k, k), k + "xx", n) for k, n in sorted(families.items())],
        "files": Counter(f.path for f in real).most_common(),
        **{f"fixable_{kind}": n for kind, n in fix_counts(real).items()},
        "manual": sum(1 for f in real if f.fix is None),
        "checks": [
            {"name": name, "count": n, "script": f"validation/{name}.py", "result": by_check.get(name)}
            for name, n in sorted(checks.items())
        ],
        "errors": errors,
        "dynamic": dynamic,
        "results": results,
        "rules": sorted({f.rule for f in findings}),
        "device": device,
        "text_entries": [i for i in items if i["text_file"]],
        "silent_changes": ROCM_SILENT_CHANGES if device["rocm"] else (),
        "kinds": kind_counts(real),
        "lowest": meta.get("min_torch") or "2.0",
        # Shell/Docker/env findings have their own section, after the Python ones.
        "hops": hops([i["f"] for i in items if not i["text_file"]], meta.get("min_torch") or "2.0", meta.get("target") or "2.15"),
    }


def printable(path: str) -> str:
    """A file name that is not valid UTF-8 (its bytes kept as surrogates by Python) with those bytes as `\\xNN`.

    The report's files are UTF-8: a raw surrogate would fail the whole report (and, in `audit`, the repository).
    """
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def write_report(directory: str, findings: list[Finding], errors: list[dict], meta: dict) -> list[str]:
    """Write report.md, report.html, rule docs, validation scripts and findings.json."""
    from dataclasses import replace

    findings = [f if printable(f.path) == f.path else replace(f, path=printable(f.path)) for f in findings]
    errors = [{**e, "path": printable(e["path"])} if isinstance(e.get("path"), str) else e for e in errors]


    os.makedirs(os.path.join(directory, "rules"), exist_ok=True)
    with open(os.path.join(directory, REPORT_MARKER), "w", encoding="utf-8") as f:
        f.write("Written by torch-upgrade-advisor: `advisor scan` skips this directory.\n")
    with open(os.path.join(directory, "findings.json"), "w", encoding="utf-8") as f:
        json.dump({"meta": meta, "findings": [x.to_dict() for x in findings], "errors": errors}, f, indent=1)
    for code in sorted({f.rule for f in findings}):
        rule = rule_by_code(code)
        with open(os.path.join(directory, "rules", f"{code}.md"), "w", encoding="utf-8") as f:
            f.write(f"# {code} {rule.name}\n\n```text\n{rule.doc()}\n```\n")
    checks = sorted({f.validation for f in findings if f.validation} | ({ROCM_CHECK} if (meta.get("device") or {}).get("rocm") else set()))
    written = write_scripts(directory, findings, checks)
    render(directory)
    return written


def load_findings(directory: str) -> tuple[list[Finding], list[dict], dict]:
    with open(os.path.join(directory, "findings.json"), encoding="utf-8") as f:
        data = json.load(f)
    return [Finding(**x) for x in data["findings"]], data["errors"], data["meta"]


def render(directory: str) -> None:
    """(Re-)render report.md and report.html, with validation results if present."""
    findings, errors, meta = load_findings(directory)
    results = None
    path = os.path.join(directory, "validation-results.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
    ctx = build_context(findings, errors, meta, results)
    env = environment()
    for name in ("report.md", "report.html"):
        text = env.get_template(f"{name}.j2").render(**ctx)
        with open(os.path.join(directory, name), "w", encoding="utf-8") as f:
            f.write(text)
