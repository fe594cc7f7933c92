"""The findings of the table-driven reference rules (`SymbolRule`s), made from the `ast` tree (issue #35).

A scan parses every candidate file with `ast` (the guard, advisor.analysis.analyse); LibCST costs ten times that per
byte. A `SymbolRule` needs LibCST only to write a fix; its detection is name resolution (advisor.syntax.ast_names),
and what the passes decide for its reports is found upward from the node (compat gates: advisor.analysis.ast_compat;
annotations, patches and scopes: below). So a scan reports such a rule here, in a file where none of its reports
gets a fix (the policy decides, as always: advisor.core.policy), and leaves it to LibCST otherwise: in that file the
rule runs on LibCST as before, all its reports there. A rule with hooks of its own (`visit_Call`, `leave_Module`...)
always runs on LibCST. Each finding is shaped by `advisor.analysis.place.shaped`, as LibCST's are.
"""

from __future__ import annotations

import ast
from typing import Any, Sequence

from advisor.analysis.ast_compat import AstCompat
from advisor.analysis.ast_detect import Detection, Survey
from advisor.analysis.ast_gates import dotted
from advisor.syntax.ast_source import Source
from advisor.analysis.compat import _MISSING, _UNKNOWN
from advisor.analysis.place import decide, shaped
from advisor.analysis.sites import NOTE
from advisor.analysis.suppressions import Suppressions
from advisor.core.findings import Applicability, Finding, Kind
from advisor.core.lazy import reraise_interrupt
from advisor.rule import Report, Rule
from advisor.rule.reference import SymbolRule
from advisor.syntax.ast_names import AstResolver

_HOOKS = ("on_call", "on_reference", "reference_applicability", "symbol_window", "match", "qualnames", "report")


def eligible(rule: Any) -> bool:
    return detection_of(rule) is not None


def detection_of(rule: Any) -> str | None:
    """`SymbolRule.ast_detection` of the class that sets it, where `rule` keeps every hook of that class (a table
    drives it), else None. Asked for each candidate rule of each file: worked out once per rule (`dir` is slow)."""
    if rule not in _DETECTION:
        _DETECTION[rule] = _detection_of(rule)
    return _DETECTION[rule]


_DETECTION: dict[Any, str | None] = {}


def _detection_of(rule: Any) -> str | None:
    if not isinstance(rule, type) or not issubclass(rule, SymbolRule) or rule.attribute_targets:
        return None
    owner = next(k for k in rule.__mro__ if "ast_detection" in k.__dict__)
    names = {n for n in dir(rule) if n.startswith(("visit_", "leave_"))} | set(_HOOKS)
    if all(getattr(rule, n, None) is getattr(owner, n, None) for n in names):
        return owner.ast_detection  # type: ignore[attr-defined]
    return None


class AstFindings:
    """Findings of the eligible rules in one file: `report(rules)` answers the rules it could not report."""

    def __init__(self, tree: ast.Module, text: str, refs: Any, path: str, settings: Any, importing_calls: tuple):
        self.tree, self.text, self.path = tree, text, path
        self.alias_names = refs.alias_names()
        self.target, self.lowest = settings.versions.target_tuple, settings.versions.lowest_tuple
        self.importing_calls = importing_calls
        self.resolver: Any = None  # made with the survey, whose parents let it walk only the bodies asked about
        self.source = Source(text)
        self._survey: Survey | None = None
        self._compat: AstCompat | None = None
        self._suppressions: Suppressions | None = None
        self.findings: list[Finding] = []
        self.suppressed = 0

    def report(self, rules: Sequence[Any], also: frozenset[str] = frozenset()) -> list[Any]:
        """Report what it can of `rules`; the rules left to LibCST. `also`: more names whose nodes the survey
        collects (the statement-local rules' words: advisor.analysis.fragments)."""
        self.survey(also.union(*(r.last_names() for r in rules if eligible(r))))
        left = []
        for rule in rules:
            if not eligible(rule):
                left.append(rule)
                continue
            try:
                done = self._rule(rule)
            except Exception as e:  # the rule runs on LibCST instead, as it did before this path
                reraise_interrupt(e)
                done = False
            if not done:
                left.append(rule)
        return left

    def survey(self, wanted: frozenset[str] = frozenset()) -> Survey:
        """The file's one walk (its events: the nodes that may refer to `wanted`), and the resolver it lets walk
        only the bodies asked about; made once."""
        if self._survey is None:
            survey = self._survey = Survey(self.tree, wanted, self.alias_names)
            parents = None if survey.has_global else survey.parents
            self.resolver = AstResolver(self.tree, self.text, self.importing_calls, parents)
        return self._survey

    def _rule(self, rule: type[SymbolRule]) -> bool:
        """Report `rule` (True), or nothing where one of its reports gets a fix or cannot be shaped here (False)."""
        assert self._survey is not None
        kind = detection_of(rule)
        reports = Detection(rule, kind, self.resolver, self.alias_names, self.target).run(self._survey.events)
        return self.shape(rule, reports, self.span, lambda node: node, self.snippet)

    def shape(
        self, rule: type[Rule], reports: Sequence[tuple[Report, Any]], span: Any, partner: Any, snippet: Any
    ) -> bool:
        """The findings of `rule`'s reports, each (report, node), as `place` makes them (the first report of a node
        kept; suppressions; the passes; the policy), added (True); or none where one gets a fix (LibCST writes it),
        or has no `ast` node or no certain snippet (False). `span(node)`: its span in the file; `partner(node)`: the
        `ast` node the passes go up from, or None; `snippet(node)`: its code as LibCST's, or None."""
        made: list[Finding] = []
        suppressed = 0
        seen: set[tuple[int, int]] = set()
        for rep, node in reports:
            at = span(node)
            if at[:2] in seen:  # two visit paths reported the same node (as `place` keeps the first)
                continue
            seen.add(at[:2])
            if self.suppressions().is_suppressed(rule.code, at[0], at[2]):
                suppressed += 1
                continue
            up = partner(node)
            if up is None:
                return False
            self.passes(rule, rep, up)
            decision = decide(rule, rep, self.target, self.lowest)
            if decision is None:
                continue
            if decision.applicability is not Applicability.NONE:
                return False
            code = snippet(node)
            if code is None:
                return False
            made.append(shaped(rule, rep, decision, self.path, at, code, None, {id(node): at}))
        self.findings += made
        self.suppressed += suppressed
        return True

    def suppressions(self) -> Suppressions:
        if self._suppressions is None:
            self._suppressions = Suppressions(self.text)
        return self._suppressions

    # -- the passes, upward from the node --------------------------------------------------------------

    def passes(self, rule: type[Rule], rep: Report, node: Any) -> None:
        """compat_marks.mark, sites.annotations_to_advice and sites.mark_scopes, for one report."""
        if self._compat is None:
            assert self._survey is not None
            survey = self._survey
            self._compat = AstCompat(self.tree, self.resolver, self.source, self.path, survey.parents, survey.bindings)
        until = self._compat.compat_of(node)
        if until is not _MISSING:
            rep.compat, rep.compat_until = True, None if until is _UNKNOWN else until
            rep.replacement, rep.applicability = None, Applicability.NONE
        chain, fields = self._compat.chain(node)
        if rep.kind is None and not rep.compat:
            if _in_annotation(chain, fields):
                rep.kind, rep.message = Kind.ADVICE, rep.message + NOTE
            elif _patched(node, chain):
                rep.kind = Kind.ADVICE
        if rule.said_once_in_tests and not rep.compat:
            rep.data = {**(rep.data or {}), "scope": _scope(chain, fields)}

    # -- positions and code, as LibCST's ---------------------------------------------------------------

    def span(self, node: Any) -> tuple[int, int, int, int]:
        return (
            node.lineno,
            self._column(node.lineno, node.col_offset),
            node.end_lineno,
            self._column(node.end_lineno, node.end_col_offset),
        )

    def _column(self, line: int, offset: int) -> int:
        """`ast`'s UTF-8 offset as LibCST's column (characters)."""
        raw = self.source.segment_line(line)
        return offset if raw.isascii() else len(raw[:offset].decode("utf-8", "surrogatepass"))

    def snippet(self, node: Any) -> str | None:
        """LibCST's code for the node: with its own parentheses and what lies between them (comments too); None
        where those are not certain."""
        span = self._with_parens(node)
        if span is None:
            return None
        (line, start), (end_line, end) = span
        lines = [self.source.segment_line(n) for n in range(line, end_line + 1)]
        lines[-1] = lines[-1][:end]
        lines[0] = lines[0][start:]
        return b"".join(lines).decode("utf-8", "surrogatepass")

    def _with_parens(self, node: Any) -> tuple[tuple[int, int], tuple[int, int]] | None:
        """(line, offset) of the node's start and end with its own parentheses (LibCST's `lpar`: those around it,
        less a call's own around its one argument); None where a comment could hide one, or a `with` own them."""
        bare = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        assert self._compat is not None  # made by the passes, which run first
        chain, _ = self._compat.chain(node)
        statement = next(n for n in chain if isinstance(n, ast.stmt))
        if (statement.lineno, statement.col_offset) == bare[0]:
            return bare  # the statement's first token
        text = self.source.segment_line
        before = _parens_back(text, node.lineno, node.col_offset)
        if before is None:
            return None
        if not before:
            return bare
        after = _parens_forward(text, node.end_lineno, node.end_col_offset)
        around = min(len(before), len(after))
        parent, field = self._compat.parents[id(node)]
        if type(parent) in (ast.With, ast.AsyncWith, ast.withitem):
            return None
        sole = (type(parent) is ast.Call and field == "args" and len(parent.args) == 1 and not parent.keywords) or (
            type(parent) is ast.ClassDef and field == "bases" and len(parent.bases) == 1 and not parent.keywords
        )
        own = around - 1 if sole else around
        return (before[own - 1], after[own - 1]) if own > 0 else bare


def _in_annotation(chain: list[Any], fields: list[str]) -> bool:
    """sites.annotations_to_advice: the node is in a parameter's, an assignment's or a return annotation."""
    for owner, field in zip(chain[1:], fields):
        if field == "annotation" or (field == "returns" and type(owner) in (ast.FunctionDef, ast.AsyncFunctionDef)):
            return True
    return False


def _patched(node: Any, chain: list[Any]) -> bool:
    """sites._patched: an attribute in `X.y = f(X.y)`, which patches the old API on purpose."""
    if type(node) is not ast.Attribute:
        return False
    assign = next((a for a in chain if type(a) is ast.Assign), None)
    if assign is None:
        return False
    targets = {dotted(t) for t in assign.targets if type(t) is ast.Attribute}
    targets &= {dotted(n) for n in ast.walk(assign.value) if type(n) is ast.Attribute}
    return dotted(node) in targets


def _scope(chain: list[Any], fields: list[str]) -> str:
    """sites._scope: "test", "call" or "import", from the functions, lambdas and classes around the node."""
    in_function = in_test = False
    for owner, field in zip(chain[1:], fields):
        t = type(owner)
        if t is ast.ClassDef:
            in_test = in_test or owner.name.startswith("Test")
        elif t is ast.Lambda:
            in_function = in_function or field == "body"
        elif t in (ast.FunctionDef, ast.AsyncFunctionDef):
            inside = field in ("args", "body")
            in_function = in_function or inside
            in_test = in_test or owner.name.startswith("test") and (inside or field == "decorator_list")
    return "test" if in_test else "call" if in_function else "import"


_BLANK = b" \t\f\\\r\n"  # what may stand between a parenthesis and what it holds, besides comments


def _parens_back(line_of: Any, line: int, offset: int) -> list[tuple[int, int]] | None:
    """Where each `(` right before (line, offset) is, the nearest first, across blank space and comment lines;
    None where a line with a `#` after code (a comment, or a string holding one) lies between."""
    found: list[tuple[int, int]] = []
    raw = line_of(line)[:offset]
    while True:
        stripped = raw.rstrip(_BLANK)
        while stripped.endswith(b"("):
            found.append((line, len(stripped) - 1))
            stripped = stripped[:-1].rstrip(_BLANK)
        if stripped or line == 1:
            return found
        line -= 1
        raw = line_of(line)
        while raw.lstrip().startswith(b"#") and line > 1:  # a comment line holds no code
            line -= 1
            raw = line_of(line)
        if b"#" in raw:
            return None


def _parens_forward(line_of: Any, line: int, offset: int) -> list[tuple[int, int]]:
    """Where each `)` right after (line, offset) ends, the nearest first, across blank space and comments (right
    after an expression, a `#` starts a comment)."""
    found: list[tuple[int, int]] = []
    raw = line_of(line)
    at = offset
    while True:
        rest = raw[at:]
        stripped = rest.lstrip(_BLANK)
        while stripped.startswith(b")"):
            at = len(raw) - len(stripped) + 1
            found.append((line, at))
            stripped = raw[at:].lstrip(_BLANK)
        if stripped and not stripped.startswith(b"#"):
            return found
        line, at = line + 1, 0
        raw = line_of(line)
        if not raw:
            return found
