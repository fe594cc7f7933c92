"""The run: read each file once, prefilter, analyse candidates (in parallel), cache.

Data flows one way: paths in, `FileResult`s out, sorted by path whatever the
scheduling. The engine never prints and knows nothing of the CLI.
"""

from __future__ import annotations

import gc
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterator, Sequence

from advisor.core.findings import FileError, FileResult, ScanResult  # noqa: F401  (ScanResult: what scan returns)
from advisor.core.plain import Plain
from advisor.core.settings import Settings
from advisor.core.lazy import cst, reraise_interrupt
from advisor.core.markers import find_markers
from advisor.run.loading import cache_salt, load, open_cache
from advisor.analysis.prefilter import Prefilter
from advisor.analysis.registry import all_rules, rule_by_code
from advisor.analysis.textfiles import scan_text

if TYPE_CHECKING:
    from advisor.core.jobs import FileJob
    from advisor.analysis.rule_index import AnyRule  # a rule's class, or its index entry

# advisor.run.workers (and with it multiprocessing, ~10% of a one-file scan's imports) is
# imported only when a pool starts: a small tree is analysed here, in this process.
ISOLATED_TIMEOUT = 300  # = advisor.run.workers.ISOLATED_TIMEOUT (tests/run/test_pool_threshold.py checks)

# Candidate bytes below which the analysis stays in this process. Measured (2-CPU machine):
# a worker pays ~0.2-0.3 CPU-s importing LibCST and the rules, and the analysis costs
# 0.6-1.7 CPU-s per MB of candidate files, so two workers save wall time only from about
# half a megabyte of candidates on. Bytes, not files: a dozen small files is no work at all.
# ADVISOR_POOL_MIN_BYTES overrides it (tests of the pool with tiny files; benchmarks).
POOL_MIN_BYTES = 512 * 1024
# A candidate this large is analysed in a fresh process, whose memory is capped (advisor.run.workers),
# when no pool runs (a pool's workers are capped too; in a pool, only one that cannot be sliced, `_analysed`),
# and so is an editor's or stdin's buffer: the parser
# costs ~1.1 GiB per MB (advisor.analysis.analyse.MAX_CST_BYTES), twice that on one long line, so a file this
# size stays under ~0.6 GB in this process, and a bigger one costs only itself when it needs more than the
# cap. ADVISOR_ISOLATE_MIN_BYTES overrides it (tests).
ISOLATE_MIN_BYTES = 256 * 1024
# A pooled big file's answer where it must be parsed whole (advisor.analysis.analyse.ParseAlone): parsed alone.
_ALONE = {"alone": True}
# Errors that are not a fact about the file's content (crashes, time-outs, the size limit,
# which ADVISOR_MAX_FILE_MB changes) are not cached; a syntax error is.
_TRANSIENT = (
    "internal error",
    "the parser crashed",
    "analysis timed out",
    "code too deeply nested to analyse",
    "file is ",
    "its analysis needs more than",
)


class ScanOptions(Plain):
    __slots__ = ("rules", "settings", "cache_dir", "shared_cache_dir", "jobs", "progress", "edits", "_prefilter")
    rules: Sequence[AnyRule]
    settings: Settings  # the run's (per-file-ignores, the torch versions): every job carries them
    cache_dir: str | None  # None: no cache
    shared_cache_dir: str | None  # results shared with other repositories (advisor.run.cache); needs cache_dir
    jobs: int | None  # None: one per CPU
    progress: Callable[[int, int], None] | None  # (files analysed, files to analyse)
    edits: bool  # the JSON report's fix edits are made by the workers (`FileJob.edits`)
    _prefilter: Prefilter | None  # built on first use

    def __init__(
        self,
        rules: Sequence[AnyRule],
        settings: Settings,
        cache_dir: str | None = None,
        shared_cache_dir: str | None = None,
        jobs: int | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        self.rules, self.settings, self.cache_dir, self.shared_cache_dir = rules, settings, cache_dir, shared_cache_dir
        self.jobs, self.progress, self._prefilter = jobs, progress, None
        self.edits = False

    def rules_for(self, path: str, rules: Sequence[AnyRule] | None = None) -> list[AnyRule]:
        """`rules` (default: all of them) less those `per-file-ignores` switches off for `path`."""
        rules = self.rules if rules is None else rules
        off = self.settings.ignored_for(path)
        return [r for r in rules if not off.matches(r.code)] if off else list(rules)

    def candidates(self, path: str, data: bytes) -> tuple[str, ...]:
        """Codes of the rules that can match `data`, less those `per-file-ignores` switches off for `path`.

        Scan and fix both choose a file's rules here.
        """
        if self._prefilter is None:
            self._prefilter = Prefilter(self.rules)
        from advisor.analysis.lazy_helpers import importing_calls

        # The text gate reads Python: a notebook's cells are strings of its JSON until it is read as one.
        gate = None if path.endswith(".ipynb") else importing_calls(path)
        return tuple(r.code for r in self.rules_for(path, self._prefilter.candidates(data, gate)))

    def job(self, path: str, data: bytes) -> FileJob | None:
        """The job for one file, or None when no rule can match it."""
        codes = self.candidates(path, data)
        if not codes:
            return None
        from advisor.core.jobs import FileJob  # lazy: a run where no file needs analysing never makes one

        return FileJob(path, data, codes, self.settings, self.edits)


def _analyse_job(job: FileJob, incremental: bool = False) -> dict:
    """Worker entry point: plain data in, plain data out. `incremental`: an editor's buffer, analysed again only
    where the edit since its last analysis requires (advisor.analysis.incremental)."""
    from advisor.analysis.analyse import ParseAlone  # lazy, as `_scanned`'s analysis

    path = job.path
    rules = [rule_by_code(c) for c in job.codes]
    made = None  # the JSON fix edits, where the job asks for them (`_scanned`)
    # A LibCST parse allocates millions of small objects, and the collector's passes over them
    # cost ~25% of the analysis. Trees hold few cycles: collect once, while it is all still young.
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        # [0]: the tree (the second item) must be garbage when the young collection below runs; held
        # in a local it would survive into an older generation, which a long-lived process (the
        # language server, a worker's thousandth file) then never collects.
        if incremental:
            from advisor.analysis.incremental import analyse_edit

            result = analyse_edit(job.data, path, rules, job.settings)
        else:
            result, made = _scanned(job, rules)
    except ParseAlone:
        return dict(_ALONE)
    except RecursionError:
        result = FileResult(path, errors=[FileError(path, "code too deeply nested to analyse")])
    except MemoryError:
        result = FileResult(path, errors=[FileError(path, out_of_memory(len(job.data)))])
    except Exception as e:  # a bug in a rule must not end the run: report it as this file's error
        reraise_interrupt(e)  # a Ctrl-C, not a bug: the run ends
        result = FileResult(
            path,
            errors=[FileError(path, f"internal error while analysing ({type(e).__name__}: {e}); please report it")],
        )
    finally:
        gc.collect(0)
        if gc_enabled:
            gc.enable()
    answer = result.to_dict()
    if made is not None:
        answer["edits"] = made  # `FileResult.edits`, which its `to_dict` (the cache's entry) leaves out
    return answer


def _scanned(job: FileJob, rules: list) -> tuple[FileResult, list | None]:
    """The scan's analysis of `job`, and, where the job asks, the JSON fix edits from that analysis (else None)."""
    # Lazy: the main process, which only reads and prefilters, never loads the analysis (and LibCST) itself.
    from advisor.analysis.analyse import analyse

    found = None
    if job.edits and job.path.endswith(".py"):
        from advisor.fix.file_edits import ScanEdits

        found = ScanEdits(job.path, job.data, job.settings)
    on_fixes = found.add if found is not None else None
    args = (job.data, job.path, rules, job.settings)
    result, analysed = analyse(*args, sliced=True, on_fixes=on_fixes, whole=not job.pooled)
    if found is None:
        return result, None
    if analysed is not None:
        found.add(analysed)
    return result, found.answer


def scan(paths: Sequence[str], options: ScanOptions, text_paths: Sequence[str] = ()) -> ScanResult:
    """`paths`: Python files and notebooks; `text_paths`: Dockerfiles, shell scripts, .env (advisor.analysis.textfiles)."""
    versions = options.settings.versions
    cache = open_cache(options)
    out = ScanResult(files_scanned=len(paths) + len(text_paths))
    done: dict[str, FileResult] = {}
    jobs: list[FileJob] = []
    digests: dict[str, str] = {}
    markers: dict[str, list] = {}
    workers = options.jobs or os.cpu_count() or 1

    def new_pool():
        import multiprocessing

        from advisor.run.workers import start_pool

        if multiprocessing.get_start_method() == "fork":
            _warm_worker()  # here, once: forked workers inherit LibCST and the rules instead of importing them each
        return start_pool(workers, _warm_worker)

    pool = None
    pending = 0  # bytes of candidate files so far
    pool_min = int(os.environ.get("ADVISOR_POOL_MIN_BYTES", POOL_MIN_BYTES))
    for path in text_paths:  # a line scan, cheaper than sending the file to a worker
        known, data, digest = load(path, cache, text=True, salt=cache_salt(path, options))
        if known is not None:
            done[path] = known
            out.files_cached += bool(digest)
            continue
        done[path] = scan_text(path, data, options.rules_for(path), versions.target_tuple, versions.lowest_tuple)
        if cache is not None:
            cache.put(digest, done[path].to_dict())
    for path in paths:
        known, data, digest = load(path, cache, text=False, salt=cache_salt(path, options))
        if known is not None:
            done[path] = known
            out.files_cached += bool(digest)
            continue
        digests[path] = digest
        markers[path] = find_markers(data)
        job = options.job(path, data)
        if job is None:
            done[path] = FileResult(path, markers=markers[path])
            if cache is not None:
                cache.put(digest, done[path].to_dict())
            continue
        jobs.append(job)
        pending += len(data)
        if pool is None and workers > 1 and len(jobs) > 1 and pending >= pool_min:
            # Enough work has shown up: start the workers now, so they import LibCST and the
            # rules while we read and prefilter the other files.
            pool = new_pool()

    out.files_parsed = len(jobs)  # on this run (run statistics); the JSON summary counts cached parses too
    # Largest first: one big file started last would leave the other workers idle.
    jobs.sort(key=lambda job: len(job.data), reverse=True)
    results = _analysed(jobs, pool, new_pool)
    for count, (job, found) in enumerate(results, 1):
        path = job.path
        if options.progress is not None:
            options.progress(count, len(jobs))
        result = FileResult.from_dict(path, found)
        result.edits = found.get("edits")
        result.markers = markers[path]
        result.parsed = True
        done[path] = result
        if cache is not None and not any(e.message.startswith(_TRANSIENT) for e in result.errors):
            cache.put(digests[path], result.to_dict())
    if cache is not None:
        cache.flush()
    out.results = [done[p] for p in sorted(done)]
    return out


def _analysed(jobs: list[FileJob], pool, new_pool) -> Iterator[tuple[FileJob, dict]]:
    """(job, result) of each job: small ones here or in the pool; large ones in the pool too where they can be
    sliced (a slice's tree is small), else each in a capped process of its own, after the pool's, so that two are
    never parsed whole side by side."""
    if pool is None:
        yield from ((job, _analyse_alone(job) if big(job.data) else _analyse_job(job)) for job in jobs)
        return
    from advisor.run.workers import run

    sent, alone = [], []
    for job in jobs:
        if not big(job.data):
            sent.append(job)
        elif not job.path.endswith(".ipynb"):  # a worker slices it (a module or a stub), or answers ParseAlone
            sent.append(replace(job, pooled=True))
        else:  # a notebook is never sliced
            alone.append(job)
    for job, found in run(_analyse_job, sent, pool, new_pool, _failed_analysis, ISOLATED_TIMEOUT):
        if found.get("alone"):  # it cannot be sliced (`ParseAlone`)
            alone.append(replace(job, pooled=False))
        else:
            yield job, found
    yield from ((job, _analyse_alone(job)) for job in alone)


def scan_bytes(path: str, data: bytes, options: ScanOptions, incremental: bool = False) -> ScanResult:
    """One file's text that is not on disk (`advisor scan -`, an editor's buffer), analysed as `path`
    (a large one in a process of its own, its memory capped; `incremental`: see `_analyse_job`)."""
    job = options.job(path, data)
    found = None if job is None else _analyse_alone(job) if big(data) else _analyse_job(job, incremental)
    result = FileResult.from_dict(path, found) if found is not None else FileResult(path)
    result.markers = find_markers(data)
    result.parsed = job is not None
    return ScanResult([result], files_scanned=1, files_parsed=int(job is not None))


def big(data: bytes) -> bool:
    """Whether `data` is parsed in a process of its own, its memory capped (ISOLATE_MIN_BYTES)."""
    return len(data) >= int(os.environ.get("ADVISOR_ISOLATE_MIN_BYTES", ISOLATE_MIN_BYTES))


def out_of_memory(size: int, verb: str = "analysed") -> str:
    """The error of a file whose analysis needed more memory than a worker may use (advisor.run.workers)."""
    from advisor.run.workers import memory_cap

    return (
        f"its analysis needs more than the {memory_cap() / 2**20:.0f} MB of memory advisor gives one file "
        f"({size / 2**20:.1f} MB of source; raise ADVISOR_MAX_PARSE_MEMORY_MB to analyse it); not {verb}"
    )


def crashed(verb: str) -> str:
    return f"the parser crashed on this file; not {verb}"


def _analyse_alone(job: FileJob) -> dict:
    import multiprocessing

    from advisor.run.workers import isolated

    if multiprocessing.get_start_method() == "fork":
        # Here: each big file's process is forked from this one, and would otherwise import LibCST, the analysis
        # and its rules itself, every time (torch's tree has 15 such files: 9.6 CPU-s with `-j 1`).
        _warm_worker(job.codes)
    return isolated(_analyse_job, job, _failed_analysis, ISOLATED_TIMEOUT)


def warm() -> None:
    """Import and run what the first analysis needs (LibCST, the rules): an editor calls it off the critical path."""
    _warm_worker()
    options = ScanOptions(all_rules(), Settings())
    scan_bytes("warm.py", b"import torch\nwith torch.cuda.amp.autocast():\n    pass\n", options)


def _warm_worker(codes: Sequence[str] | None = None) -> None:
    """Pool initializer: pay for the imports before the first file arrives (`codes`: only these rules, else all)."""
    import advisor.analysis.analyse  # noqa: F401  (lazy on purpose: this runs in the worker, not in the main process)

    cst.parse_module  # noqa: B018  (the lazy module imports libcst on first attribute access)
    if codes is None:
        all_rules()
    for code in codes or ():
        rule_by_code(code)


def _failed_analysis(job: FileJob, why: str) -> dict:
    path = job.path
    message = (
        (f"the parser crashed, or {out_of_memory(len(job.data))}" if big(job.data) else crashed("analysed"))
        if why == "crashed"
        else f"analysis timed out after {ISOLATED_TIMEOUT} s; not analysed"
    )
    return FileResult(path, errors=[FileError(path, message)]).to_dict()
