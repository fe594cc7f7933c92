"""A scan parses only the statements that can match, not the whole file.

LibCST costs ~10x `ast.parse` and ~600 bytes of memory per source byte, and most of a candidate file holds nothing
any candidate rule looks for. For a scan (never for a fix, which needs the whole tree), the file is rendered with only

- the statements that contain a trigger of a candidate rule, verbatim;
- small statements (imports, aliases, constants) and every module-level assignment, verbatim, so names resolve and
  compat gates (version flags) read as in the whole file; every module-level statement outside functions and classes
  where a rule reads the module as one scope (`Rule.module_level`);
- the statements that hold a rule's evidence from elsewhere in the file (`Rule.kept_lines`: ADV716's
  `torch.save` to the path a load reads), verbatim, in every slice;
- every other statement blanked, except that a `def`/`class` leaves a stub and an
  assignment leaves `name = None`, so no name changes meaning;
- inside a kept class, the same again for its body: methods without a trigger become
  stubs at their own indentation;
- inside a big module-level assignment of a list, tuple, set or dict display (`op_db = [OpInfo(...), ...]`,
  a table of tuned parameters), the same again for its elements: those without a trigger become `0`,
  padded to their own lines and columns (such tables are most of the bytes of torch's largest files);
- every line keeping its number and every kept statement its columns, so positions
  and suppressions need no mapping.

A file over SLICE_MIN_BYTES is cut into several such slices (top-level statements up
to SLICE_BYTES each); a finding counts only in the slice that owns its statement (small
statements belong to the first slice). Rules that judge the whole module at once
(`Rule.whole_module`), files without a top-level torch import, files with two
statements on one line, and plans that would keep most of the file are never sliced.
"""

from __future__ import annotations

import ast
import bisect
import functools
import re
from typing import TYPE_CHECKING, Any, Callable, Sequence

from advisor.analysis.positions import first_line
from advisor.analysis.prefilter import Prefilter, reference_gate
from advisor.syntax.references import References, collect
from advisor.syntax.refers import refers_within
from advisor.core.textlines import split_lines

if TYPE_CHECKING:
    from advisor.rule import Rule

SLICE_MIN_BYTES = 512 * 1024  # from here on, several slices (one slice's tree at a time in memory)
SLICE_BYTES = 192 * 1024
SMALL_LINES = 3  # statements this short are kept in every slice...
SMALL_BYTES_MAX = 256 * 1024  # ...unless there are so many that every slice would be most of the file
KEEP_MAX = 0.8  # a plan keeping more of the file than this parses it whole: rendering would not pay
THIN_MIN_BYTES = 16 * 1024  # a module-level assignment this big has its display's elements thinned

# Module-level assignments are always kept: what a name holds at module level is read by passes and rules
# alike (version flags for compat gates, lists of slices for ADV130); functions and classes are what is big.
_ASSIGNMENTS = (ast.Assign, ast.AnnAssign, ast.AugAssign)
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
Span = tuple[int, int, ast.stmt]  # first line (decorators included), last line, statement
_NOTHING_AFTER = re.compile(r"[ \t]*,?[ \t]*(#[^\r\n]*)?\r?\n?")


def _stub(node: ast.stmt) -> str | None:
    """The first line of a statement's stub (`def f(*args, **kwargs):`, `class C:`, `a = b = `, `(`), or None."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        return f"{prefix} {node.name}(*args, **kwargs):"
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}:"
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if names and len(names) == len(targets):
        return " = ".join(names) + " = "
    if isinstance(node, ast.Expr) and not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node.value)):
        return "("  # a call, a docstring: it binds nothing (no `:=`), so `()` over its lines stands for it
    return None  # anything else (a big `if`/`try`) is kept as it is


@functools.lru_cache(maxsize=32)
def _prefilter(rules: tuple[type[Rule], ...]) -> Prefilter:
    """A file's candidate rules' prefilter: files share few sets of candidates, and building one costs more than
    slicing a small file."""
    return Prefilter(rules)


def _ending(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else line[-1:] if line.endswith(("\n", "\r")) else "\n"


def _stub_lines(head: str, indent: str, old: list[str]) -> list[str]:
    """A stub over exactly the statement's lines: its body one string spanning them, so that the lines after it
    (blank lines, comments, an indented block's trailing comments) belong where they belong in the whole file,
    and the statements after it keep their leading lines (fix texts and positions depend on them)."""
    n = len(old)
    ends = ["\n"] * n if "\r" not in "".join(old) else [_ending(line) for line in old]  # most files: "\n" only
    if head == "(":  # an expression statement
        return [indent + "()" + ends[0]] if n == 1 else [indent + "(" + ends[0], *ends[1:-1], ")" + ends[-1]]
    if head.endswith("= "):  # an assignment: `a = """ ... """`
        if n == 1:
            return [indent + head + "None" + ends[0]]
        return [indent + head + '"""' + ends[0], *ends[1:-1], '"""' + ends[-1]]
    if n == 1:
        return [indent + head + " pass" + ends[0]]
    if n == 2:
        return [indent + head + ends[0], indent + " pass" + ends[1]]
    return [indent + head + ends[0], indent + ' """' + ends[1], *ends[2:-1], indent + ' """' + ends[-1]]


def _imports_torch_at_top(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "torch":
            return True
    return False


def _spans(body: list[ast.stmt]) -> list[Span] | None:
    """The statements' line spans, or None when two share a line (`a = 1; b = 2`)."""
    spans = [(first_line(n), n.end_lineno or n.lineno, n) for n in body]
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        if start <= end:
            return None
    return spans


class _Renderer:
    """Decides, statement by statement, what a slice keeps, and writes the slice."""

    def __init__(
        self, lines: list[str], rules: Sequence[type[Rule]], refs: References, kept: Sequence[int] = ()
    ) -> None:
        self.lines, self.refs = lines, refs
        self.kept = sorted(kept)  # lines whose statements are kept whatever they hold (`Rule.kept_lines`)
        prefilter = _prefilter(tuple(rules))
        self._matches: Callable[[bytes], list] = prefilter.candidates
        # `from m import profile as _profile`: the statements that use `_profile` hold no trigger word; the
        # import's own name does. Such names count as triggers for the statements.
        aliases = sorted(a for a, names in refs.asnames.items() if any(prefilter.candidates(n.encode()) for n in names))
        self._aliases = re.compile(r"\b(?:" + "|".join(map(re.escape, aliases)) + r")\b") if aliases else None
        self._thinned: dict[int, list[str] | None] = {}

    def text(self, start: int, end: int) -> str:
        return "".join(self.lines[start - 1 : end])

    def wanted(self, start: int, end: int, node: ast.stmt) -> bool:
        return self.holds_kept(start, end) or self.wanted_text(self.text(start, end), node)

    def holds_kept(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.kept, start)
        return i < len(self.kept) and self.kept[i] <= end

    def render(self, spans: list[Span], keep: set[int]) -> tuple[str, int]:
        """(The file with only `keep` statements intact, their classes thinned, the bytes left out.) Every line
        stays where it was; lines outside statements (comments, blank lines) are kept."""
        out = list(self.lines)
        self.left_out = 0
        for start, end, node in spans:
            if id(node) in keep:
                self._thin(out, start, end, node)
            else:
                self._stub_out(out, start, end, node, "")
        return "".join(out), self.left_out

    def _stub_out(self, out: list[str], start: int, end: int, node: ast.stmt, indent: str) -> None:
        head = _stub(node)
        if head is not None:
            old = self.lines[start - 1 : end]
            out[start - 1 : end] = _stub_lines(head, indent, old)
            self.left_out += sum(map(len, old))

    def _thin(self, out: list[str], start: int, end: int, node: ast.stmt) -> None:
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            thinned = self.thinned(start, end, node)
            if thinned is not None:
                self.left_out += sum(map(len, self.lines[start - 1 : end])) - sum(map(len, thinned))
                out[start - 1 : end] = thinned
            return
        if not isinstance(node, ast.ClassDef):
            return
        inner = _spans(node.body)
        indent = self._indent(inner, node) if inner else None
        if inner is None or indent is None:
            return
        for s, e, child in inner:
            if e - s + 1 <= SMALL_LINES or self.wanted(s, e, child):
                self._thin(out, s, e, child)
            else:
                self._stub_out(out, s, e, child, indent)

    def kept_size(self, start: int, end: int, node: ast.stmt) -> int:
        """The characters a kept statement takes in a slice (a big display, thinned)."""
        thinned = self.thinned(start, end, node) if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
        return sum(map(len, thinned if thinned is not None else self.lines[start - 1 : end]))

    def thinned(self, start: int, end: int, node: ast.Assign | ast.AnnAssign) -> list[str] | None:
        """A big display's lines with every element that holds no trigger replaced by `0` over exactly its
        own lines and columns (None: not such an assignment, or nothing to leave out)."""
        key = id(node)
        if key not in self._thinned:
            self._thinned[key] = self._thin_display(start, end, node)
        return self._thinned[key]

    def _thin_display(self, start: int, end: int, node: ast.Assign | ast.AnnAssign) -> list[str] | None:
        value = node.value
        if sum(map(len, self.lines[start - 1 : end])) < THIN_MIN_BYTES:
            return None
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            elements = [(e, e) for e in value.elts if not isinstance(e, ast.Starred)]
            filler = "0"  # an int: neutral where a rule reads the display (a list of slices or None indexes)
        elif isinstance(value, ast.Dict):  # a key of None is `**other`: kept
            elements = [(k, v) for k, v in zip(value.keys, value.values) if k is not None]
            filler = "0:0"
        else:
            return None
        lines = self.lines[start - 1 : end]
        edits = []
        for first, last in elements:
            span = (first.lineno, first.col_offset, last.end_lineno or last.lineno, last.end_col_offset or 0)
            if not self.holds_kept(span[0], span[2]) and not self.wanted_text(_segment(lines, start, *span)):
                edits.append(span)
        if not edits:
            return None
        for span in reversed(edits):  # from the end, so the earlier spans' positions still hold
            _blank(lines, start, *span, filler)
        return lines

    def wanted_text(self, text: str, node: ast.AST | None = None) -> bool:
        """Does `text` (the statement `node`'s) hold what a candidate rule looks for?"""
        if self._aliases is not None and self._aliases.search(text):
            return True
        rules = self._matches(text.encode("utf-8", "surrogatepass"))
        gate = reference_gate(tuple(rules)) if rules else None
        if gate is None or node is None:
            return bool(rules)
        # Only reference rules' words: the statement must refer to what they look for (`range` in a loop is not
        # `torch.range`), as the file's `ast` references have it.
        return refers_within(node, self.refs, *gate)

    def _indent(self, inner: list[Span], node: ast.ClassDef) -> str | None:
        """The body's indentation, when every body statement starts its own line there (else None: keep it all)."""
        first = self.lines[inner[0][0] - 1]
        indent = first[: len(first) - len(first.lstrip())]
        if not indent or inner[0][0] <= node.lineno:
            return None
        for s, _, child in inner:
            line = self.lines[s - 1]
            if not line.startswith(indent) or line[len(indent) : len(indent) + 1].isspace():
                return None
            if s == child.lineno and line[: child.col_offset] != indent:
                return None
        return indent


def plan(
    text: str, tree: ast.Module, rules: Sequence[type[Rule]], refs: Any = None
) -> list[tuple[str, "Owned"]] | None:
    """[(slice source, the statements it owns)], or None to analyse the file whole.

    `refs`: the file's `References` (what rules that may need the whole module look at); None: computed here.
    """
    if refs is None:
        refs = collect(tree, 10**9)
    if any(r.needs_whole_module(refs) for r in rules) or not _imports_torch_at_top(tree):
        return None
    lines = split_lines(text, keepends=True)  # indexed by ast's line numbers
    spans = _spans(tree.body)
    if spans is None:
        return None
    renderer = _Renderer(lines, rules, refs, _kept_lines(rules, refs))
    small = _kept_everywhere(spans, rules, renderer)
    everywhere = {id(node) for _, _, node in small}
    wanted = [s for s in spans if id(s[2]) not in everywhere and renderer.wanted(*s)]
    small_bytes = sum(renderer.kept_size(start, end, node) for start, end, node in small)
    if len(text) < SLICE_MIN_BYTES:
        groups = [wanted]
    elif small_bytes > SMALL_BYTES_MAX:
        return None  # every slice would carry them all: no saving
    else:
        groups = _groups(renderer, wanted)
    out = []
    for k, group in enumerate(groups):
        keep = {id(node) for _, _, node in group} | everywhere
        owned = [(start, end) for start, end, _ in group + (small if k == 0 else [])]
        source, left_out = renderer.render(spans, keep)
        if len(groups) == 1 and left_out < (1 - KEEP_MAX) * len(text):
            return None  # too little left out to pay for itself
        out.append((source, Owned(owned)))
    return out


def _kept_everywhere(spans: list[Span], rules: Sequence[type[Rule]], renderer: _Renderer) -> list[Span]:
    """The top-level statements every slice keeps: small ones and module-level assignments, every statement
    outside functions and classes where a rule reads the module as one scope (`Rule.module_level`), and those
    holding a rule's evidence from elsewhere (`Rule.kept_lines`: a slice of a big file may be far from it)."""
    always = _ASSIGNMENTS if not any(r.module_level for r in rules) else (ast.stmt,)
    return [
        span
        for span in spans
        if span[1] - span[0] + 1 <= SMALL_LINES
        or (isinstance(span[2], always) and not isinstance(span[2], SCOPES))
        or renderer.holds_kept(span[0], span[1])
    ]


def top_level(tree: ast.Module) -> list[Span] | None:
    """The spans of a file's top-level statements, where it can be sliced at all (else None)."""
    return _spans(tree.body) if _imports_torch_at_top(tree) else None


def plan_for(text: str, tree: ast.Module, rules: Sequence[type[Rule]], refs: Any, node: ast.stmt) -> tuple[str, Owned]:
    """One slice that keeps the top-level statement `node` (and what every slice keeps), owning only it: an
    editor's analysis of the one statement an edit changed (advisor.analysis.incremental)."""
    lines = split_lines(text, keepends=True)
    spans = _spans(tree.body) or []
    renderer = _Renderer(lines, rules, refs)
    small = _kept_everywhere(spans, rules, renderer)
    keep = {id(n) for _, _, n in small} | {id(node)}
    source, _ = renderer.render(spans, keep)
    own = next((start, end) for start, end, n in spans if n is node)
    return source, Owned([own])


def for_lines(text: str, tree: ast.Module, rules: Sequence[type[Rule]], refs: Any, lines: Sequence[int]) -> str | None:
    """One slice that keeps the statements holding `lines` (and what every slice keeps): what a fix of the
    findings there reads (advisor.fix.slice_edits). None: not sliceable, or nothing left out."""
    spans = top_level(tree)
    if spans is None or any(r.needs_whole_module(refs) for r in rules):
        return None
    renderer = _Renderer(split_lines(text, keepends=True), rules, refs, [*lines, *_kept_lines(rules, refs)])
    keep = {id(node) for _, _, node in _kept_everywhere(spans, rules, renderer)}
    source, left_out = renderer.render(spans, keep)
    return source if left_out else None


def thinner(lines: list[str], rules: Sequence[type[Rule]], refs: Any) -> Callable[[int, int, Any], list[str] | None]:
    """`thin(start, end, node)`: a big display's lines, thinned as a slice thins them (advisor.analysis.fragments)."""
    return _Renderer(lines, rules, refs).thinned


def _kept_lines(rules: Sequence[type[Rule]], refs: Any) -> list[int]:
    return [n for r in rules for n in r.kept_lines(refs)]


def _groups(renderer: _Renderer, wanted: list[Span]) -> list[list[Span]]:
    groups: list[list[Span]] = []
    size = 0
    for span in wanted:
        n = len(renderer.text(span[0], span[1]))
        if not groups or size + n > SLICE_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(span)
        size += n
    return groups or [[]]


def _column(line: str, byte_offset: int) -> int:
    """`ast`'s column (UTF-8 bytes) as an index into the line."""
    return len(line.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "surrogatepass"))


def _segment(lines: list[str], first: int, line: int, col: int, end_line: int, end_col: int) -> str:
    """The source text from (line, col) to (end_line, end_col), `lines` starting at line `first`."""
    a, b = lines[line - first], lines[end_line - first]
    if line == end_line:
        return a[_column(a, col) : _column(a, end_col)]
    middle = "".join(lines[line - first + 1 : end_line - first])
    return a[_column(a, col) :] + middle + b[: _column(b, end_col)]


def _blank(lines: list[str], first: int, line: int, col: int, end_line: int, end_col: int, filler: str) -> None:
    """Replace the text from (line, col) to (end_line, end_col) by `filler`, every line and every later column
    where it was (inside brackets, line breaks and spaces are free). Too short for `filler`: left as it is."""
    a = lines[line - first]
    start = _column(a, col)
    b = lines[end_line - first]
    end = _column(b, end_col)
    pad = not _NOTHING_AFTER.fullmatch(b[end:])  # what follows on the last line keeps its columns (a comma: none)
    if line == end_line:
        if end - start >= len(filler) or not pad:
            lines[line - first] = a[:start] + filler + (" " * (end - start - len(filler)) if pad else "") + a[end:]
        return
    lines[line - first] = a[:start] + filler + _ending(a)
    for k in range(line - first + 1, end_line - first):
        lines[k] = _ending(lines[k])
    lines[end_line - first] = (" " * end if pad else "") + b[end:]


class Owned:
    """The line ranges (from `ast`, decorators included) of the statements a slice owns."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self._ranges = sorted(ranges)
        self._starts = [start for start, _ in self._ranges]

    def __contains__(self, line: int) -> bool:
        i = bisect.bisect_right(self._starts, line) - 1
        return i >= 0 and line <= self._ranges[i][1]
