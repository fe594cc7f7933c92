"""Analyse one file: decode, guard, parse, resolve names, run rules, place findings.

A finding is born here (a rule's report, in `run_rules`) and placed by `advisor.analysis.place` (the policy's
decision, its position, its suppression); advisor.run.postprocess shapes the run's findings. It runs inside worker
processes, so it returns plain data (`FileResult`), plus, for the fixer, the parsed module and the live reports.
"""

from __future__ import annotations


import ast
import os
import tokenize
from dataclasses import dataclass, field, replace
from io import BytesIO
from typing import Any, Callable, Sequence

from advisor.analysis import notebook_text, notebooks
from advisor.analysis import ast_reports, compat_marks, fragments, lazy_helpers, own_attributes, sites, slices
from advisor.analysis.parser import parse_unvalidated
from advisor.analysis.facts import Facts
from advisor.analysis.place import place
from advisor.core.findings import FileError, FileResult, Finding
from advisor.syntax.names import NameResolver
from advisor.analysis.positions import StatementPositions, compute_positions, statement_starts
from advisor.syntax.references import References, collect
from advisor.core.settings import Settings
from advisor.rule import Context, Report, Rule
from advisor.analysis.suppressions import Suppressions
from advisor.syntax.walk import walk

# LibCST's parser recurses natively: deep nesting segfaults it and long operator
# chains are quadratic. CPython rejects >200 nested brackets itself; we also
# bound expression depth, which `ast` tells us cheaply.
MAX_EXPR_DEPTH = 400
# What LibCST really costs, measured (peak RSS of `libcst.parse_module` on generated dense code:
# functions with calls, comprehensions, dicts; CPython 3.11, libcst 1.x): 0.25 MB -> 298 MiB,
# 0.5 MB -> 572 MiB, 1 MB -> 1119 MiB, i.e. ~1.1 GiB per MB of source; the whole analysis of
# 0.5 MB (every rule, no slicing) peaked at 626 MiB. At 4 MB that is ~5 GB, which a 4 GB CI
# container cannot give (the native parser aborts the process). Past 2 MB (~2.5 GB) a file is
# reported, not parsed; ADVISOR_MAX_FILE_MB raises it. advisor.run.engine also parses candidates
# over ISOLATE_MIN_BYTES in a process of their own, so a parser abort costs only that file.
MAX_CST_BYTES = int(float(os.environ.get("ADVISOR_MAX_FILE_MB", "2")) * 1024 * 1024)


class SourceError(Exception):
    """The file cannot be analysed; the message says why, for the user."""


class ParseAlone(Exception):
    """A file that cannot be sliced, where the caller would not parse it whole (`whole=False`): a big file in a
    pool's worker, which advisor.run.engine parses in a capped process of its own instead."""


@dataclass
class Analysed:
    module: Any  # libcst.Module
    resolver: Any  # the names.NameResolver the rules used: the fixer asks it which imports a replaced node used
    items: list[tuple[Report, Finding]] = field(default_factory=list)  # not suppressed
    # What the fixer's edit step reads (advisor.fix.replace): the text, the one walk's parents, and each
    # replaced node's span (1-based lines, 0-based character columns); `memo` keeps its work between fixes.
    text: str = ""
    parents: dict[int, Any] | None = None
    spans: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    memo: dict[Any, Any] = field(default_factory=dict)
    starts: Any = None  # the module's top-level statements' first lines (positions.statement_starts), where known


def decode(data: bytes) -> tuple[str, str]:
    """(text, encoding) honouring a BOM or coding cookie."""
    if b"\x00" in data:
        raise SourceError("binary file (contains NUL bytes); not analysed")
    try:
        encoding, _ = tokenize.detect_encoding(BytesIO(data).readline)
    except SyntaxError as e:
        raise SourceError(f"cannot determine encoding: {e}") from None
    try:
        return data.decode(encoding), encoding
    except (UnicodeDecodeError, LookupError) as e:
        raise SourceError(f"not valid {encoding} text: {e}") from None


def guard(text: str, path: str) -> References:
    """Reject what CPython rejects, and what would crash or hang LibCST; return the cheap references."""
    return guard_tree(text, path)[1]


def guard_tree(text: str, path: str) -> tuple[ast.Module, References]:
    try:
        tree = ast.parse(text, filename=path)
    except SyntaxError as e:
        where = f" (line {e.lineno}, column {e.offset})" if e.lineno else ""
        raise SourceError(f"syntax error: {e.msg}{where}") from None
    except RecursionError:
        raise SourceError("code too deeply nested for Python's own parser; not analysed") from None
    # A MemoryError is a worker over its memory cap (advisor.run.workers), as for LibCST's parse: the caller says so.
    except ValueError as e:
        raise SourceError(f"cannot parse: {e}") from None
    refs = collect(tree, MAX_EXPR_DEPTH, lazy_helpers.importing_calls(path))
    refs.text = text
    if refs.max_depth > MAX_EXPR_DEPTH:
        raise SourceError(f"expression nesting deeper than {MAX_EXPR_DEPTH} levels; skipped to protect the parser")
    return tree, refs


def parse(data: bytes, path: str) -> tuple[Any, str]:
    """(libcst.Module, text). Raises SourceError with a user-facing reason."""
    text, _ = decode(data)
    guard(text, path)
    return parse_cst(data), text


def parse_cst(data: bytes) -> Any:
    try:
        module = parse_unvalidated(data)
    except MemoryError:
        raise  # a worker over its memory cap (advisor.run.workers): the caller says so
    except Exception as e:  # libcst.ParserSyntaxError and friends
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SourceError(f"LibCST cannot parse this file: {msg}") from None
    return module


def run_rules(
    module: Any,
    path: str,
    rules: Sequence[type[Rule]],
    settings: Settings,
    identifiers: frozenset[str] = frozenset(),
    text: str | None = None,
    alias_names: frozenset[str] | None = None,
) -> tuple[Context, Facts]:
    """`text`: the whole file's, where `module` is a slice of it. `alias_names`: see `Context.alias_names`."""
    resolver = NameResolver.sharing(module, lazy_helpers.importing_calls(path))
    ctx = Context(path, module, resolver, settings, identifiers, text, alias_names)
    failed = ctx.rule_failed  # a rule that raises loses one node, never the file
    # The rules' walk is the one walk over the tree: the scope builder runs first in it, and it records
    # parents and the nodes the passes below need; they go upward from each report's node (advisor.analysis.facts).
    facts = Facts()
    scopes = resolver.builder
    visitors = [scopes, *(r(ctx) for r in rules), facts]
    walk(
        module,
        visitors,
        before_visit=scopes.before_visit,
        after_leave=scopes.after_leave,
        parents=facts.parents,
        on_error=failed,
    )
    if not resolver.finish():  # a rule was answered before a later binding changed the answer: run them again
        ctx.reports, ctx.rule_errors = [], {}
        walk(module, [r(ctx) for r in rules], on_error=failed)
    ctx.reports = own_attributes.drop(ctx.reports, facts)  # `.cuda_time` on the user's own class is theirs
    compat_marks.mark(module, ctx.resolver, ctx.reports, path, facts)  # old-torch-only branches: compat, never fixed
    sites.annotations_to_advice(ctx.reports, facts)  # a name in an annotation never warns
    sites.mark_scopes(ctx.reports, facts)  # test / import time / call: for deprecations said once in tests
    return ctx, facts


def rule_errors(ctx: Context, positions: dict | None = None) -> list[FileError]:
    """One error per failing rule, naming the rule and the first line it failed on."""
    if not ctx.rule_errors:
        return []
    positions = positions or compute_positions(ctx.module)
    return [
        FileError(
            ctx.path,
            f"internal error in rule {code} at line {positions[id(node)][0]} ({type(e).__name__}: {e}); "
            "only what this rule would have reported there is missing; please report it",
        )
        for code, (node, e) in sorted(ctx.rule_errors.items())
    ]


def analyse(
    data: bytes,
    path: str,
    rules: Sequence[type[Rule]],
    settings: Settings,
    sliced: bool = False,
    on_fixes: Callable[[Analysed, str], None] | None = None,
    whole: bool = True,
) -> tuple[FileResult, Analysed | None]:
    """`sliced`: a scan may analyse a very large file in slices (advisor.analysis.slices); a fix never does.
    `on_fixes(analysed, source)`: each slice's analysis (and its source) while its tree lives (the JSON edits).
    `whole=False`: ParseAlone rather than a parse of the whole file."""
    if path.endswith(".ipynb"):
        return _analyse_notebook(data, path, rules, settings)
    return analyse_source(data, path, rules, settings, sliced, on_fixes=on_fixes, whole=whole)


def _analyse_notebook(data, path, rules, settings) -> tuple[FileResult, Analysed | None]:
    """Analyse the code cells as one module; report `cell N` and the line within the cell."""
    try:
        virtual = notebooks.to_virtual(notebooks.read(data))
    except notebooks.NotebookError as e:
        return FileResult(path, errors=[FileError(path, str(e))]), None
    result, analysed = analyse_source(virtual.source.encode("utf-8"), path, rules, settings)
    mapped = []
    for f in result.findings:
        cell, line = virtual.line_map.get(f.line, (0, f.line))
        _, end_line = virtual.line_map.get(f.end_line, (cell, f.end_line))
        mapped.append(replace(f, line=line, end_line=end_line, data=notebooks.in_cell(f.data, virtual.line_map, cell)))
    result.findings = notebook_text.locate(mapped, data.decode("utf-8"))  # read() decoded it: it is UTF-8
    result.errors = [FileError(path, e.message) for e in result.errors]
    result.errors += [FileError(path, message) for message in virtual.errors]  # cells left out, by cell and line
    return result, analysed


def analyse_source(
    data: bytes,
    path: str,
    rules: Sequence[type[Rule]],
    settings: Settings,
    sliced: bool = False,
    seen: Callable[[str, References], None] | None = None,
    on_fixes: Callable[[Analysed, str], None] | None = None,
    whole: bool = True,
) -> tuple[FileResult, Analysed | None]:
    """`seen(text, refs)`: called once the file's references are known (an editor keeps what its next analysis
    needs of them, advisor.analysis.incremental, rather than parsing the file again). `whole`: see `analyse`."""
    result = FileResult(path)
    try:
        if len(data) > MAX_CST_BYTES:  # by size, before any parse: Python's own costs ~0.2 GB per MB too
            raise SourceError(
                f"file is {len(data) / 2**20:.1f} MB, over the {MAX_CST_BYTES / 2**20:.0f} MB advisor parses "
                "(raise ADVISOR_MAX_FILE_MB to analyse it)"
            )
        text, _ = decode(data)
        tree, refs = guard_tree(text, path)
        if seen is not None:
            seen(text, refs)
        rules = [r for r in rules if r.may_match(refs)]
        # A scan: the table rules from `ast`, and the statement-local ones on their statements, where that leaves
        # LibCST nothing to parse (alongside a slice for other rules, the fragments would only cost more).
        local = fragments.local_rules(rules, refs) if sliced else []
        if not all(ast_reports.eligible(r) or r in local for r in rules):
            local = []
        if sliced and (local or any(ast_reports.eligible(r) for r in rules)):
            rules = _report_on_ast(tree, text, refs, path, rules, settings, result, local)
        if not rules:  # nothing here for any rule (left): skip the LibCST parse
            result.findings.sort(key=Finding.sort_key)
            return result, None
        starts = statement_starts(tree)
        identifiers, aliases = frozenset(refs.identifiers()), refs.alias_names()
        if sliced:  # parse only the statements that can match (advisor.analysis.slices)
            parts = slices.plan(text, tree, rules, refs)
            if parts is not None:
                del tree
                refs.forget_calls()  # they hold the `ast` tree
                names = (identifiers, aliases)
                return _analyse_slices(parts, starts, text, path, rules, settings, names, result, on_fixes), None
        if not whole:
            raise ParseAlone(path)
        del tree
        refs.forget_calls()  # they hold the `ast` tree, which goes before LibCST's is built
        module = parse_cst(data)
    except SourceError as e:
        result.errors.append(FileError(path, str(e)))
        return result, None
    # The text too: a rule that reads the file's layout (ADV716's line length) would otherwise print the module again.
    ctx, facts = run_rules(module, path, rules, settings, identifiers, text, alias_names=aliases)
    result.errors += rule_errors(ctx)
    analysed = Analysed(module, ctx.resolver, text=text, parents=facts.parents, starts=starts)
    # positions of the statements that hold a report only, not a second pass over the whole module
    positions = StatementPositions(module, starts, facts)
    for rep in ctx.reports:
        positions.cover(rep.node)
        if rep.replacement is not None:
            positions.cover(rep.target_node)
            analysed.spans[id(rep.target_node)] = positions[id(rep.target_node)]
    place(ctx, result, Suppressions(text), analysed, positions)
    _release(ctx)
    result.findings.sort(key=Finding.sort_key)
    return result, analysed


def _report_on_ast(tree, text, refs, path, rules, settings, result: FileResult, local: list) -> list:
    """The findings made into `result` from `ast` (the table rules: advisor.analysis.ast_reports) and, where no
    other rule is left, from the statements that refer (the statement-local rules `local`: advisor.analysis.fragments);
    the rules left to LibCST."""
    found = ast_reports.AstFindings(tree, text, refs, path, settings, lazy_helpers.importing_calls(path))
    left = found.report(rules, also=fragments.words(local))
    if local and left and all(r in local for r in left):
        left = fragments.report(found, refs, left, settings, frozenset(refs.identifiers()))
    result.findings += found.findings
    result.suppressed += found.suppressed
    return left


def _analyse_slices(parts, starts, text, path, rules, settings, names, result: FileResult, on_fixes) -> FileResult:
    """Each slice parsed and checked on its own; a finding counts in the slice that owns its statement.

    A slice keeps every top-level statement on its line (whole, thinned or as a stub), so the file's
    statement starts (`starts`) are the slice's too. `names`: the file's (identifiers, alias names)."""
    suppressions = Suppressions(text)
    identifiers, aliases = names
    for source, owned in parts:
        try:
            args = (source, owned, starts, text, path, rules, settings, identifiers, suppressions, result)
            analysed = analyse_slice(*args, kept=on_fixes is not None, alias_names=aliases)
            if on_fixes is not None and analysed is not None and analysed.items:
                on_fixes(analysed, source)
            del analysed  # this slice's tree goes before the next one's is built
        except SourceError as e:
            result.errors.append(FileError(path, str(e)))
            return result
    result.findings.sort(key=Finding.sort_key)
    return result


def analyse_slice(
    source: str,
    owned,
    starts,
    text,
    path,
    rules,
    settings,
    identifiers,
    suppressions,
    result,
    kept=False,
    alias_names=None,
) -> Analysed | None:
    """One slice parsed and checked; the findings of the statements it owns added to `result` (SourceError: it
    does not parse). Its tree is garbage on return (one slice's tree at a time), unless `kept`: then it is
    returned as the fixer reads it (a fix of a slice, advisor.fix.slice_edits). `alias_names`: the file's."""
    module = parse_cst(source.encode("utf-8", "surrogatepass"))
    ctx, facts = run_rules(module, path, rules, settings, identifiers, text, alias_names)
    result.errors += rule_errors(ctx)
    analysed = Analysed(module, ctx.resolver, text=text, parents=facts.parents, starts=starts) if kept else None
    if ctx.reports:
        positions = StatementPositions(module, starts, facts)
        for rep in ctx.reports:
            positions.cover(rep.node)
        ctx.reports = [r for r in ctx.reports if positions[id(r.node)][0] in owned]
        for rep in ctx.reports:
            if rep.replacement is not None:
                positions.cover(rep.target_node)
                if analysed is not None:
                    analysed.spans[id(rep.target_node)] = positions[id(rep.target_node)]
        place(ctx, result, suppressions, analysed, positions)
    _release(ctx)
    return analysed


def _release(ctx: Context) -> None:
    """The context, its reports placed, lets them and its tree go: a report holds its rule, the rule the context
    (and often itself, through a helper that calls its methods), the context the reports and the tree: cycles that
    kept each tree (a slice's too) until the next collection, not until the analysis is done with it. The placed
    reports live on in `analysed.items`, the tree in `analysed.module` (the fixer's)."""
    ctx.reports, ctx.module = [], None
