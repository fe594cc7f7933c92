#!/usr/bin/env python3
"""Do the `ast` compat gates (advisor.analysis.ast_compat) and LibCST's (advisor.analysis.compat_marks) agree?

    python benchmarks/compat_agreement.py TREE [TREE...] [--jobs 2] [--show 20]

For every .py file under each tree, both decide for every name, attribute and call what `compat_marks.mark` decides
for a report there: not in an old-torch-only branch, old-only from an unknown release, or old-only until a release.
Nodes are paired by kind and span, as in `benchmarks/resolver_agreement.py`. Prints the nodes compared, how many lie
in old-only branches, and each answer that differs. Exit status 1 where one does.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from resolver_agreement import ast_nodes, cst_nodes, tree_files  # noqa: E402

KINDS = (ast.Name, ast.Attribute, ast.Call)


def _plain(until) -> str:
    from advisor.analysis.compat import _MISSING, _UNKNOWN

    return "-" if until is _MISSING else "unknown" if until is _UNKNOWN else str(until)


def compare(path: str) -> tuple[str, int, int, list, str]:
    """(path, nodes compared, of them in old-only branches, differing answers, error)."""
    from advisor.analysis import compat_marks
    from advisor.analysis.analyse import decode
    from advisor.analysis.ast_compat import AstCompat
    from advisor.syntax.ast_source import Source
    from advisor.analysis.facts import Facts
    from advisor.syntax.ast_names import AstResolver
    from advisor.syntax.names import NameResolver
    from advisor.syntax.walk import walk

    with open(path, "rb") as f:
        data = f.read()
    try:
        text, _ = decode(data)
        tree, ours = ast_nodes(text, KINDS)
        module, theirs = cst_nodes(data)
    except Exception as e:  # noqa: BLE001  (a file either parser rejects)
        return path, 0, 0, [], f"{type(e).__name__}: {str(e)[:80]}"
    mine = AstCompat(tree, AstResolver(tree, text), Source(text), path)
    facts = Facts()
    walk(module, [facts], parents=facts.parents)
    branches = compat_marks._Branches(module, NameResolver(module), facts, path)
    differ, old = [], 0
    for key, node in ours.items():
        other = theirs.get(key)
        if other is None:
            continue
        until = branches.until(other)
        if until is compat_marks._MISSING:
            root = compat_marks._root_name(other)
            until = compat_marks._both(root.value, branches) if root is not None else compat_marks._MISSING
        a, b = _plain(mine.compat_of(node)), _plain(until)
        old += b != "-"
        if a != b:
            differ.append((key, a, b))
    return path, len(ours), old, differ, ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=20)
    args = parser.parse_args()
    paths = tree_files(args.trees)
    compared = old = errors = 0
    differ: list = []
    with ProcessPoolExecutor(args.jobs) as pool:
        for path, n, o, d, error in pool.map(compare, paths, chunksize=4):
            compared, old, errors = compared + n, old + o, errors + bool(error)
            differ += [(path, *x) for x in d]
    print(f"{len(paths)} files ({errors} rejected by a parser), {compared:,} names, attributes and calls")
    print(f"in old-only branches (LibCST): {old:,}; answers that differ: {len(differ)}")
    for path, key, ours, theirs in differ[: args.show]:
        print(f"  {path}:{key[1]}:{key[2] + 1} {key[0]}  ast {ours}  LibCST {theirs}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
