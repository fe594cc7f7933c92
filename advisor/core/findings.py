"""Findings and file errors: the plain data every consumer reads.

A finding is born in `advisor.rule.Rule.report` (called from a rule's visit
method), gets its position in `advisor.analysis.analyse`, and is printed by the modules
in `advisor.report.output`. Nothing here knows about libcst.
"""

from __future__ import annotations

import enum
import re
from dataclasses import asdict, dataclass, field, fields
from collections import Counter
from typing import Any, Iterable

from advisor.core.plain import Frozen, Plain, init
from advisor.core.releases import OLDEST


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANKS.index(self.value)


_SEVERITY_RANKS = ("info", "warning", "error")  # lowest first


class Applicability(str, enum.Enum):
    """How far a rule's fix can be trusted (Ruff's model)."""

    NONE = "none"
    SAFE = "safe"  # behaviour is preserved on the target torch
    UNSAFE = "unsafe"  # behaviour, semantics or state may change: review it


class Kind(str, enum.Enum):
    """What a finding means for the target torch (decided by `advisor.core.policy`)."""

    BREAKING = "breaking"  # fails on the target
    DEPRECATED = "deprecated"  # warns on the target
    ADVICE = "advice"  # nothing fails or warns: review it when convenient
    COMPAT = "compat"  # old API in code that runs only on old torch: never fixed


KINDS = tuple(k.value for k in Kind)


class Window(Frozen):
    """When an API changed, as torch releases ("2.4"); None: never.

    `since`: the replacement exists from this release; `deprecated_in`: first release
    that warns; `removed_in`: first release where using it fails; `undeprecated_in`:
    first release where the deprecation was withdrawn.
    """

    __slots__ = ("since", "deprecated_in", "removed_in", "undeprecated_in")
    since: str
    deprecated_in: str | None
    removed_in: str | None
    undeprecated_in: str | None

    def __init__(
        self,
        since: str = OLDEST,
        deprecated_in: str | None = None,
        removed_in: str | None = None,
        undeprecated_in: str | None = None,
    ) -> None:
        init(self, since, deprecated_in, removed_in, undeprecated_in)


class Safety(Frozen):
    """A fix that does the same as the old code only from `same_from` on; below it, `differs` says what changes
    (the policy then makes the fix unsafe and says so)."""

    __slots__ = ("same_from", "differs", "exists_from")
    same_from: str
    differs: str
    # Where the new form exists from a release other than the window's `since` (None: `since`): a rule
    # reported only from a behaviour change (ADV716, the `weights_only` default flip in 2.6) whose
    # replacement is older (`weights_only=` exists since 1.13, so from the catalogue's first release).
    exists_from: str | None

    def __init__(self, same_from: str, differs: str, exists_from: str | None = None) -> None:
        init(self, same_from, differs, exists_from)


def kind_counts(findings: "Iterable[Finding]") -> dict[str, int]:
    """{"breaking": n, "deprecated": n, "advice": n, "compat": n}."""
    kinds = Counter(f.kind for f in findings)
    return {k: kinds[k] for k in KINDS}


def fix_counts(findings: "Iterable[Finding]") -> dict[str, int]:
    """{"safe": n, "unsafe": n}: the findings an automatic fix can rewrite, by applicability."""
    fixes = Counter(f.fix for f in findings)
    return {a.value: fixes[a.value] for a in (Applicability.SAFE, Applicability.UNSAFE)}


@dataclass(frozen=True, init=False, eq=False, repr=False)
class Finding:
    """One finding. A frozen dataclass (the analysis and the fixer change copies with `dataclasses.replace`), whose
    `__init__`, `__eq__`, `__hash__` and `__repr__` are written here as `@dataclass` would generate them: generating
    them at every start cost more than the rest of the module. `data` is neither compared nor hashed."""

    rule: str
    name: str
    severity: str
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int
    message: str
    fix: str | None  # Applicability.SAFE or .UNSAFE (their values: JSON and the cache are strings); None: no fix
    validation: str | None
    replacement: str | None = None  # source text of the fixed node, when there is a fix
    snippet: str = ""  # normalized source of the flagged node (baselines, reports)
    data: dict = field(default_factory=dict, hash=False, compare=False)  # rule-specific facts (e.g. literal shapes)
    kind: str = Kind.ADVICE.value  # a Kind's value (advisor.core.policy)
    warns_from: str | None = None  # the window's deprecated_in
    breaks_in: str | None = None  # the window's removed_in

    def __init__(
        self,
        rule: str,
        name: str,
        severity: str,
        path: str,
        line: int,
        column: int,
        end_line: int,
        end_column: int,
        message: str,
        fix: str | None,
        validation: str | None,
        replacement: str | None = None,
        snippet: str = "",
        data: dict | None = None,
        kind: str = Kind.ADVICE.value,
        warns_from: str | None = None,
        breaks_in: str | None = None,
    ) -> None:
        values: tuple[Any, ...] = (
            rule,
            name,
            severity,
            path,
            line,
            column,
            end_line,
            end_column,
            message,
            fix,
            validation,
        )
        values += (replacement, snippet, {} if data is None else data, kind, warns_from, breaks_in)
        for key, value in zip(_FINDING_FIELDS, values):
            object.__setattr__(self, key, value)

    def _compared(self) -> tuple[Any, ...]:
        return tuple(getattr(self, key) for key in _FINDING_COMPARED)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._compared() == other._compared()  # type: ignore[attr-defined]
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._compared())

    def __repr__(self) -> str:
        shown = ", ".join(f"{key}={getattr(self, key)!r}" for key in _FINDING_FIELDS)
        return f"{self.__class__.__qualname__}({shown})"

    @property
    def cell(self) -> int | None:
        """The notebook cell (1-based) for findings in .ipynb files."""
        return self.data.get("cell")

    @property
    def file_region(self) -> tuple[int, int, int, int]:
        """(line, column, end line, end column) in the file itself. For a notebook finding, where
        its cell's line is written in the `.ipynb` JSON (what GitHub annotates); else its own span."""
        region = self.data.get("file_region")
        return tuple(region) if region else (self.line, self.column, self.end_line, self.end_column)  # type: ignore[return-value]

    @property
    def location(self) -> str:
        """`path:line:col`, or `notebook.ipynb:cell N:line:col`."""
        where = f"{self.path}:cell {self.cell}" if self.cell else self.path
        return f"{where}:{self.line}:{self.column}"

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.cell or 0, self.line, self.column, self.rule, self.message)

    @property
    def sites(self) -> list[dict[str, Any]]:
        """Every call site a folded finding stands for (advisor.run.tests_summary); [] for others."""
        return list(self.data.get("summary", {}).get("sites", ()))

    def to_json(self) -> dict[str, Any]:
        out = self._json()
        if self.sites:
            out["sites"] = self.sites
        return out

    def _json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "fix": self.fix_json(),
            "validation": self.validation,
            "cell": self.cell,
            "kind": self.kind,
            "warns_from": self.warns_from,
            "breaks_in": self.breaks_in,
        }

    def fix_json(self) -> dict[str, Any] | None:
        """The fix with the range its replacement covers (a cell's lines in a notebook), which may be narrower
        than the finding's: replacing exactly that range with `replacement` is the fix's edit."""
        if not self.fix:
            return None
        span = self.data.get("fix_range")
        where = dict(zip(("line", "column", "end_line", "end_column"), span)) if span else None
        return {"applicability": self.fix, "replacement": self.replacement, "range": where}

    @property
    def when(self) -> str:
        """ "warns from 2.13, breaks in 2.14" (either part may be absent; "" when neither)."""
        parts = [f"warns from {self.warns_from}"] if self.warns_from else []
        # Not twice: a finding already broken on the target says so first ("breaks in 2.11: ...").
        if self.breaks_in and not self.message.startswith(f"breaks in {self.breaks_in}:"):
            parts.append(f"breaks in {self.breaks_in}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_FINDING_FIELDS = tuple(f.name for f in fields(Finding))  # in __init__'s order
_FINDING_COMPARED = tuple(f.name for f in fields(Finding) if f.compare)  # all but data
_AT = r"\(line (\d+), column (\d+)\)$"  # compiled on first use, by re's own cache: only files with errors


class FileError(Frozen):
    __slots__ = ("path", "message")
    path: str
    message: str

    def __init__(self, path: str, message: str) -> None:
        init(self, path, message)

    @property
    def location(self) -> str:
        """`path:line:col` when the message ends with the parser's "(line N, column M)", else `path`."""
        m = re.search(_AT, self.message)
        return f"{self.path}:{m.group(1)}:{m.group(2)}" if m else self.path

    def to_json(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message}


class FileResult(Plain):
    """What analysing one file produced. Cached as JSON by content hash."""

    __slots__ = ("path", "findings", "errors", "suppressed", "markers", "parsed", "edits")
    path: str
    findings: list[Finding]
    errors: list[FileError]
    suppressed: int
    markers: list[list]  # [[ROCm marker text, line], ...] (advisor.run.device)
    parsed: bool  # the file was parsed (not just prefiltered), on this run or the one cached
    edits: list | None  # its JSON fix edits, made by the worker from its analysis (advisor.fix.file_edits): not cached

    def __init__(
        self,
        path: str,
        findings: list[Finding] | None = None,
        errors: list[FileError] | None = None,
        suppressed: int = 0,
        markers: list[list] | None = None,
        parsed: bool = False,
        edits: list | None = None,
    ) -> None:
        self.path = path
        self.edits = edits
        self.findings = [] if findings is None else findings
        self.errors = [] if errors is None else errors
        self.suppressed = suppressed
        self.markers = [] if markers is None else markers
        self.parsed = parsed

    def to_dict(self) -> dict[str, Any]:
        return {
            "findings": [f.to_dict() for f in self.findings],
            "errors": [e.message for e in self.errors],
            "suppressed": self.suppressed,
            "markers": self.markers,
            "parsed": self.parsed,
        }

    @classmethod
    def from_dict(cls, path: str, data: dict[str, Any]) -> "FileResult":
        return cls(
            path=path,
            findings=[Finding(**{**f, "path": path}) for f in data["findings"]],
            errors=[FileError(path, m) for m in data["errors"]],
            suppressed=data.get("suppressed", 0),
            markers=data.get("markers", []),
            parsed=data.get("parsed", False),
        )


class ScanResult(Plain):
    __slots__ = ("results", "files_scanned", "files_parsed", "files_cached")
    results: list[FileResult]
    files_scanned: int
    files_parsed: int
    files_cached: int

    def __init__(
        self,
        results: list[FileResult] | None = None,
        files_scanned: int = 0,
        files_parsed: int = 0,
        files_cached: int = 0,
    ) -> None:
        self.results = [] if results is None else results
        self.files_scanned = files_scanned
        self.files_parsed = files_parsed
        self.files_cached = files_cached

    @property
    def findings(self) -> list[Finding]:
        return sorted((f for r in self.results for f in r.findings), key=Finding.sort_key)

    @property
    def errors(self) -> list[FileError]:
        return sorted((e for r in self.results for e in r.errors), key=lambda e: e.path)

    @property
    def files_needing_parse(self) -> int:
        """Files whose analysis parsed them, on this run or on the run whose result was cached."""
        return sum(r.parsed for r in self.results)

    @property
    def suppressed(self) -> int:
        return sum(r.suppressed for r in self.results)
