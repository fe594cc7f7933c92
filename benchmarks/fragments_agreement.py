#!/usr/bin/env python3
"""Do the statement-local rules find on fragments (advisor.analysis.fragments) what they find in the whole file?

    python benchmarks/fragments_agreement.py TREE [TREE...]

For every .py file under each tree (up to 2 MB), the statement-local rules alone (so that the fragments run wherever
they can) analyse the file twice: as a scan does (`sliced=True`: the fragments, or LibCST where they leave a rule)
and whole with LibCST (`sliced=False`). Prints each file whose findings (position, message, snippet, kind, fix,
data), errors or suppressed count differ, then the count of files, of differences, and of (file, rule) pairs the
fragments reported. Exit status 1 where one differs.
"""

from __future__ import annotations

import glob
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check(path: str) -> tuple[str, str, int]:
    """(path, "same" / "big" / what differs, the (file, rule) pairs the fragments reported)."""
    from advisor.analysis import fragments
    from advisor.analysis.analyse import analyse
    from advisor.analysis.registry import all_rules
    from advisor.core.settings import settings_at

    rules = [r for r in all_rules() if r.statement_local]
    with open(path, "rb") as f:
        data = f.read()
    if len(data) > 2 * 1024 * 1024:
        return path, "big", 0
    done: list[int] = []
    real = fragments.report

    def counting(found, refs, given, *args):
        left = real(found, refs, given, *args)
        done.append(len(given) - len(left))
        return left

    def findings(sliced: bool):
        result, _ = analyse(data, path, rules, settings_at("2.15"), sliced=sliced)
        shown = [
            (f.rule, f.line, f.column, f.end_line, f.end_column, f.message, f.snippet, f.kind, f.fix, f.data)
            for f in result.findings
        ]
        return shown, [e.message for e in result.errors], result.suppressed

    fragments.report = counting
    try:
        scan = findings(True)
    finally:
        fragments.report = real
    whole = findings(False)
    return path, "same" if scan == whole else f"differs: {scan} / {whole}", sum(done)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    files = sorted(p for tree in sys.argv[1:] for p in glob.glob(os.path.join(tree, "**", "*.py"), recursive=True))
    counts: Counter = Counter()
    pairs = 0
    with ProcessPoolExecutor(2) as pool:
        for path, outcome, done in pool.map(check, files, chunksize=8):
            counts[outcome if outcome in ("same", "big") else "differs"] += 1
            pairs += done
            if outcome not in ("same", "big"):
                print(path, outcome[:600])
    print(f"{len(files)} files: {dict(counts)}; (file, rule) pairs reported on fragments: {pairs}")
    sys.exit(1 if counts["differs"] else 0)


if __name__ == "__main__":
    main()
