#!/usr/bin/env python3
"""Do the `ast` resolver (advisor.syntax.ast_names) and the LibCST one (advisor.syntax.names) agree, on real code?

    python benchmarks/resolver_agreement.py TREE [TREE...] [--jobs 2] [--show 20]

For every .py file under each tree, both resolvers answer for every name, attribute and `getattr(obj, "name")`
call of `ast`'s tree; each `ast` node is paired with the LibCST node of the same kind and the same span (lines,
and columns in characters: LibCST's positions, `advisor.analysis.positions`). Prints the nodes compared, the
answers that differ (each with its file, line and both answers), the `ast` nodes with no LibCST partner, and
the CPU seconds each resolver took (LibCST's without its parse, `ast`'s without `ast.parse`). A file either
parser rejects is counted and skipped. Exit status 1 where an answer differs.
"""

from __future__ import annotations

import argparse
import ast
import functools
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ast_nodes(text: str, kinds: tuple = (ast.Name, ast.Attribute)) -> tuple[ast.Module, dict[tuple, Any]]:
    """The module's `ast` tree, and its nodes of `kinds` (calls: `getattr` ones only, unless `kinds` names
    `ast.Call` itself) by (kind, line, column, end line, end column), columns in characters."""
    tree = ast.parse(text)
    lines = [line.encode("utf-8", "surrogatepass") for line in _lines(text)]

    def column(line: int, offset: int) -> int:
        return len(lines[line - 1][:offset].decode("utf-8", "surrogatepass"))

    out = {}
    for node in ast.walk(tree):
        t = type(node)
        if t not in kinds and not (t is ast.Call and type(node.func) is ast.Name and node.func.id == "getattr"):
            continue
        if t in (ast.Name, ast.Attribute, ast.Call):
            key = (
                t.__name__,
                node.lineno,
                column(node.lineno, node.col_offset),
                node.end_lineno,
                column(node.end_lineno, node.end_col_offset),
            )
            out[key] = node
    return tree, out


def _lines(text: str) -> list[str]:
    from advisor.core.textlines import split_lines

    return split_lines(text, keepends=True) or [""]


def cst_nodes(data: bytes) -> tuple[Any, dict[tuple, Any]]:
    """LibCST's module, and its names, attributes and calls by the keys `ast_nodes` gives them."""
    import libcst as cst

    from advisor.analysis.parser import parse_unvalidated
    from advisor.analysis.positions import compute_positions

    module = parse_unvalidated(data)
    positions = compute_positions(module)
    out = {}

    class Nodes(cst.CSTVisitor):
        def visit_Name(self, node):
            self._add("Name", node)

        def visit_Attribute(self, node):
            self._add("Attribute", node)

        def visit_Call(self, node):
            self._add("Call", node)

        def _add(self, kind, node):
            line, col, end_line, end_col = positions[id(node)]
            out[(kind, line, col, end_line, end_col)] = node

    module.visit(Nodes())
    return module, out


def _ast_answers(text: str, lazy: bool = False) -> tuple[dict[tuple, frozenset[str]], float]:
    from advisor.syntax.ast_names import AstResolver

    tree, nodes = ast_nodes(text)
    parents = None
    if lazy and not any(isinstance(n, ast.Global) for n in ast.walk(tree)):
        parents = {id(c): (p, "") for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    start = time.process_time()
    resolver = AstResolver(tree, text, parents=parents)
    seconds = time.process_time() - start
    return {key: frozenset(resolver.qualnames(node)) for key, node in nodes.items()}, seconds


def _cst_answers(data: bytes) -> tuple[dict[tuple, frozenset[str]], float]:
    from advisor.syntax.names import NameResolver

    module, nodes = cst_nodes(data)
    start = time.process_time()
    resolver = NameResolver(module)
    seconds = time.process_time() - start
    return {key: frozenset(resolver.qualnames(node)) for key, node in nodes.items()}, seconds


def tree_files(trees: list[str]) -> list[str]:
    return sorted(
        os.path.join(root, name)
        for tree in trees
        for root, _, names in os.walk(tree)
        for name in names
        if name.endswith(".py")
    )


def compare(path: str, lazy: bool = False) -> tuple[str, int, list, list, float, float, str]:
    """(path, nodes compared, differing answers, unpaired ast nodes, ast CPU s, LibCST CPU s, error)."""
    from advisor.analysis.analyse import decode

    with open(path, "rb") as f:
        data = f.read()
    try:
        text, _ = decode(data)
        ours, ast_seconds = _ast_answers(text, lazy)
        theirs, cst_seconds = _cst_answers(data)
    except Exception as e:  # noqa: BLE001  (a file either parser rejects: counted)
        return path, 0, [], [], 0.0, 0.0, f"{type(e).__name__}: {str(e)[:80]}"
    differ, unpaired = [], []
    for key, answer in ours.items():
        other = theirs.get(key)
        if other is None:
            if answer:
                unpaired.append((key, sorted(answer)))
        elif other != answer:
            differ.append((key, sorted(answer), sorted(other)))
    return path, len(ours), differ, unpaired, ast_seconds, cst_seconds, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=20)
    parser.add_argument("--lazy", action="store_true", help="the resolver walks bodies on demand, as a scan's")
    args = parser.parse_args()
    paths = tree_files(args.trees)
    compared = errors = 0
    differ: list = []
    unpaired: list = []
    ast_seconds = cst_seconds = 0.0
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, n, d, u, a, c, error in pool.map(functools.partial(compare, lazy=args.lazy), paths, chunksize=8):
            compared += n
            errors += bool(error)
            differ += [(path, *x) for x in d]
            unpaired += [(path, *x) for x in u]
            ast_seconds += a
            cst_seconds += c
    print(f"{len(paths)} files ({errors} rejected by a parser), {compared:,} names, attributes and getattr calls")
    print(f"answers that differ: {len(differ)}; ast nodes with an answer and no LibCST partner: {len(unpaired)}")
    print(f"resolver CPU seconds: ast {ast_seconds:.2f}, LibCST {cst_seconds:.2f}")
    for path, key, ours, theirs in differ[: args.show]:
        print(f"  {path}:{key[1]}:{key[2] + 1} {key[0]}  ast {ours}  LibCST {theirs}")
    for path, key, ours in unpaired[: args.show]:
        print(f"  unpaired {path}:{key[1]}:{key[2] + 1} {key[0]} {ours}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
