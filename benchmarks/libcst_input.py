#!/usr/bin/env python3
"""Where LibCST's input comes from in a cold scan, and how much of it a finding needs.

    python benchmarks/libcst_input.py TREE [advisor scan flags...]

Runs `advisor scan TREE --format json --no-cache -j 1` in this process and reports:
- the bytes LibCST parsed (slices and whole files), and the files they came from, those of files where it found
  nothing apart; and the fragments of the statement-local rules (advisor.analysis.fragments), apart;
- of those files, the bytes of the innermost statements that hold a finding, and of their top-level statements
  (what a slice must keep at least, at each granularity);
- the bytes of top-level statements a slice kept because they refer to a reference rule's targets
  (`Rule.reports_at_references`), by rule (a statement counts once per rule it refers for).
The scan's own JSON report is written to a temporary file; nothing in the tree is changed.
"""

from __future__ import annotations

import ast
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict


def _watch() -> tuple[Counter, Counter, Counter]:
    """Count LibCST's input per file, and the statements slices keep for reference rules, as the scan runs."""
    import advisor.analysis.analyse as analyse
    import advisor.analysis.slices as slices
    from advisor.syntax.refers import refers_within

    import advisor.analysis.fragments as fragments

    parsed: Counter = Counter()
    pieces: Counter = Counter()  # the statement-local rules' fragments (advisor.analysis.fragments), per file
    by_rule: Counter = Counter()
    current = {"path": ""}
    parse_cst, analyse_source, wanted = analyse.parse_cst, analyse.analyse_source, slices._Renderer.wanted

    def counting_parse(data):
        parsed[current["path"]] += len(data)
        return parse_cst(data)

    def naming_analyse(data, path, *args, **kwargs):
        current["path"] = path
        return analyse_source(data, path, *args, **kwargs)

    def attributing_wanted(self, start, end, node):
        kept = wanted(self, start, end, node)
        if kept and node in getattr(self, "_counted", ()):
            return kept
        if kept:
            self.__dict__.setdefault("_counted", set()).add(node)
            text = self.text(start, end)
            for rule in self._matches(text.encode("utf-8", "surrogatepass")):
                targets, attributes = frozenset(rule.targets), frozenset(rule.attribute_targets)
                if rule.reports_at_references and refers_within(node, self.refs, targets, attributes):
                    by_rule[rule.code] += len(text)
        return kept

    parse_fragments = fragments.parse_unvalidated

    def counting_fragments(source):
        pieces[current["path"]] += len(source.encode("utf-8", "surrogatepass"))
        return parse_fragments(source)

    analyse.parse_cst, analyse.analyse_source = counting_parse, naming_analyse
    fragments.parse_unvalidated = counting_fragments
    slices._Renderer.wanted = attributing_wanted
    return parsed, by_rule, pieces


def _needed(path: str, lines: set[int]) -> tuple[int, int]:
    """(Bytes of the innermost statements holding `lines`, bytes of the top-level statements holding them.)"""
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    source = text.splitlines(keepends=True)
    tree = ast.parse(text)
    statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
    inner, top = set(), set()
    for line in lines:
        holding = [n for n in statements if n.lineno <= line <= (n.end_lineno or n.lineno)]
        if holding:
            best = min(holding, key=lambda n: (n.end_lineno or n.lineno) - n.lineno)
            inner.add((best.lineno, best.end_lineno or best.lineno))
        top.update((n.lineno, n.end_lineno or n.lineno) for n in tree.body if n in holding)

    def size(spans: set[tuple[int, int]]) -> int:
        return sum(len("".join(source[a - 1 : b])) for a, b in spans)

    return size(inner), size(top)


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tree, extra = sys.argv[1], sys.argv[2:]
    parsed, by_rule, pieces = _watch()
    from advisor.__main__ import main as advisor

    out = os.path.join(tempfile.mkdtemp(prefix="libcst_input_"), "scan.json")
    sys.argv = ["advisor", "scan", tree, "--format", "json", "-o", out, "--exit-zero", "--no-cache", "-j", "1", *extra]
    try:
        advisor()
    except SystemExit:
        pass
    with open(out) as f:
        findings = json.load(f)["findings"]
    lines: dict[str, set[int]] = defaultdict(set)
    for finding in findings:
        lines[os.path.realpath(finding["path"])].add(finding["line"])
    inner = top = 0
    for path in parsed:
        a, b = _needed(path, lines.get(os.path.realpath(path), set()))
        inner, top = inner + a, top + b
    print(f"LibCST parsed {sum(parsed.values()):,} bytes from {len(parsed)} files; {len(findings)} findings")
    idle = {p: n for p, n in parsed.items() if not lines.get(os.path.realpath(p))}
    print(f"  of them in files with no finding: {sum(idle.values()):,} bytes from {len(idle)} files")
    print(f"  and the statement-local rules' fragments: {sum(pieces.values()):,} bytes from {len(pieces)} files")
    print(f"  innermost statements holding a finding: {inner:,} bytes; their top-level statements: {top:,} bytes")
    print("  top-level statements kept because they refer to a reference rule's targets, by rule:")
    for code, size in by_rule.most_common(15):
        print(f"    {code}  {size:>10,}")


if __name__ == "__main__":
    main()
