#!/usr/bin/env python3
"""Does the text gate (advisor.analysis.text_gate) ever rule out a rule that `may_match` keeps? For every file of
a tree the prefilter lets through, each candidate rule's gate is asked of the text and `may_match` of the file's
`ast` references; a rule that `may_match` keeps and its gate rules out is a disagreement (there must be none).

    python benchmarks/text_gate_agreement.py TREE [advisor scan flags...]

Prints the disagreements, the files (and bytes) the gate leaves unparsed, those no rule keeps after the parse, and
the gate's CPU seconds.
"""

from __future__ import annotations

import os
import sys
import time


def main() -> None:
    os.environ.setdefault("ADVISOR_ISOLATE_MIN_BYTES", str(10**9))  # every job in this process
    import advisor.run.engine as engine
    from advisor.analysis import lazy_helpers
    from advisor.analysis.analyse import SourceError, decode, guard_tree
    from advisor.analysis.prefilter import _SPACES
    from advisor.analysis.registry import rule_by_code
    from advisor.analysis.text_gate import FileText

    jobs: list[tuple[str, bytes, tuple[str, ...]]] = []
    analyse = engine._analyse_job

    def kept(job, incremental=False):  # type: ignore[no-untyped-def]
        jobs.append((job.path, job.data, job.codes))
        return analyse(job, incremental)

    engine._analyse_job = kept
    # Every candidate the prefilter finds, as before the gate: the scan asks without the file's importing calls.
    candidates = engine.ScanOptions.candidates

    def ungated(self, path, data):  # type: ignore[no-untyped-def]
        if self._prefilter is None:
            from advisor.analysis.prefilter import Prefilter

            self._prefilter = Prefilter(self.rules)
        return tuple(r.code for r in self.rules_for(path, self._prefilter.candidates(data)))

    engine.ScanOptions.candidates = ungated
    from advisor.__main__ import main as advisor

    sys.argv = ["advisor", "scan", *sys.argv[1:], "-j", "1", "--no-cache", "--format", "json", "-q", "--exit-zero"]
    sys.argv += ["-o", os.devnull]
    try:
        advisor()
    except SystemExit:
        pass
    engine.ScanOptions.candidates = candidates
    disagree, gated, gated_bytes, dead, dead_bytes, cpu = [], 0, 0, 0, 0, 0.0
    for path, data, codes in jobs:
        rules = [rule_by_code(c) for c in codes]
        start = time.process_time()
        text = FileText(data, frozenset(data.translate(_SPACES).split()), lazy_helpers.importing_calls(path))
        passes = {r.code: r.text_gate() is None or text.passes(r.text_gate()) for r in rules}
        cpu += time.process_time() - start
        try:
            _, refs = guard_tree(decode(data)[0], path)
        except SourceError:
            continue
        matching = {r.code for r in rules if r.may_match(refs)}
        disagree += [(code, path) for code in sorted(matching) if not passes[code]]
        if not any(passes.values()):
            gated, gated_bytes = gated + 1, gated_bytes + len(data)
        if not matching:
            dead, dead_bytes = dead + 1, dead_bytes + len(data)
    for code, path in disagree:
        print(f"DISAGREE {code} {path}")
    print(f"{len(jobs)} files let through by the prefilter; {len(disagree)} disagreements")
    print(f"left unparsed by the gate: {gated} files, {gated_bytes / 1e6:.2f} MB")
    print(f"kept by no rule after the parse: {dead} files, {dead_bytes / 1e6:.2f} MB")
    print(f"the gate (every candidate asked): {cpu:.2f} CPU-s")


if __name__ == "__main__":
    main()
