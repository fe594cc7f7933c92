"""Apply fixes without ever damaging code.

For each file: analyse, replace the flagged nodes in the LibCST tree (so every
byte outside the edited spans, and the encoding, BOM and line endings, survive),
add and remove imports, re-parse the result, and repeat until nothing changes.
Only a result that parses and converged is written, atomically, and only if
the file on disk is still what we analysed.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Sequence

from advisor.analysis.analyse import Analysed, SourceError, analyse_source, parse
from advisor.core.atomic import inside, read_in_place, replace_file
from advisor.core.findings import Applicability, Finding
from advisor.core.jobs import FileJob
from advisor.core.lazy import reraise_interrupt
from advisor.core.settings import Settings
from advisor.core.textlines import split_lines
from advisor.analysis.registry import rule_by_code
from advisor.rule import Rule
from advisor.run.engine import big, crashed, out_of_memory
from advisor.run.workers import ISOLATED_TIMEOUT, PARALLEL_MIN_FILES, isolated, run, start_pool
from advisor.analysis import notebook_text, notebooks
from advisor.fix import parking, replace
from advisor.fix.imports import add_imports

MAX_PASSES = 8


@dataclass
class FixOutcome:
    path: str
    original: bytes
    fixed: bytes
    applied: Counter = field(default_factory=Counter)  # rule code -> fixes applied
    held_back: int = 0  # unsafe fixes not applied
    remaining: list[Finding] = field(default_factory=list)  # findings still there afterwards (lines of `fixed`)
    on_disk: list[Finding] | None = None  # the same findings at the lines of `original` (what --diff reports)
    error: str | None = None  # the file was not (fully) analysed or fixed

    @property
    def changed(self) -> bool:
        return self.fixed != self.original

    def diff(self, errors: str = "replace") -> str:
        """The unified diff; `errors="surrogateescape"` keeps bytes that are not UTF-8 (a latin-1 file) as they
        are, for `diff_bytes`."""
        a = split_lines(self.original.decode("utf-8", errors), keepends=True)
        b = split_lines(self.fixed.decode("utf-8", errors), keepends=True)
        out = []
        for line in difflib.unified_diff(a, b, f"a/{self.path}", f"b/{self.path}"):
            out.append(line)
            if not line.endswith(("\n", "\r")):  # a last line without its newline: say so, as `diff` and git do
                out.append("\n\\ No newline at end of file\n")
        return "".join(out)

    def diff_bytes(self) -> bytes:
        """The diff as `git apply` reads it: the file's own bytes on its lines, whatever their encoding."""
        return self.diff("surrogateescape").encode("utf-8", "surrogateescape")


def map_back(findings: list[Finding], fixed: str, original: str) -> list[Finding]:
    """`findings` placed on `fixed`, moved to the lines they occupy in `original`.

    Unchanged lines map one to one; a line inside a rewritten block maps to that block's first line.
    """
    from dataclasses import replace

    if fixed == original or not findings:
        return list(findings)
    blocks = difflib.SequenceMatcher(None, split_lines(original), split_lines(fixed), autojunk=False).get_opcodes()

    def line_of(n: int) -> int:
        for tag, i1, _i2, j1, j2 in blocks:
            if j1 < n <= j2:
                return i1 + (n - j1) if tag == "equal" else i1 + 1
        return n

    return [replace(f, line=line_of(f.line), end_line=max(line_of(f.line), line_of(f.end_line))) for f in findings]


def _overlaps(a: Finding, b: Finding) -> bool:
    return not ((a.end_line, a.end_column) <= (b.line, b.column) or (b.end_line, b.end_column) <= (a.line, a.column))


def _apply_once(
    data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings
) -> tuple[bytes, Counter, int, list[Finding]]:
    """One pass: (new bytes, fixes applied by rule, unsafe held back, findings left unfixed)."""
    result, analysed = analyse_source(data, path, rules, settings)
    if result.errors:
        raise SourceError(result.errors[0].message)
    if analysed is None:  # no rule can match this file
        return data, Counter(), 0, []
    chosen: list[tuple[Any, Finding]] = []
    held_back = 0
    unfixable: list[Finding] = []
    for rep, finding in analysed.items:
        if (
            rep.replacement is None or finding.fix is None or not settings.may_fix(finding.rule)
        ):  # no fix, withdrawn by the policy (compat), or --unfixable
            unfixable.append(finding)
            continue
        if (
            finding.fix == Applicability.UNSAFE and not settings.unsafe_fixes
        ):  # decided at analysis (advisor.core.policy)
            held_back += 1
            unfixable.append(finding)
            continue
        # Overlapping edits wait for the next pass, when the tree is fresh.
        if any(_overlaps(finding, other) for _, other in chosen):
            continue
        chosen.append((rep, finding))
    if not chosen:
        return data, Counter(), held_back, unfixable

    new_bytes = apply_reports(analysed, [rep for rep, _ in chosen], path)
    if data.endswith(b"\r"):  # LibCST drops the final newline of a CR-only file (old Mac line endings): put it back
        unedited = analysed.module.bytes
        if data != unedited and data.startswith(unedited):
            new_bytes += data[len(unedited) :]
    applied = Counter(type(rep.rule).code for rep, _ in chosen)
    return new_bytes, applied, held_back, unfixable


def apply_reports(analysed: Analysed, reports: Sequence[Any], path: str) -> bytes:
    """The analysed module with these (non-overlapping) reports' replacements made, imports a fix left unused
    removed and the imports the fixes need added where a person would put them. The fixer's one
    edit step; the language server's quick fixes and the JSON fix edits use it too."""
    return fixed_module(analysed, reports, path).bytes


def fixed_module(analysed: Analysed, reports: Sequence[Any], path: str, local: bool = False) -> Any:
    """`apply_reports`' module, before its code is generated (the JSON edits generate only what changed).

    `local`: None instead of a step that reads the whole module (LibCST's scope analysis for an import removal,
    its placement of an import where the file has no import block): the module is a slice of the file, whose
    left-out statements those steps would misread (advisor.fix.slice_edits)."""
    module = analysed.module
    new_module = replace.replaced(module, {rep.target_node: rep.replacement for rep in reports}, analysed.parents)
    needed = [imp for rep in reports for imp in rep.add_imports]
    removals = {imp for rep in reports for imp in replace.imported_names(module, analysed.resolver, rep.target_node)}
    spans = [analysed.spans[id(rep.target_node)] for rep in reports if id(rep.target_node) in analysed.spans]
    alone = None
    if len(spans) == len(reports):  # what the file's text shows for certain spares a scope analysis of the whole
        news = [r.replacement for r in reports]
        found = replace.classify(analysed.text, removals, spans, news, analysed.memo, analysed.starts)
        removals -= found.used
        sure = removals and removals <= found.unused | found.local | found.inside
        alone = replace.remove_alone(new_module, removals, found.local, found.inside) if sure else None
    if alone is not None:
        new_module = alone
    elif removals and local:
        return None
    elif removals:  # first, so that an added import is placed among the imports that stay
        # Lazy: LibCST's codemod machinery (its matchers: ~0.2 CPU-s to import) loads only for a removal it makes.
        from libcst.codemod import CodemodContext
        from libcst.codemod.visitors import RemoveImportsVisitor

        context = CodemodContext()
        for mod, name, asname in sorted(removals, key=str):
            RemoveImportsVisitor.remove_unused_import(context, mod, name, asname)
        # Cell markers and the blank lines before a removed import are layout, not the import's: kept.
        new_module = parking.unpark(RemoveImportsVisitor(context).transform_module(parking.park(new_module)))
    if needed:
        new_module = add_imports(new_module, needed, path, fallback=not local)
    return new_module


def fix_bytes(data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings) -> FixOutcome:
    """`data` fixed as `path`: unsafe fixes too with `settings.unsafe_fixes`; only the codes `settings.may_fix`."""
    if path.endswith(".ipynb"):
        return _fix_notebook(data, path, rules, settings)
    return _fix_source(data, path, rules, settings)


def fix_one(data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings, key: Sequence) -> bytes | None:
    """`data` with only the finding `key` ([code, 0-based line, 0-based column]) fixed, or None if it has no fix."""
    return fix_each(data, path, rules, settings, [key])[tuple(key)]


def fix_each(
    data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings, keys: Sequence[Sequence]
) -> dict[tuple, bytes | None]:
    """Each finding of `keys` ([code, 0-based line, 0-based column]) fixed alone, from one analysis: {key: the
    new bytes, or None if it has no fix}.

    One pass of the fixer's edit for one report (an editor's quick fix): the node swapped, imports added and
    removed, and the result checked to parse. One analysis serves them all: an editor that cannot resolve an
    action's edit later asks for many at once.
    """
    out: dict[tuple, bytes | None] = {tuple(k): None for k in keys}
    codes = {k[0] for k in out}
    _, analysed = analyse_source(data, path, [r for r in rules if r.code in codes], settings)
    if analysed is None:  # no rule can match this file
        return out
    done: set[tuple] = set()
    for rep, finding in analysed.items:
        key = (finding.rule, finding.line - 1, finding.column - 1)
        if key not in out or key in done or rep.replacement is None:
            continue
        done.add(key)
        new = apply_reports(analysed, [rep], path)
        try:
            parse(new, path)
        except SourceError:
            continue
        out[key] = new if new != data else None
    return out


def _fix_notebook(data, path, rules, settings) -> FixOutcome:
    """Fix the code cells through their virtual module; outputs and metadata stay as they were."""
    try:
        nb = notebooks.read(data)
    except notebooks.NotebookError as e:
        return FixOutcome(path, data, data, error=str(e))
    virtual = notebooks.to_virtual(nb)
    source = virtual.source.encode("utf-8")
    inner = _fix_source(source, path, rules, settings)
    outcome = FixOutcome(path, data, data, applied=inner.applied, held_back=inner.held_back, error=inner.error)
    fixed_virtual = inner.fixed.decode("utf-8")
    outcome.remaining = notebooks.place(inner.remaining, fixed_virtual)  # by cell and line
    outcome.on_disk = notebook_text.locate(notebooks.place(inner.on_disk or [], virtual.source), data.decode("utf-8"))
    outcome.error = outcome.error or "; ".join(virtual.errors) or None  # cells that do not parse: the others are fixed
    if inner.changed and not inner.error:
        try:
            sources = notebooks.from_virtual(nb, virtual, fixed_virtual)
            text = data.decode("utf-8")
            # Only the fixed cells' JSON strings change: the file keeps its layout, key order and ids.
            outcome.fixed = notebook_text.splice(text, notebook_text.scan(text), sources).encode("utf-8")
            outcome.remaining = notebook_text.locate(outcome.remaining, outcome.fixed.decode("utf-8"))
        except (notebooks.NotebookError, notebook_text.NotebookTextError) as e:  # write nothing
            outcome.error, outcome.applied, outcome.held_back = str(e), Counter(), 0
    elif not inner.changed:  # where each finding is in the .ipynb text, as `scan` says it
        outcome.remaining = notebook_text.locate(outcome.remaining, data.decode("utf-8"))
    return outcome


def _fix_source(data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings) -> FixOutcome:
    outcome = FixOutcome(path, data, data)
    current = data
    for _ in range(MAX_PASSES):
        try:
            new, applied, held_back, unfixable = _apply_once(current, path, rules, settings)
        except SourceError as e:
            if current is data:
                outcome.error = str(e)
            else:  # our own fix broke the code: keep the file as it was
                outcome.error = f"a fix produced code that does not parse ({e}); file left untouched"
                outcome.fixed = data
            return outcome
        except MemoryError:
            raise  # over a worker's memory cap: `_fix_job` says so
        except Exception as e:  # a bug in a fix: never write anything for this file
            reraise_interrupt(e)  # a Ctrl-C, not a bug: the run ends
            outcome.error = f"internal error while fixing ({type(e).__name__}: {e}); file left untouched"
            outcome.fixed = data
            return outcome
        outcome.held_back = held_back
        outcome.remaining = unfixable
        if new == current:
            outcome.fixed = current
            outcome.on_disk = map_back(unfixable, _text(current), _text(data))
            return outcome
        try:
            parse(new, path)
        except SourceError as e:
            outcome.error = f"a fix produced code that does not parse ({e}); file left untouched"
            outcome.fixed = data
            outcome.applied = Counter()
            return outcome
        outcome.applied.update(applied)
        current = new
    outcome.error = f"fixes did not converge after {MAX_PASSES} passes; file left untouched"
    outcome.fixed = data
    outcome.applied = Counter()
    return outcome


def _text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class ConcurrentEditError(Exception):
    pass


def write_atomic(path: str, original: bytes, new: bytes, root: str | None = None) -> None:
    """Replace `path` with `new` only if it still holds `original` and still lies inside `root`; keep its mode."""
    real = inside(path, root) if root is not None else os.path.realpath(path)
    current, st = read_in_place(real, len(original))
    if current != original:
        raise ConcurrentEditError("the file changed on disk while advisor was fixing it; left alone")
    replace_file(real, new, mode=st.st_mode & 0o7777, durable=True, root=root)


def _fix_job(job: FileJob) -> FixOutcome:
    """Worker entry point: a job in, its outcome (plain data) out."""
    rules = [rule_by_code(c) for c in job.codes]
    try:
        return fix_bytes(job.data, job.path, rules, job.settings)
    except MemoryError:
        return FixOutcome(job.path, job.data, job.data, error=out_of_memory(len(job.data), "fixed"))


def _fix_here_or_alone(job: FileJob) -> FixOutcome:
    """A large file is fixed in a process of its own, its memory capped (advisor.run.engine.big); others here."""
    return isolated(_fix_job, job, _failed_fix, ISOLATED_TIMEOUT) if big(job.data) else _fix_job(job)


def _fix_each_job(job_and_keys: tuple[FileJob, Sequence[Sequence]]) -> dict[tuple, bytes | None]:
    job, keys = job_and_keys
    try:
        return fix_each(job.data, job.path, [rule_by_code(c) for c in job.codes], job.settings, keys)
    except MemoryError:
        return {tuple(k): None for k in keys}


def fix_bounded(
    data: bytes, path: str, rules: Sequence[type[Rule]], settings: Settings, keys: Sequence[Sequence] | None = None
):
    """`fix_bytes` (or, with `keys`, `fix_each`) for an editor's buffer or stdin: a large one in a capped process."""
    job = FileJob(path, data, tuple(r.code for r in rules), settings)
    if keys is None:
        return _fix_here_or_alone(job)
    if not big(data):
        return fix_each(data, path, rules, settings, keys)
    nothing = {tuple(k): None for k in keys}
    return isolated(_fix_each_job, (job, keys), lambda *_: nothing, ISOLATED_TIMEOUT)


def _failed_fix(job: FileJob, why: str) -> FixOutcome:
    message = (
        (f"the parser crashed, or {out_of_memory(len(job.data), 'fixed')}" if big(job.data) else crashed("fixed"))
        if why == "crashed"
        else f"fixing timed out after {ISOLATED_TIMEOUT} s; not fixed"
    )
    return FixOutcome(job.path, job.data, job.data, error=message)


def fix_many(jobs: list[FileJob], workers: int | None = None):
    """Outcomes of `jobs`, in order; computed in a process pool when there are enough of them.

    Only outcomes come back: the caller writes files, one at a time, so an interrupted
    run leaves every file either untouched or completely fixed.
    """
    size = min(workers or os.cpu_count() or 1, len(jobs))

    def new_pool():
        return start_pool(size)

    pool = new_pool() if size > 1 and len(jobs) >= PARALLEL_MIN_FILES else None
    if pool is None:  # large files each in a capped process of its own (advisor.run.engine.big)
        for _, outcome in run(_fix_here_or_alone, jobs, None, new_pool, _failed_fix, ISOLATED_TIMEOUT):
            yield outcome
        return
    # Large files one at a time, each in its capped process, after the pool: never two side by side.
    small = [job for job in jobs if not big(job.data)]
    for _, outcome in run(_fix_job, small, pool, new_pool, _failed_fix, ISOLATED_TIMEOUT):
        yield outcome
    for job in jobs:
        if big(job.data):
            yield _fix_here_or_alone(job)
