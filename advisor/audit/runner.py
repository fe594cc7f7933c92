"""The org-wide audit: many repositories, scanned locally or on a Dask cluster, into one dashboard.

A repository goes through three kinds of task, each plain data in and out, so
they run the same in a local process pool and on Dask workers:

    plan(repo)                 -> its config, target and file list (on a worker: it reads the checkout)
    scan_files(repo, chunk)    -> FileResults for one chunk of files (CHUNK_FILES at most), so a
                                  monorepo is spread over workers instead of serialising the run
    finish(repo, plan, chunks) -> device scoping, baseline, the repository's own report, a summary

Every repository of the manifest ends up in audit.json, failed ones with their
error. Timings and the executor live under "run", apart from the results, which
are identical whichever executor ran them.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections import Counter
from dataclasses import replace
from typing import Any, Callable

from advisor.core.atomic import real_dirs, write_output
from advisor.core.findings import Applicability, FileResult, Kind, ScanResult, fix_counts, kind_counts
from advisor.run.project import Discovered, Project, ProjectError, rule_by_code
from advisor.audit.executors import RETRIES, AuditError  # noqa: F401  (AuditError: part of this module's API)
from advisor.audit.manifest import Repo, read_manifest  # noqa: F401  (read_manifest: part of this module's API)
from advisor.report.render import family_title, write_report
from advisor.report.templating import environment

CHUNK_FILES = 400


# -- the tasks (run in worker processes: module-level functions, plain data) -----------


def _where() -> str:
    try:
        from distributed import get_worker

        return f"Dask worker {get_worker().address}"
    except (ImportError, ValueError):
        return f"host {os.uname().nodename}"


def _project(repo: dict, options: dict, found=None, chunk: int | None = None):
    no_cache = options.get("no_cache") or not os.access(repo["path"], os.W_OK)
    project = Project.load(
        [repo["path"]], found=found, target_version=options.get("target_version"), no_cache=bool(no_cache), jobs=1
    )
    if chunk is not None and project.cache_dir:
        # Chunks of one repository run at once: each keeps its own cache file (never below a linked cache folder).
        project.cache_dir = (
            None if os.path.islink(project.cache_dir) else os.path.join(project.cache_dir, f"audit-chunk-{chunk}")
        )
    return project


def shared_cache_dir(options: dict) -> str | None:
    """The results cache all the audit's repositories share: same content, same options, one analysis.

    options["shared_cache"] names it (None: none); by default it lives in the audit's output directory.
    """
    if options.get("no_cache"):
        return None
    if "shared_cache" in options:
        return options["shared_cache"]
    return os.path.join(options["out"], ".advisor_cache") if options.get("out") else None


def plan(repo: dict, options: dict) -> dict:
    """Config, target and files of one repository, as `advisor scan` would see them there."""

    if not os.path.isdir(repo["path"]):
        return {
            "error": f"{repo['path']} is not a directory where the audit ran (workers need the checkouts on a shared filesystem)",
            "failed_on": _where(),
        }
    try:
        project = _project(repo, options)
    except ProjectError as e:
        return {"error": str(e)}
    return {
        "files": sorted(project.files),
        "text_files": sorted(project.text_files),
        "discovery_errors": [list(e) for e in project.discovery_errors],
        "target": project.target,
        "target_source": project.target_source,
        "project_markers": [list(m) for m in project.markers()],
    }


def scan_files(repo: dict, options: dict, files: list[str], chunk: int, chunks: int) -> dict:
    """FileResults (as dicts) for one chunk of a repository's files."""
    project = _project(repo, options, Discovered(files=files), chunk=chunk if chunks > 1 else None)
    result = project.scan_raw(shared_cache_dir=shared_cache_dir(options) if project.cache_dir else None)
    return {
        "results": [{"path": r.path, **r.to_dict()} for r in result.results],
        "parsed": result.files_parsed,
        "cached": result.files_cached,
    }


def finish(repo: dict, options: dict, plan_data: dict, chunks: list[dict]) -> dict:
    """Scope, baseline, the repository's report, and its summary for the dashboard."""

    found = Discovered(
        files=plan_data["files"],
        text_files=plan_data["text_files"],
        errors=[tuple(e) for e in plan_data["discovery_errors"]],
    )
    project = _project(repo, options, found)
    text = project.scan_raw(python=False)  # the text files: a line scan each, here
    result = ScanResult(
        results=[FileResult.from_dict(d["path"], d) for c in chunks for d in c["results"]] + text.results,
        files_scanned=len(plan_data["files"]) + text.files_scanned,
        files_parsed=sum(c["parsed"] for c in chunks),
        files_cached=sum(c["cached"] for c in chunks) + text.files_cached,
    )
    result.results.sort(key=lambda r: r.path)
    project.shape(result, project_markers=[tuple(m) for m in plan_data["project_markers"]])
    root = repo["path"]
    findings = [replace(f, path=_rel(f.path, root)) for f in result.findings]
    errors = [{"path": _rel(e.path, root), "message": e.message} for e in result.errors]
    report = None
    if options.get("out"):
        rel = os.path.join("repos", _safe(repo["name"]))
        directory = os.path.join(options["out"], rel)
        meta = {
            "target": project.target,
            "target_source": project.target_source,
            "files": result.files_scanned,
            "report_dir": directory,
            "device": project.device_context.to_json(),
            "min_torch": project.lowest,
            "min_torch_source": project.lowest_source,
            "docs_url": project.settings.docs_url,
        }
        write_report(directory, findings, errors, meta)
        report = os.path.join(rel, "report.html")
    summary = summarise(
        repo, plan_data, result.files_scanned, findings, errors, project.device_context.project_is_rocm, report
    )
    summary["_cached"] = result.files_cached  # run statistics, not results: moved under "run"
    return summary


def _rel(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "repo"


# -- summaries -------------------------------------------------------------------------


def summarise(
    repo: dict, plan_data: dict, files: int, findings: list, errors: list, rocm: bool, report: str | None
) -> dict:
    by_rule = Counter(f.rule for f in findings)
    return {
        **repo,
        "status": "ok",
        "error": None,
        "target": plan_data["target"],
        "target_source": plan_data["target_source"],
        "torch_pin": _pin(plan_data["target_source"]),
        "files": files,
        "findings": len(findings),
        "blocking": sum(1 for f in findings if f.kind == Kind.BREAKING.value),
        "by_rule": dict(sorted(by_rule.items())),
        "by_family": dict(sorted(Counter(family_title(f.rule) for f in findings).items())),
        "by_severity": dict(sorted(Counter(f.severity for f in findings).items())),
        "by_kind": kind_counts(findings),
        "fixable": fix_counts(findings),
        "fixable_by_rule": dict(sorted(Counter(f.rule for f in findings if f.fix).items())),
        "safe_by_rule": dict(sorted(Counter(f.rule for f in findings if f.fix == Applicability.SAFE.value).items())),
        "errors": errors,
        "validation_checks": sorted(
            {f.validation for f in findings if f.validation} | ({"rocm_runtime"} if rocm else set())
        ),
        "rocm": rocm,
        "report": report,
    }


def failed(repo: dict, error: str) -> dict:
    # "failed_on" says which host or Dask worker saw the failure: the one field that depends on the executor.
    return {
        **repo,
        "status": "failed",
        "error": error,
        "failed_on": None,
        "target": None,
        "target_source": None,
        "torch_pin": None,
        "files": 0,
        "findings": 0,
        "blocking": 0,
        "by_rule": {},
        "by_family": {},
        "by_severity": {},
        "by_kind": {},
        "fixable": {"safe": 0, "unsafe": 0},
        "fixable_by_rule": {},
        "safe_by_rule": {},
        "errors": [],
        "validation_checks": [],
        "rocm": False,
        "report": None,
    }


def _pin(target_source: str | None) -> str | None:
    m = re.search(r"torch pin '([^']+)'", target_source or "")
    return m.group(1) if m else None


# -- the run -------------------------------------------------------------------------------


def run_audit(
    repos: list[Repo], executor, options: dict, progress: Callable[[int, int, str], None] | None = None
) -> dict:
    """Scan every repository; return the audit.json document (and write reports under options['out'])."""
    started = time.perf_counter()
    entries = [r.to_dict() for r in repos]
    summaries: dict[int, dict] = {}
    tasks: dict[Any, tuple] = {}  # future -> (kind, repo index, payload, attempt)
    plans: dict[int, dict] = {}
    chunk_results: dict[int, dict[int, dict]] = {}
    chunk_count: dict[int, int] = {}
    files_total = 0
    files_cached = 0

    def submit(kind, i, payload, attempt=0):
        repo = entries[i]
        if kind == "plan":
            fut = executor.submit(plan, repo, options)
        elif kind == "chunk":
            c, files = payload
            fut = executor.submit(scan_files, repo, options, files, c, chunk_count[i])
        else:
            fut = executor.submit(
                finish, repo, options, plans[i], [chunk_results[i][c] for c in sorted(chunk_results[i])]
            )
        tasks[fut] = (kind, i, payload, attempt)

    def done(i, summary):
        summaries[i] = summary
        if progress is not None:
            progress(len(summaries), len(entries), entries[i]["name"])

    for i in range(len(entries)):
        submit("plan", i, None)
    try:
        while tasks:
            for fut in executor.wait_any(list(tasks)):
                kind, i, payload, attempt = tasks.pop(fut)
                if i in summaries:
                    continue
                try:
                    value = fut.result()
                except Exception as e:  # noqa: BLE001 - a repository's failure is reported, never fatal
                    if executor.is_crash(e) and attempt < RETRIES:
                        submit(kind, i, payload, attempt + 1)
                    else:
                        done(i, failed(entries[i], f"{kind} failed: {type(e).__name__}: {e}"))
                    continue
                if kind == "plan":
                    if value.get("error"):
                        done(i, {**failed(entries[i], value["error"]), "failed_on": value.get("failed_on")})
                        continue
                    plans[i] = value
                    files = value["files"]
                    files_total += len(files) + len(value["text_files"])
                    size = options.get("chunk_files") or CHUNK_FILES
                    pieces = [files[k : k + size] for k in range(0, len(files), size)] or [[]]
                    chunk_count[i] = len(pieces)
                    chunk_results[i] = {}
                    for c, piece in enumerate(pieces):
                        submit("chunk", i, (c, piece))
                elif kind == "chunk":
                    chunk_results[i][payload[0]] = value
                    if len(chunk_results[i]) == chunk_count[i]:
                        submit("finish", i, None)
                else:
                    files_cached += value.pop("_cached", 0)
                    done(i, value)
    finally:
        executor.close()
    ordered = [summaries[i] for i in range(len(entries))]
    run = _run_figures(executor.description, time.perf_counter() - started, len(ordered), files_total, files_cached)
    return {"repositories": ordered, "totals": totals(ordered), "run": run}


def _run_figures(executor: str, seconds: float, repositories: int, files: int, cached: int) -> dict:
    """audit.json's "run": how it ran and how fast, kept apart from the results, which never depend on it."""
    return {
        "executor": executor,
        "seconds": round(seconds, 3),
        "repositories_per_second": round(repositories / seconds, 2) if seconds else None,
        "files_per_second": round(files / seconds, 1) if seconds else None,
        "files": files,
        "files_from_cache": cached,
    }


def totals(repos: list[dict]) -> dict:
    by_rule: Counter = Counter()
    fixable_by_rule: Counter = Counter()
    safe_by_rule: Counter = Counter()
    for r in repos:
        by_rule.update(r["by_rule"])
        fixable_by_rule.update(r["fixable_by_rule"])
        safe_by_rule.update(r.get("safe_by_rule", {}))
    findings = sum(r["findings"] for r in repos)
    safe = sum(r["fixable"]["safe"] for r in repos)
    unsafe = sum(r["fixable"]["unsafe"] for r in repos)
    return {
        "repositories": len(repos),
        "failed": sum(1 for r in repos if r["status"] == "failed"),
        "blocked": sum(1 for r in repos if r["blocking"]),
        "findings": findings,
        "blocking": sum(r["blocking"] for r in repos),
        "fixable": {"safe": safe, "unsafe": unsafe},
        "auto_fixable_share": round((safe + unsafe) / findings, 4) if findings else 0.0,  # safe and unsafe
        "safe_share": round(safe / findings, 4) if findings else 0.0,
        "by_rule": dict(sorted(by_rule.items())),
        "fixable_by_rule": dict(sorted(fixable_by_rule.items())),
        "safe_by_rule": dict(sorted(safe_by_rule.items())),
        "by_severity": dict(sorted(sum((Counter(r["by_severity"]) for r in repos), Counter()).items())),
    }


DASHBOARD = ("audit.json", "audit.md", "audit.html")


def start_outputs(out: str) -> None:
    """Before an audit: the last run's dashboard becomes `audit.previous.*`, so an audit that is interrupted
    leaves no dashboard that looks current, and temp files of a run that was killed (SIGKILL gives it no
    time to clean up) are removed. Links are renamed or removed as names, never followed."""
    real_dirs(out)
    for name in DASHBOARD:
        if os.path.lexists(path := os.path.join(out, name)):
            os.replace(path, os.path.join(out, name.replace("audit.", "audit.previous.", 1)))
    for folder, _dirs, files in os.walk(out):  # os.walk does not descend into linked folders
        for name in files:
            if name.startswith(".") and name.endswith(".advisor-tmp"):
                os.unlink(os.path.join(folder, name))


def write_dashboard(out: str, audit: dict) -> None:
    """audit.json, audit.md and audit.html in `out`."""
    real_dirs(out)
    write_output(os.path.join(out, "audit.json"), json.dumps(audit, indent=2))
    ranked = sorted(
        audit["repositories"], key=lambda r: (r["status"] != "failed", -r["blocking"], -r["findings"], r["name"])
    )
    top = max(audit["totals"]["by_rule"].values(), default=0)
    rules = [
        # Bar widths in % of the track: safe, unsafe and no-fix parts side by side.
        {
            "code": code,
            "name": rule_by_code(code).name,
            "count": n,
            "bar": round(100 * n / top, 1) if top else 0,
            "fixable": audit["totals"]["fixable_by_rule"].get(code, 0),
            "safe": audit["totals"]["safe_by_rule"].get(code, 0),
            "repos": sum(1 for r in audit["repositories"] if code in r["by_rule"]),
        }
        for code, n in sorted(audit["totals"]["by_rule"].items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    ctx = {"audit": audit, "ranked": ranked, "rules": rules, "totals": audit["totals"], "run": audit["run"]}
    env = environment()
    for name in ("audit.md", "audit.html"):
        write_output(os.path.join(out, name), env.get_template(f"{name}.j2").render(**ctx))
