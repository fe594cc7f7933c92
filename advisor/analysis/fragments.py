"""A scan's statement-local rules, run on only the statements that refer to their targets (issue #35).

A slice (advisor.analysis.slices) keeps a function whole when one of its statements holds a trigger: LibCST then
parses the function, ten times `ast.parse`'s cost per byte, for one statement. A rule that says `statement_local`
reads nothing but the innermost statement that refers to its targets, and names, which resolve through the whole
file. So a scan gives such rules a module of just those statements, each as it stands in the file (its lines
verbatim, under an `if 1:` where it is indented), answers their name queries from the `ast` resolver of the whole
file (advisor.syntax.ast_names: the LibCST node is paired with the `ast` node of the same kind and span), and
shapes their findings as the `ast` path does, the passes upward from the `ast` node (AstFindings.shape).

All or nothing per file and rule, as the `ast` path: a rule that raised, offers a fix (only LibCST's whole tree
writes one) or reported where no `ast` node pairs runs on LibCST as before, all its reports there.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Sequence

from advisor.analysis import slices
from advisor.analysis.facts import Facts
from advisor.analysis.parser import parse_unvalidated
from advisor.analysis.positions import Starts, StatementPositions, first_line
from advisor.analysis.prefilter import reference_gate
from advisor.core.lazy import reraise_interrupt
from advisor.core.textlines import split_lines
from advisor.rule import Context, Rule
from advisor.syntax.refers import refers_at
from advisor.syntax.walk import walk

_NOTHING_AFTER = re.compile(rb"[ \t]*(#[^\r\n]*)?\r?\n?")
_KINDS = frozenset({"Name", "Attribute", "Call"})  # what a query or a report pairs with an `ast` node


class Unfragmentable(Exception):
    """A statement that is not alone on its lines, all the way up: the rules run on LibCST."""


def local_rules(rules: Sequence[type[Rule]], refs: Any) -> list[type[Rule]]:
    return [r for r in rules if r.statement_local and not r.needs_whole_module(refs) and not r.kept_lines(refs)]


def report(found: Any, refs: Any, rules: Sequence[type[Rule]], settings: Any, identifiers: frozenset) -> list:
    """Report `rules` (the file's `local_rules`, and no other rule left to LibCST) into `found` (an
    ast_reports.AstFindings); the rules left to LibCST."""
    try:
        fragments = Fragments(found, rules, refs)
        if not fragments.statements:
            return []
        module = parse_unvalidated(fragments.source)
    except Unfragmentable:
        return list(rules)
    except Exception as e:  # LibCST cannot parse what `ast` did: the rules run on the slices
        reraise_interrupt(e)
        return list(rules)
    run = _Run(found, fragments, module, rules, settings, identifiers)
    try:
        done = run.findings()
    finally:
        run.close()
    return [r for r in rules if r not in done]


def _own_receivers(rules: Sequence[type[Rule]], found: Any) -> frozenset[str]:
    """The receivers own_attributes.drop could take a report on back (`self.storage()`, `c.storage()` with `c = C()`
    and C a class of the file): none where no class of the file defines an attribute a rule of the file looks
    for. A superset: every name ever bound to a call of a class of the file."""
    wanted = {a for r in rules for a in r.attribute_targets}
    survey = found.survey()
    if not wanted or not any(_defines(cls, wanted) for cls in survey.classes):
        return frozenset()
    names = {cls.name for cls in survey.classes}
    out = {"self", "cls"}
    for name, node in survey.bindings:  # `name = ...` (the target, its assignment above it), from the one walk
        value = getattr(survey.parents.get(id(node), (None,))[0], "value", None)
        if (
            type(node) is ast.Name
            and type(value) is ast.Call
            and type(value.func) is ast.Name
            and value.func.id in names
        ):
            out.add(name)
    return frozenset(out)


def _defines(cls: ast.ClassDef, wanted: set[str]) -> bool:
    """Does the class (anything in it) define a method or assign an attribute or a name of `wanted`? A superset of
    own_attributes' `_defined`."""
    for node in ast.walk(cls):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in wanted:
            return True
        if isinstance(node, ast.Attribute) and node.attr in wanted and isinstance(node.ctx, ast.Store):
            return True
        if isinstance(node, ast.Name) and node.id in wanted and isinstance(node.ctx, ast.Store):
            return True
    return False


def _receiver(node: Any) -> str | None:
    """The name an attribute report's attribute is read on (`c` of `c.storage` or `c.storage()`)."""
    func = getattr(node, "func", node)
    value = getattr(func, "value", None)
    return getattr(value, "value", None) if type(value).__name__ == "Name" else None


def words(rules: Sequence[type[Rule]]) -> frozenset[str]:
    """What a statement that refers to one of `rules`' targets (the statement-local ones) spells: a target's last name, an
    attribute target (the file's survey collects the nodes that do: advisor.analysis.ast_detect.Survey)."""
    return frozenset(w for r in rules for w in (*(t.rpartition(".")[2] for t in r.targets), *r.attribute_targets))


class Fragments:
    """The innermost statements that refer to one of `rules`' targets, as one module's source: each statement's
    lines as they are in the file, under an `if 1:` line where indented. `lines[k]`: the file's line of the
    source's line k (1-based; 0 for an `if 1:`)."""

    def __init__(self, found: Any, rules: Sequence[type[Rule]], refs: Any) -> None:
        self.text_lines = split_lines(found.text, keepends=True)
        self.source = found.source  # the lines as UTF-8, the unit of `ast`'s columns
        gate = reference_gate(tuple(rules))
        assert gate is not None  # statement-local rules report at references
        self.thin = slices.thinner(self.text_lines, rules, refs)  # a big table: its elements that hold none, `0`
        survey = found.survey()
        picked: dict[int, ast.stmt] = {}
        for node in survey.events:  # the nodes that may refer, found by the file's one walk
            if refers_at(node, refs, *gate):
                stmt, above = _statements_around(node, survey.parents)
                if id(stmt) not in picked:
                    chosen = self._usable(stmt, above)
                    picked[id(stmt)] = chosen
        self.statements = _outermost(list(picked.values()))
        self.source, self.lines, self.starts = self._render()

    def _usable(self, stmt: ast.stmt, above: list[ast.stmt]) -> ast.stmt:
        """`stmt`, or the nearest statement around it that stands alone on its lines."""
        for candidate in [stmt, *above]:
            if self._alone(candidate):
                return candidate
        raise Unfragmentable

    def _alone(self, stmt: ast.stmt) -> bool:
        first = first_line(stmt)
        line = self.source.segment_line(first)
        indent = len(line) - len(line.lstrip(b" \t"))
        decorators = getattr(stmt, "decorator_list", None)
        start = decorators[0].col_offset - 1 if decorators else stmt.col_offset
        if start != indent or (type(stmt) is ast.If and line[indent:].startswith(b"elif")):  # no statement of its own
            return False
        last = self.source.segment_line(stmt.end_lineno)  # type: ignore[arg-type]
        return _NOTHING_AFTER.fullmatch(last[stmt.end_col_offset :]) is not None

    def _render(self) -> tuple[str, list[int], Starts]:
        out: list[str] = []
        lines = [0]
        starts = Starts()
        for stmt in self.statements:
            first, last = first_line(stmt), stmt.end_lineno or stmt.lineno
            own = self.text_lines[first - 1 : last]
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                own = self.thin(first, last, stmt) or own
            starts.append(len(lines))  # the module's statement: the `if 1:`, or the file's own
            if own[0][:1] in (" ", "\t"):
                out.append("if 1:" + _ending(own[0]))
                lines.append(0)
            out += own
            lines += range(first, last + 1)
            if not out[-1].endswith(("\n", "\r")):
                out[-1] += "\n"
        starts.inner = [None] * len(starts)
        return "".join(out), lines, starts


class _Run:
    """The rules' one walk over the fragments, and their reports as findings, rule by rule."""

    def __init__(
        self, found: Any, fragments: Fragments, module: Any, rules: Sequence, settings: Any, identifiers
    ) -> None:
        self.found, self.fragments, self.module = found, fragments, module
        self.facts = Facts()
        self.positions = StatementPositions(module, fragments.starts, self.facts)
        self._index: dict[tuple, Any] = {}  # (kind, span) -> its `ast` node, as asked
        self.rules = rules
        self._own: frozenset[str] | None = None
        resolver: Any = FragmentResolver(self)  # as Context.resolver (a NameResolver) answers
        self.ctx = Context(found.path, module, resolver, settings, identifiers, found.text, found.alias_names)
        walk(
            module,
            [*(r(self.ctx) for r in rules), self.facts],
            before_visit=self.facts.entering,  # a rule's query below the node it visits finds its statement
            parents=self.facts.parents,
            on_error=self.ctx.rule_failed,
        )

    def own_receivers(self) -> frozenset[str]:
        if self._own is None:
            self._own = _own_receivers(self.rules, self.found)  # the file's other rules have no attribute targets
        return self._own

    def close(self) -> None:
        """Break the cycles (context -> reports -> rules -> context, resolver -> run) that would keep the trees
        for the collector: plain reference counting frees them now."""
        self.ctx.reports, self.ctx.rule_errors, self.ctx.resolver = [], {}, None  # type: ignore[assignment]
        self._index = {}

    def findings(self) -> set[type[Rule]]:
        """Add the findings of each rule it could shape to `found`; the rules done."""
        by_rule: dict[Any, list] = {}
        for rep in self.ctx.reports:
            by_rule.setdefault(type(rep.rule), []).append((rep, rep.node))
        done = set()
        for rule in self.rules:
            reports = by_rule.get(rule, [])
            if rule.code in self.ctx.rule_errors or any(self._for_libcst(rule, rep) for rep, _ in reports):
                continue
            try:
                if self.found.shape(rule, reports, self.span, self.partner, self.module.code_for_node):
                    done.add(rule)
            except Exception as e:  # the rule runs on LibCST instead
                reraise_interrupt(e)
        return done

    def _for_libcst(self, rule: type[Rule], rep: Any) -> bool:
        """A fix (or its range in the report's data: LibCST's whole tree writes those), or maybe the user's own
        attribute (advisor.analysis.own_attributes)."""
        if rep.replacement is not None:
            return True
        receiver = _receiver(rep.node) if rule.attribute_targets else None
        return receiver is not None and receiver in self.own_receivers()

    def span(self, node: Any) -> tuple[int, int, int, int]:
        """The node's span in the file: its lines mapped, its columns as they are (the lines are verbatim)."""
        self.positions.cover(node)
        line, col, end_line, end_col = self.positions[id(node)]
        lines = self.fragments.lines
        return lines[line], col, lines[end_line], end_col

    def partner(self, node: Any) -> Any:
        """The `ast` node of the same kind and span, or None (of several, the last `ast.walk` meets)."""
        kind = type(node).__name__
        if kind not in _KINDS:
            return None
        key = (kind, *self.span(node))
        if key not in self._index:
            self._index[key] = self._search(key)
        return self._index[key]

    def _search(self, key: tuple) -> Any:
        """Breadth first, as `ast.walk`, but only down the nodes whose lines hold the span: a statement may be a
        table of thousands of elements (torch's `op_db`), of which a query wants one."""
        kind, line, _, end_line, _ = key
        level: list[Any] = [s for s in self.fragments.statements if _holds(s, line, end_line)]
        found = None
        while level:
            below: list[Any] = []
            for sub in level:
                if type(sub).__name__ == kind and self.found.span(sub) == key[1:]:
                    found = sub
                below += [child for child in ast.iter_child_nodes(sub) if _holds(child, line, end_line)]
            level = below
        return found


class FragmentResolver:
    """What a rule asks `Context.resolver` (advisor.syntax.names.NameResolver), answered by the whole file's `ast`
    resolver for the paired node; a node with no partner raises, and the rule runs on LibCST."""

    def __init__(self, run: _Run) -> None:
        self._run = run
        self._resolver = run.found.resolver

    def _partner(self, node: Any) -> Any:
        """The `ast` node; None for a name that is no reference (an attribute's, a keyword's, a definition's)."""
        partner = self._run.partner(node)
        parents = self._run.facts.parents
        if partner is None and not _no_reference(node, parents.get(id(node)), parents):
            raise LookupError(f"no `ast` node pairs with this {type(node).__name__}")
        return partner

    def qualnames(self, node: Any) -> set[str]:
        partner = self._partner(node)
        return set() if partner is None else self._resolver.qualnames(partner)

    def scope_of(self, node: Any) -> Any:
        partner = self._partner(node)
        return None if partner is None else self._resolver.scope_of(partner)

    def module_imports(self) -> set[str]:
        return self._resolver.module_imports()


def _holds(node: Any, line: int, end_line: int) -> bool:
    """May the `ast` node's lines hold those (a decorated definition's from its first decorator; a node with no
    lines, `arguments` or a context, may)?"""
    first = getattr(node, "lineno", None)
    if first is None:
        return True
    if getattr(node, "decorator_list", None):
        first = first_line(node)
    return first <= line and end_line <= node.end_lineno


def _no_reference(node: Any, parent: Any, parents: dict[int, Any]) -> bool:
    """A LibCST `Name` that `ast` keeps as a string, which LibCST's resolver answers nothing for."""
    if type(node).__name__ != "Name" or parent is None:
        return False
    kind = type(parent).__name__
    if kind == "AsName":  # `import m as name`, `from m import x as name`
        kind = "ImportAlias" if type(parents.get(id(parent))).__name__ == "ImportAlias" else kind
    if kind == "Attribute":
        return parent.attr is node
    if kind == "Arg":
        return parent.keyword is node
    if kind in ("FunctionDef", "ClassDef", "Param"):
        return parent.name is node
    return kind == "ImportAlias"  # `from m import name`: the name imported (not its module, not `as` another)


def _statements_around(node: Any, parents: dict[int, tuple[Any, str]]) -> tuple[ast.stmt, list[ast.stmt]]:
    """The innermost statement holding `node` (a compound one where `node` is in its header), and the statements
    around that one, the innermost first."""
    found: list[ast.stmt] = []
    up = parents.get(id(node))
    while up is not None:
        if isinstance(up[0], ast.stmt):
            found.append(up[0])
        up = parents.get(id(up[0]))
    if isinstance(node, ast.stmt):
        found.insert(0, node)
    return found[0], found[1:]


def _outermost(picked: list[ast.stmt]) -> list[ast.stmt]:
    """In file order, less those inside another (a header that refers takes its whole statement)."""
    out: list[ast.stmt] = []
    for stmt in sorted({id(s): s for s in picked}.values(), key=lambda s: (first_line(s), -(s.end_lineno or 0))):
        if out and (stmt.end_lineno or 0) <= (out[-1].end_lineno or 0):
            continue
        out.append(stmt)
    return out


def _ending(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\r" if line.endswith("\r") else "\n"
