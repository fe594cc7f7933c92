"""Very large files are scanned a slice of top-level statements at a time.

LibCST needs ~600 bytes of memory per source byte, so torch's 1.3 MB
`common_methods_invocations.py` alone takes ~870 MB as one tree. For a scan
(never for a fix, which needs the whole tree), a file over SLICE_MIN_BYTES is
cut into slices: the top-level statements that contain a trigger of a candidate
rule, grouped up to SLICE_BYTES. Each slice is parsed as its own module in which

- small top-level statements (imports, aliases, constants) are kept verbatim, so
  names resolve as in the whole file;
- every other statement is blanked, except that a `def`/`class` leaves a stub
  and an assignment leaves `name = None`, so no module-level name changes meaning;
- every line keeps its number and every kept statement its columns, so positions
  and suppressions need no mapping.

A finding counts only in the slice that owns its statement (small statements
belong to the first slice). Rules that look at the whole module
(`visit_Module`/`leave_Module`), files without a top-level torch import, and
files with two statements on one line are never sliced.
"""

from __future__ import annotations

import bisect
import ast
from typing import Sequence
from advisor.analysis.prefilter import Prefilter
from advisor.core.textlines import split_lines

SLICE_MIN_BYTES = 512 * 1024
SLICE_BYTES = 192 * 1024
SMALL_LINES = 3  # statements this short are kept in every slice...
SMALL_BYTES_MAX = 256 * 1024  # ...unless there are so many that every slice would be most of the file


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def _stub(node: ast.stmt) -> str | None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
        return f"{prefix} {node.name}(*args, **kwargs): pass"
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}: pass"
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    names = [t.id for t in targets if isinstance(t, ast.Name)]
    if names and len(names) == len(targets):
        return " = ".join(names) + " = None"
    return None  # anything else (a big `if`/`try` at top level) is kept as it is


def _module_wide(rule: type) -> bool:
    return any(hasattr(rule, m) for m in ("visit_Module", "leave_Module"))


def _imports_torch_at_top(tree: ast.Module) -> bool:
    for node in tree.body:
        if isinstance(node, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "torch":
            return True
    return False


def plan(text: str, tree: ast.Module, rules: Sequence[type]) -> list[tuple[str, "Owned"]] | None:
    """[(slice source, the statements it owns)], or None to analyse the file whole."""
    if len(text) < SLICE_MIN_BYTES or any(_module_wide(r) for r in rules) or not _imports_torch_at_top(tree):
        return None

    lines = split_lines(text, keepends=True)  # indexed by ast's line numbers
    spans = [(_first_line(n), n.end_lineno or n.lineno, n) for n in tree.body]
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        if start <= end:  # `a = 1; b = 2`: statements share a line
            return None
    prefilter = Prefilter(rules)
    small, wanted = [], []
    for start, end, node in spans:
        if end - start + 1 <= SMALL_LINES:
            small.append((start, end, node))
        elif prefilter.candidates("".join(lines[start - 1 : end]).encode("utf-8", "surrogatepass")):
            wanted.append((start, end, node))
    if sum(len(lines[i]) for start, end, _ in small for i in range(start - 1, end)) > SMALL_BYTES_MAX:
        return None  # every slice would carry them all: no saving
    groups: list[list[tuple[int, int, ast.stmt]]] = []
    size = 0
    for span in wanted:
        n = sum(len(lines[i]) for i in range(span[0] - 1, span[1]))
        if not groups or size + n > SLICE_BYTES:
            groups.append([])
            size = 0
        groups[-1].append(span)
        size += n
    if not groups:
        groups = [[]]
    out = []
    for k, group in enumerate(groups):
        keep = {id(node) for _, _, node in group} | {id(node) for _, _, node in small}
        owned = [(start, end) for start, end, _ in group] + (
            [(start, end) for start, end, _ in small] if k == 0 else []
        )
        out.append((_render(lines, spans, keep), Owned(owned)))
    return out


class Owned:
    """The line ranges (from `ast`, decorators included) of the statements a slice owns."""

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        self._ranges = sorted(ranges)
        self._starts = [start for start, _ in self._ranges]

    def __contains__(self, line: int) -> bool:
        i = bisect.bisect_right(self._starts, line) - 1
        return i >= 0 and line <= self._ranges[i][1]


def _render(lines: list[str], spans: list[tuple[int, int, ast.stmt]], keep: set[int]) -> str:
    """The file with only `keep` statements intact; every line stays where it was."""
    out = ["\n"] * len(lines)
    for start, end, node in spans:
        if id(node) in keep:
            out[start - 1 : end] = lines[start - 1 : end]
            continue
        stub = _stub(node)
        if stub is None:
            out[start - 1 : end] = lines[start - 1 : end]
        else:
            out[start - 1] = stub + "\n"
    return "".join(out)
