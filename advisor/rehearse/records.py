"""What the tests' run showed, set against the static scan: confirmed, missed, silent.

- confirmed: a torch warning (or error) at a project line a finding spans; `rule` is that finding's rule.
- missed: one at a project line no finding spans: a gap in advisor's knowledge.
- outside: one with no project frame on its stack (torch warning while a plugin imports it, say).
- internal: one given, with no finding there, while torch's top-level code was being imported and called
  what warned (the project's `import` line is only where it surfaced): about torch's code, not the project's.
- diagnostic: a `torch.jit.TracerWarning`: the tracer saying a trace may be wrong (a tensor turned into a Python
  value), given on every torch version: not an upgrade effect, whatever finding sits there.
- pre-existing: one no finding spans that the same tests also gave with the project's lowest torch
  (`--baseline-python`): same site, category and text (normalised by `normalise`). Only would-be misses become
  pre-existing; a confirmed record stays confirmed (a deprecation warned on both is still on its way to breaking).
- silent: a deprecated or breaking finding whose line the tests ran, with nothing recorded there.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from advisor.core.findings import Finding

NOISY_KINDS = ("deprecated", "breaking")  # the findings that should make a sound when their line runs
_WORD = re.compile(r"[a-z_]{3,}")
DIAGNOSTIC_CATEGORIES = frozenset({"TracerWarning"})  # the tracer's own diagnostics, on every torch version
# What differs between two runs of the same warning: addresses, numbers (pytest's tmp_path counter, sizes, a
# version in a deprecation's text), temporary names, runs of spaces.
_VOLATILE = (
    (re.compile(r"0x[0-9a-fA-F]+"), "<address>"),
    (re.compile(r"\btmp[A-Za-z0-9_]{6,}"), "tmp_"),
    (re.compile(r"\b[0-9]+\b"), "#"),
    (re.compile(r"\s+"), " "),
)


@dataclass
class Record:
    kind: str  # "warning" or "error"
    category: str
    message: str
    path: str | None  # relative to the project root; None: no project frame
    line: int | None
    status: str = "missed"
    rule: str | None = None
    count: int = 0
    once: bool = False  # given once in the whole run: torch may give it once per process
    from_cpp: bool = False
    origin: str | None = None  # torch's C++ source, from "(Triggered internally at ...)"
    in_torch_import: bool = False  # given while torch's own module code ran on import
    finding: tuple[str, int] | None = None  # (path, line) of the finding it confirms, as the scan gives them

    def to_json(self) -> dict:
        data: dict[str, object] = {
            "path": self.path,
            "line": self.line,
            "category": self.category,
            "message": self.message,
            "status": self.status,
            "kind": self.kind,
            "count": self.count,
            "once": self.once,
            "from_cpp": self.from_cpp,
            "origin": self.origin,
            "in_torch_import": self.in_torch_import,
        }
        if self.rule:
            data["rule"] = self.rule
        if self.finding:
            data["finding"] = {"path": self.finding[0], "line": self.finding[1]}
        return data


@dataclass
class Outcome:
    records: list[Record] = field(default_factory=list)
    silent: list[Finding] = field(default_factory=list)

    @property
    def at_project_sites(self) -> list[Record]:
        return [r for r in self.records if r.status in ("confirmed", "missed")]

    def counts(self) -> dict[str, int]:
        found = {"confirmed": 0, "missed": 0, "pre-existing": 0, "diagnostic": 0, "internal": 0, "outside": 0}
        for r in self.records:
            found[r.status] += 1
        return {**found, "silent": len(self.silent)}


def normalise(message: str) -> str:
    """A warning's text as two runs of the same warning share it (see _VOLATILE)."""
    for pattern, replacement in _VOLATILE:
        message = pattern.sub(replacement, message)
    return message.strip()


def site_key(r: Record) -> tuple:
    """What makes a target run's record the same as a baseline run's: site, kind, category and normalised text."""
    return (r.path, r.line, r.kind, r.category, normalise(r.message))


def baseline_keys(events: list[dict], root: str) -> set[tuple]:
    """The site keys of what the baseline run (the project's lowest torch) recorded at a project site."""
    return {site_key(r) for r in aggregate(events, root)[0] if r.path is not None}


def finding_lines(findings: list[Finding], root: str) -> dict[str, list[int]]:
    """{absolute path: lines} the hook watches: the spans of the findings that should warn or fail."""
    lines: dict[str, set[int]] = {}
    for f in findings:
        if f.kind in NOISY_KINDS and not f.cell:
            lines.setdefault(_absolute(f.path), set()).update(range(f.line, f.end_line + 1))
    return {path: sorted(found) for path, found in lines.items()}


def _absolute(path: str) -> str:
    """A finding's path (relative to advisor's working directory, as scan prints it) made absolute."""
    return os.path.normpath(os.path.abspath(path))


def _relative(path: str, root: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def aggregate(events: list[dict], root: str) -> tuple[list[Record], set[tuple[str, int]]]:
    """Records (one per site and text, counted over every process) and the finding lines that ran."""
    records: dict[tuple, Record] = {}
    counted: dict[tuple, int] = {}
    hits: set[tuple[str, int]] = set()
    for e in events:
        if e.get("event") in ("warning", "error"):
            key = (e["event"], e.get("category"), e.get("message"), e.get("path"), e.get("line"))
            if key not in records:
                records[key] = Record(
                    e["event"],
                    str(e.get("category")),
                    str(e.get("message")),
                    e.get("path"),
                    e.get("line"),
                    from_cpp=bool(e.get("from_cpp")),
                    origin=e.get("origin"),
                    in_torch_import=bool(e.get("in_torch_import")),
                )
            records[key].count += 1  # at least once per process that saw it, even one killed before its end
        elif e.get("event") == "hit":
            hits.add((str(e.get("path")), int(e.get("line") or 0)))
        elif e.get("event") == "end":
            for key, n in e.get("counts", []):
                counted[tuple(key)] = counted.get(tuple(key), 0) + n - 1
    texts: dict[tuple, int] = {}
    for key, record in records.items():
        record.count += counted.get(key, 0)
        texts[(record.category, record.message)] = texts.get((record.category, record.message), 0) + record.count
    for record in records.values():
        record.once = texts[(record.category, record.message)] == 1
        if record.path is not None:
            record.path = _relative(record.path, root)
    return sorted(records.values(), key=_order), hits


def _order(r: Record) -> tuple:
    return (r.path is None, r.path or "", r.line or 0, r.category, r.message)


def _overlap(finding: Finding, text: str) -> int:
    return len(set(_WORD.findall(finding.message.lower())) & set(_WORD.findall(text.lower())))


def _spans(findings: list[Finding], root: str) -> dict[str, list[tuple[int, int, Finding]]]:
    """Per file, the lines each finding covers: its own span, and for a folded finding (one for the TorchScript
    calls in tests) the first line of every site it stands for, so that a warning at any of them is confirmed."""
    by_file: dict[str, list[tuple[int, int, Finding]]] = {}
    for f in findings:
        if not f.cell:
            by_file.setdefault(_relative(_absolute(f.path), root), []).append((f.line, f.end_line, f))
        for site in f.sites:
            if "cell" not in site:
                by_file.setdefault(_relative(_absolute(site["path"]), root), []).append((site["line"], site["line"], f))
    return by_file


def match(
    records: list[Record],
    hits: set[tuple[str, int]],
    findings: list[Finding],
    root: str,
    baseline: set[tuple] | None = None,
) -> Outcome:
    """Tie each record to the finding that spans its line (the one whose message shares most words with it);
    `baseline`: the site keys the same tests gave on the project's lowest torch, None when not run."""
    by_file = _spans(findings, root)
    tied: set[Finding] = set()
    for r in records:
        r.status, r.rule, r.finding = "missed", None, None  # unless a case below says otherwise
        if r.path is None:
            r.status = "outside"
            continue
        if r.category in DIAGNOSTIC_CATEGORIES:
            r.status = "diagnostic"
            continue
        spanning = [f for first, last, f in by_file.get(r.path, []) if first <= (r.line or 0) <= last]
        if not spanning and r.in_torch_import:
            r.status = "internal"
        elif not spanning and baseline is not None and site_key(r) in baseline:
            r.status = "pre-existing"
        elif spanning:
            best = max(spanning, key=lambda f: (_overlap(f, r.message), f.kind in NOISY_KINDS, f.rule))
            r.status, r.rule, r.finding = "confirmed", best.rule, (best.path, best.line)
            tied.update(f for f in spanning if f.rule == best.rule)
    ran = {(_relative(p, root), n) for p, n in hits}
    silent = [
        f
        for f in findings
        if f.kind in NOISY_KINDS
        and f not in tied
        and any((_relative(_absolute(f.path), root), n) in ran for n in range(f.line, f.end_line + 1))
    ]
    return Outcome(records, sorted(silent, key=Finding.sort_key))
