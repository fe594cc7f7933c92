"""The upgrade report: Markdown and HTML from jinja2 templates, plus per-rule docs pages.

Findings are grouped by kind (breaking, deprecated, advice, compat: one count
each, used everywhere), each with its fix (safe, unsafe or none). Each finding links to its rule's docs and to the
validation script that checks it; `advisor validate` puts the results back in.
Scanned text (paths, messages, snippets) is data: HTML is autoescaped, and
Markdown escapes it (a file may be named `x'"<img src=x onerror=...>.py`).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections import Counter
from typing import Any

from advisor import __version__
from advisor.core.atomic import real_dir, real_dirs, write_output
from advisor.core.docs_url import parse_docs_url
from advisor.core.findings import Finding, fix_counts, kind_counts
from advisor.core.versions import NEWEST, OLDEST
from advisor.report.templating import environment, md_code, md_escape  # noqa: F401  (md_*: used by templates and tests)
from advisor.run.report_marker import REPORT_MARKER, file_digest, manifest_text, read_manifest
from advisor.analysis.registry import family_of, rule_by_code
from advisor.analysis.textfiles import is_text_file
from advisor.report.sources import collect as collect_sources, key as source_key
from advisor.report.rule_pages import page_context
from advisor.report.upgrade_path import hops
from advisor.report.validation import CHECKS, write_scripts


def family_title(code: str) -> str:
    """The title of the family rule `code` belongs to, as its `rules/<family>/__init__.py` declares it."""
    return family_of(code).title


# One section per kind, in the order to act on them; their counts are advisor.core.findings.kind_counts'.
SECTIONS = (
    ("breaking", "Breaking on the target", "Fails on the target torch: fix these first."),
    ("deprecated", "Deprecated on the target", "Warns on the target torch and breaks in a later release."),
    (
        "advice",
        "Advice",
        "Nothing fails or warns on the target: review it when convenient, and run the paired validation script.",
    ),
    ("compat", "Compat fallbacks", "Old API in code that runs only on old torch: correct as it is, never fixed."),
)
ROCM_CHECK = "rocm_runtime"

# What a ROCm project gets on upgrade with no code change (rocm-2.12-facts.md §4-§6): listed
# in every ROCm report, so a project with zero findings still learns what to re-measure.
ROCM_SILENT_CHANGES = (
    {
        "what": "FlexAttention forward defaults",
        "detail": "fp16/bf16 forward configs go from 1 to 2 pipeline stages on every ROCm GPU (tuned on MI350X only; 2.13 makes them per-architecture).",
        "measure": 'forward time and numerics with the default vs kernel_options={"num_stages": 1}',
    },
    {
        "what": "kpack defaults",
        "detail": "ROCm Inductor configs default to kpack=1 (was 2); FlexAttention uses 1 on gfx942 and 2 elsewhere; GEMM autotuning tries both.",
        "measure": "compiled GEMM / attention throughput; Triton kpack warnings on gfx950",
    },
    {
        "what": "AMD-SMI device index mapping",
        "detail": "torch.cuda.temperature/utilization/power_draw/clock_rate/memory_usage translate HIP indices to AMD-SMI indices.",
        "measure": "readings per GPU against the HIP-ID column of `amd-smi monitor`",
    },
    {
        "what": "C++/HIP extension architectures",
        "detail": "with PYTORCH_ROCM_ARCH unset, extensions build for the visible GPUs (none on a GPU-less build host) instead of torch's own arch list.",
        "measure": "what _get_rocm_arch_flags() returns in your build image",
    },
    {
        "what": "-std=c++20 for extensions",
        "detail": "extension compile flags moved from -std=c++17 to -std=c++20 on all platforms.",
        "measure": "a clean rebuild of every C++/HIP extension",
    },
)


PROJECT_FILES = ("pyproject.toml", "setup.cfg")  # the project's own declarations (Python floor, pins)


def is_project_level(f: Finding) -> bool:
    """A finding about the project as a whole: in its metadata, or its Python floor wherever declared (setup.py)."""
    return os.path.basename(f.path) in PROJECT_FILES or f.name == "python-floor"


def build_context(
    findings: list[Finding], errors: list[dict], meta: dict, results: dict | None, sources: dict | None = None
) -> dict:
    results, sources = results or {}, sources or {}
    device = meta.get("device") or {"rocm": False, "source": "not recorded", "markers": []}
    by_check = {c["name"]: c for c in results.get("checks", [])}
    listed_apart = {f.rule for f in findings if rule_by_code(f.rule).report_only}  # "could not be analysed"
    real = [f for f in findings if f.rule not in listed_apart]
    dynamic = [f for f in findings if f.rule in listed_apart]
    items: list[dict[str, Any]] = [
        {
            "f": f,
            "summary": rule_by_code(f.rule).summary(),
            "doc": f"rules/{f.rule}.md",  # report.md's link; report.html's opens the rendered page
            "page": f"rules/{f.rule}.html",
            "script": f"validation/{f.validation}.py" if f.validation else None,
            "result": by_check.get(f.validation) if f.validation else None,
            "text_file": is_text_file(f.path),
            "source": sources.get(source_key(f)),
        }
        for f in real
    ]
    checks = Counter(f.validation for f in real if f.validation)
    if device["rocm"]:
        checks.setdefault(ROCM_CHECK, 0)
    # The one count per kind, every file alike (as the CLI, JSON, SARIF and the audit count): cards, summary, titles.
    kinds = kind_counts(real)
    families = Counter(family_of(f.rule) for f in real)
    return {
        "version": __version__,
        "meta": meta,
        "sections": [
            {
                "key": key,
                "title": title,
                "intro": intro,
                "count": kinds[key],
                "entries": [i for i in items if i["f"].kind == key],
            }
            for key, title, intro in SECTIONS
        ],
        "total": len(real),
        "families": [
            (family.title, ", ".join(family.codes.patterns), n)
            for family, n in sorted(families.items(), key=lambda kv: kv[0].codes.patterns)
        ],
        "files": Counter(f.path for f in real).most_common(),
        "rule_counts": sorted(Counter((f.rule, f.name) for f in real).items()),  # the report's filter
        **{f"fixable_{kind}": n for kind, n in fix_counts(real).items()},
        "checks": [
            {"name": name, "count": n, "script": f"validation/{name}.py", "result": by_check.get(name)}
            for name, n in sorted(checks.items())
        ],
        "errors": errors,
        "dynamic": dynamic,
        "results": results,
        "rules": sorted({f.rule for f in findings}),
        "device": device,
        # By place, beside the kinds: what blocks the install first, then the shell, Docker and env files.
        "project_entries": [i for i in items if is_project_level(i["f"])],
        "text_entries": [i for i in items if i["text_file"] and not is_project_level(i["f"])],
        "silent_changes": ROCM_SILENT_CHANGES if device["rocm"] else (),
        "kinds": kinds,
        "lowest": meta.get("min_torch") or OLDEST,
        "hops": hops(real, meta.get("min_torch") or OLDEST, meta.get("target") or NEWEST),
    }


def utf8_path(path: str) -> str:
    """A file name that is not valid UTF-8 (its bytes kept as surrogates by Python) with those bytes as `\\xNN`.

    The report's files are UTF-8: a raw surrogate would fail the whole report (and, in `audit`, the repository).
    """
    try:
        return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:
        return path.encode("utf-8", "backslashreplace").decode("utf-8")


def _docs_url(template: Any) -> str | None:
    """The project's `docs-url`; one that is not an http(s) template with `{code}` (a hand-edited meta): the default."""
    try:
        return parse_docs_url(template)
    except ValueError:
        return None


def write_report(directory: str, findings: list[Finding], errors: list[dict], meta: dict) -> list[str]:
    """Write report.md, report.html, rule docs, validation scripts and findings.json, and their manifest.

    Nothing is written through a link (advisor.core.atomic); files an earlier report wrote and
    this one does not are removed, files advisor did not write never are.
    """
    from dataclasses import replace

    findings = [f if utf8_path(f.path) == f.path else replace(f, path=utf8_path(f.path)) for f in findings]
    errors = [{**e, "path": utf8_path(e["path"])} if isinstance(e.get("path"), str) else e for e in errors]
    real_dirs(directory)
    real_dir(os.path.join(directory, "rules"))
    earlier = read_manifest(directory)
    files: dict[str, str] = {}
    _write(
        directory,
        "findings.json",
        json.dumps(
            {
                "meta": meta,
                "findings": [x.to_dict() for x in findings],
                "errors": errors,
                "sources": collect_sources(findings, directory),
            },
            indent=1,
        ),
        files,
    )
    docs_url = _docs_url(meta.get("docs_url"))
    page = environment().get_template("rule.html.j2")
    for code in sorted({f.rule for f in findings}):
        rule = rule_by_code(code)
        _write(directory, f"rules/{code}.md", f"# {code} {rule.name}\n\n```text\n{rule.doc()}\n```\n", files)
        _write(directory, f"rules/{code}.html", page.render(**page_context(rule, docs_url)), files)
    checks = sorted(
        {f.validation for f in findings if f.validation}
        | ({ROCM_CHECK} if (meta.get("device") or {}).get("rocm") else set())
    )
    written = write_scripts(directory, findings, checks, files)
    _render(directory, files)
    if earlier is not None:
        _remove_stale(directory, earlier[0], files)
    write_output(os.path.join(directory, REPORT_MARKER), manifest_text(files, __version__))
    return written


# The only names a report ever writes: the only ones a later report may remove.
_OWN_NAME = re.compile(r"findings\.json|rehearse\.json|report\.(md|html)|rules/[A-Z]+[0-9]+\.(md|html)")
RUNTIME = "rehearse.json"  # what `advisor rehearse --report` saw: the report's "Seen at run time"
_OWN_SCRIPTS = {f"validation/{name}.py" for name in (*CHECKS, "run_all")}


def _write(directory: str, rel: str, text: str, files: dict[str, str]) -> None:
    write_output(os.path.join(directory, rel), text)
    files[rel] = hashlib.sha256(text.encode("utf-8")).hexdigest()


def _remove_stale(directory: str, earlier: dict[str, str], now: dict[str, str]) -> None:
    """Remove what the earlier report wrote and this one did not, if it is still as written."""
    for rel, digest in earlier.items():
        if rel in now or not (_OWN_NAME.fullmatch(rel) or rel in _OWN_SCRIPTS):
            continue
        path = os.path.join(directory, rel)
        if file_digest(path) == digest:  # a regular file with our bytes: never a link, never someone's edit
            os.unlink(path)


def report_problem(directory: str, device: str | None = None) -> str | None:
    """Why `advisor validate DIR` must not run anything there (checked before any script runs), or None."""
    rescan = f"run `advisor scan --report {directory}` again"
    if not os.path.isfile(os.path.join(directory, "findings.json")):
        return f"{directory} is not a report directory (no findings.json); {rescan}"
    if device not in (None, "cuda", "xpu", "cpu"):
        return f"unknown --device {device!r} (expected cuda, xpu or cpu)"
    try:  # rendering it afterwards must not fail once the scripts have run
        _load(directory)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        return f"{directory}/findings.json is not a report advisor wrote ({type(e).__name__}: {e}); {rescan}"
    if read_manifest(directory) is None:  # it lists the scripts advisor wrote: the only ones validate runs
        return f"{directory} has no manifest ({REPORT_MARKER}) of the scripts advisor wrote; {rescan}"
    return None


def load_findings(directory: str) -> tuple[list[Finding], list[dict], dict]:
    return _load(directory)[:3]


def _load(directory: str) -> tuple[list[Finding], list[dict], dict, dict]:
    with open(os.path.join(directory, "findings.json"), encoding="utf-8") as f:
        data = json.load(f)
    if not (isinstance(data, dict) and isinstance(data["findings"], list) and isinstance(data["errors"], list)):
        raise TypeError("findings.json holds no findings and errors lists")
    return [Finding(**x) for x in data["findings"]], data["errors"], data["meta"], data.get("sources") or {}


def render(directory: str) -> None:
    """(Re-)render report.md and report.html, with validation results if present."""
    found = read_manifest(directory)
    files = dict(found[0]) if found else {}
    _render(directory, files)
    # Re-signed only if this machine signed it: the signature vouches for every file it lists.
    write_output(
        os.path.join(directory, REPORT_MARKER), manifest_text(files, __version__, signed=bool(found and found[1]))
    )


def add_runtime(directory: str, document: dict) -> None:
    """`advisor rehearse --report DIR`: keep its records in the report (listed in the manifest) and re-render."""
    found = read_manifest(directory)
    files = dict(found[0]) if found else {}
    _write(directory, RUNTIME, json.dumps(document, indent=1), files)
    _render(directory, files)
    write_output(
        os.path.join(directory, REPORT_MARKER), manifest_text(files, __version__, signed=bool(found and found[1]))
    )


def _read_json(path: str) -> dict | None:
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _runtime_badges(ctx: dict) -> None:
    """Each finding `advisor rehearse` saw warn, or saw run in silence, says so in its entry."""
    runtime = ctx["runtime"] or {}
    seen = {
        (r.get("rule"), r["finding"]["path"], r["finding"]["line"])
        for r in runtime.get("records", [])
        if r.get("finding")
    }
    silent = {(s["rule"], s["path"], s["line"]) for s in runtime.get("silent", [])}
    for section in ctx["sections"]:
        for item in section["entries"]:
            key = (item["f"].rule, item["f"].path, item["f"].line)
            item["runtime"] = (
                "warned at run time" if key in seen else "reached at run time, silent" if key in silent else None
            )


def _render(directory: str, files: dict[str, str]) -> None:
    findings, errors, meta, sources = _load(directory)
    results = _read_json(os.path.join(directory, "validation-results.json"))
    ctx = build_context(findings, errors, meta, results, sources)
    ctx["runtime"] = _read_json(os.path.join(directory, RUNTIME)) if RUNTIME in files else None
    _runtime_badges(ctx)
    env = environment()
    for name in ("report.md", "report.html"):
        _write(directory, name, env.get_template(f"{name}.j2").render(**ctx), files)
