"""The rule base: what a rule declares and how it reports.

A rule is a class under `rules/` (installed as `advisor.rules`): its own file,
or one row of a table that generates the class. Its docstring is its
documentation. Class attributes carry its metadata; the `valid` / `invalid`
examples are run by the test suite for every rule.

Rules are duck-typed LibCST batchable visitors: they define `visit_<Node>` /
`leave_<Node>` methods and the engine runs all matched rules over a file in one
batched traversal. They must not import libcst at module level (use
`advisor.rule.cst`) so that discovering rules stays cheap.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Sequence

from advisor.core.findings import Applicability, Kind, Safety, Severity, Window
from advisor.core.lazy import cst, reraise_interrupt
from advisor.core.releases import OLDEST
from advisor.core.settings import Settings
from advisor.syntax.names import NameResolver, any_match
from advisor.core.versions import parse_version  # noqa: F401  (a rule's world: re-exported)
from advisor.rule.gates import ALSO_NEEDED, TextGate

# The runtime validation checks a rule may name (`validation = ...`), one per
# template in advisor/report/templates/validation/. Checked when a rule class is defined.
CHECKS = (  # in the order the report lists and run_all.py runs them
    "stream_capture",
    "linalg_eigh",
    "graph_capture",
    "cond_capture",
    "export_roundtrip",
    "compiled_numerics",
    "profiler_events",
    "nccl_backend",
    "amp_migration",
    "rocm_runtime",
    "audio_io",
    "vision_weights",
)


@dataclass(frozen=True)
class Example:
    """An INVALID example: `code` must produce findings of the rule.

    `fixed`, when given, is the exact text `advisor fix` (with unsafe fixes)
    must produce. `count` is how many findings the code must produce.
    `target` runs the example with that target torch version.
    `message` (a substring), `line` and `column` (1-based), when given, must
    hold for the first finding, as Fixit's `Invalid` states them.
    """

    code: str
    fixed: str | None = None
    count: int = 1
    target: str | None = None
    message: str | None = None
    line: int | None = None
    column: int | None = None


@dataclass
class Report:
    """What a rule said about one node, before positions are known."""

    rule: "Rule"
    node: Any
    message: str
    applicability: Applicability  # of the fix offered here (NONE when none)
    replacement: Any = None  # new node (or FlattenSentinel) replacing `node`
    add_imports: Sequence[tuple[str, str | None]] = ()  # (module, name) pairs
    fix_node: Any = None  # the node `replacement` replaces, when not `node` itself
    data: dict | None = None  # facts for the report and validation scripts (JSON-able)
    window: Window | None = None  # overrides the rule's (a table entry's own window)
    kind: Kind | None = None  # overrides the rule's
    safety: Safety | None = None  # overrides the rule's (a fix that keeps the old behaviour on every release)
    # Set by analysis when the node sits in code that runs only on old torch: kind compat,
    # never fixed. `compat_until`: the release from which that branch is dead (None: unknown).
    compat: bool = False
    compat_until: str | None = None

    @property
    def target_node(self) -> Any:
        return self.node if self.fix_node is None else self.fix_node


class Context:
    """What a rule can see of the file under analysis."""

    def __init__(
        self,
        path: str,
        module: Any,
        resolver: NameResolver,
        settings: Settings,
        identifiers: frozenset[str] = frozenset(),
        text: str | None = None,
        alias_names: frozenset[str] | None = None,
    ):
        self.path = path
        self.module = module
        self._text = text
        # Every name, attribute and keyword identifier of the whole file, and the last part of every import (from
        # `ast`, before any slicing): evidence a rule may take from anywhere in the file without the file whole.
        self.identifiers = identifiers
        # The names the file's imports bind to something of another name (`import softmax as sm`: `sm`), from the
        # same pass (advisor.syntax.references.References.alias_names); None: not known, any name may be one.
        self.alias_names = alias_names
        self.resolver = resolver
        self.settings = settings  # the run's (advisor.core.settings)
        self.target = settings.versions.target_tuple  # the torch upgraded to, (2, 15)
        self.lowest = settings.versions.lowest_tuple  # the lowest torch the project supports; None: unbounded
        self.reports: list[Report] = []
        # rule code -> (node, exception): the first error each rule raised (that node is lost, not the file)
        self.rule_errors: dict[str, tuple[Any, Exception]] = {}

    @property
    def text(self) -> str:
        """The whole file's source. `module` may be a slice of it (advisor.analysis.slices), its code changed outside
        the statements a rule looks at; a fix's layout follows the file (magic commas, the longest line)."""
        return self.module.code if self._text is None else self._text

    def code_for(self, node: Any) -> str:
        return self.module.code_for_node(node)

    def rule_failed(self, fn: Any, node: Any, e: Exception) -> None:
        """A rule raised on one node (a walk's `on_error`): keep the first error per rule, lose only that node (a
        Ctrl-C ends the run)."""
        reraise_interrupt(e)  # a Ctrl-C, not a bug: the run ends
        code = getattr(type(getattr(fn, "__self__", None)), "code", "") or getattr(fn, "__qualname__", "?")
        self.rule_errors.setdefault(code, (node, e))


class Rule:
    """Base class. Subclasses set the class attributes below."""

    code: ClassVar[str] = ""
    name: ClassVar[str] = ""
    message: ClassVar[str] = ""
    severity: ClassVar[Severity] = Severity.WARNING
    since: ClassVar[str] = OLDEST  # torch version where the replacement/behaviour first exists
    deprecated_in: ClassVar[str | None] = None
    removed_in: ClassVar[str | None] = None
    # None: the window is in torch versions; "torchvision" / "torchaudio": in that library's versions
    library: ClassVar[str | None] = None
    undeprecated_in: ClassVar[str | None] = None  # the deprecation was withdrawn in this release
    # The fix only does what the old code did from `safety.same_from` on (None: wherever the replacement exists).
    safety: ClassVar[Safety | None] = None
    # breaking | deprecated | advice | compat; None: from the window, else from `severity`
    # (advisor.core.policy decides, for the target, in one place).
    kind: ClassVar[Kind | None] = None
    fix: ClassVar[Applicability] = Applicability.NONE
    validation: ClassVar[str | None] = None
    triggers: ClassVar[tuple[str, ...]] = ()  # text the prefilter looks for
    # Qualified names (or string constants) and attribute names the rule looks for: a
    # file that refers to none of them (per a cheap `ast` pass) is never parsed with LibCST.
    # Leave both empty for a rule that cannot say.
    targets: ClassVar[tuple[str, ...]] = ()
    attribute_targets: ClassVar[tuple[str, ...]] = ()
    # Does a string constant equal to a target count (the rule reads strings: `mock.patch("torch.x.y")`)? A rule
    # that reports only at names, attributes and `getattr` calls says no: torch's `trace_rules.py` names every API.
    strings_name_targets: ClassVar[bool] = True
    # An own `may_match` that is True only where `Rule.may_match` is (it asks `super().may_match(refs) and ...`):
    # the file's text may then rule it out before any parse, as it does for a rule that keeps `Rule.may_match`
    # (`text_gate`; advisor.analysis.text_gate).
    may_match_refers: ClassVar[bool] = False
    # "rocm": report only in code that targets ROCm (see advisor.run.device); None: everywhere.
    device: ClassVar[str | None] = None
    # Drop this rule's findings when any scanned file mentions one of these markers
    # (e.g. ADV807 is moot once PYTORCH_ROCM_ARCH is set anywhere in the project).
    unless_project_mentions: ClassVar[tuple[str, ...]] = ()
    # A deprecation with no drop-in replacement that tests use on purpose (TorchScript): its sites in
    # tests become one project-level finding with this message (advisor.run.tests_summary); None: per site.
    said_once_in_tests: ClassVar[str | None] = None
    # Off unless selected explicitly (by code or a prefix naming it, e.g. ADV9), or needed by --report.
    default_enabled: ClassVar[bool] = True
    # Listed by the report ("could not be analysed"), never a finding to act on: the rule joins every `--report`
    # run, and its findings stay in the other outputs only where it was selected (advisor.run.postprocess).
    report_only: ClassVar[bool] = False
    # Does the rule read beyond the statements that hold its triggers (state gathered across statements,
    # reported at `leave_Module`, or a search of `ctx.module`)? None: yes if it has `visit_Module` or
    # `leave_Module`. A scan parses only the statements that can match (advisor.analysis.slices) when no
    # candidate rule says yes; tests/analysis/test_slices.py runs every rule's examples both ways.
    whole_module: ClassVar[bool | None] = None
    # Reads every statement at module level (outside functions and classes) besides those with its triggers:
    # evidence gathered per scope, where the module is one scope. A slice then keeps them all.
    module_level: ClassVar[bool] = False
    # Reports only in statements that refer to one of `targets` or use one of `attribute_targets` (a reference
    # rule): a slice leaves out a statement that merely holds a trigger word ("range" in `for i in range(n)`).
    reports_at_references: ClassVar[bool] = False
    # A reference rule whose reports, and what decides them, lie in the innermost statement that refers to its
    # targets (a compound statement's header: the whole statement); names still resolve through the whole file.
    # A scan then parses just those statements with LibCST (advisor.analysis.fragments), not the functions
    # around them; tests/analysis/test_fragments.py runs every such rule's examples both ways.
    statement_local: ClassVar[bool] = False
    # Reads `Context.identifiers` (evidence from anywhere in the file): an editor's edit that changes them has
    # the file analysed again whole (advisor.analysis.incremental).
    reads_identifiers: ClassVar[bool] = False
    # For tests/rules/test_release_windows.py, which checks the window against the wheels' API index:
    # the names it is about where `names` / a table's entries do not say ({"old": (...), "new": (...)}),
    # and the fields the index cannot settle ("field" or "old-name field" -> why, stated in the docs).
    window_apis: ClassVar[dict[str, tuple[str, ...]]] = {}
    window_exceptions: ClassVar[dict[str, str]] = {}
    valid: ClassVar[list[str]] = []
    invalid: ClassVar[list[Example | str]] = []

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.validation is not None and cls.validation not in CHECKS:
            raise TypeError(
                f"{cls.__qualname__}: unknown validation check {cls.validation!r} (known: {sorted(CHECKS)})"
            )

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # -- metadata --------------------------------------------------------

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0]

    @classmethod
    def examples(cls) -> list[Example]:
        return [e if isinstance(e, Example) else Example(e) for e in cls.invalid]

    @classmethod
    def window(cls) -> Window:
        return Window(cls.since, cls.deprecated_in, cls.removed_in, cls.undeprecated_in)

    @classmethod
    def windows(cls) -> list[Window]:
        """Every window the rule reports with (a table's entries may each have their own)."""
        return [cls.window()]

    @classmethod
    def metadata(cls) -> dict[str, Any]:
        return {
            "code": cls.code,
            "name": cls.name,
            "severity": cls.severity.value,
            "since": cls.since,
            "deprecated_in": cls.deprecated_in,
            "removed_in": cls.removed_in,
            "library": cls.library,
            "undeprecated_in": cls.undeprecated_in,
            "kind": cls.kind.value if cls.kind else None,
            "fix": cls.fix.value,
            "validation": cls.validation,
            "device": cls.device,
            "opt_in": not cls.default_enabled,  # off unless selected by code, prefix or ALL
            "summary": cls.summary(),
        }

    @classmethod
    def needs_whole_module(cls, refs: Any) -> bool:
        """Must a file with these references be parsed whole for this rule (see `whole_module`)?"""
        if cls.whole_module is not None:
            return cls.whole_module
        return hasattr(cls, "visit_Module") or hasattr(cls, "leave_Module")

    @classmethod
    def kept_lines(cls, refs: Any) -> tuple[int, ...]:
        """Lines (1-based) whose statements every slice keeps besides those holding the rule's triggers: evidence
        the rule reads from elsewhere in the file (ADV716: a `torch.save` to the path a load reads). Cheaper than
        `needs_whole_module`, which parses the file whole; an editor's edit still has such a file analysed whole."""
        return ()

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        """Could this rule flag a module with these `advisor.syntax.references.References`?"""
        if not cls.targets and not cls.attribute_targets:
            return True
        return refs.refers_to_any(cls.targets, cls.strings_name_targets) or not refs.attributes.isdisjoint(
            cls.attribute_targets
        )

    @classmethod
    def text_gate(cls) -> TextGate | None:
        """What `may_match` needs the file's text to hold (advisor.analysis.text_gate), or None: the text cannot
        tell. (targets, attribute targets, patterns, called names, imported names): a reference that may be to a
        target, an attribute of one of those names, a match of a regular expression, a call by one of those last
        names (`References.calls_of`), or one of those names in an import statement. A rule with its own
        `may_match` says so itself (`may_match_refers`, or its own gate)."""
        own = cls.may_match.__func__ is not Rule.may_match.__func__  # type: ignore[attr-defined]
        if (own and not cls.may_match_refers) or not (cls.targets or cls.attribute_targets):
            return None
        return cls.text_gate_with()

    @classmethod
    def text_gate_with(cls, *needed: str) -> TextGate:
        """The gate of `Rule.may_match` (a reference to a target, an attribute of one), with each of `needed`, a
        pattern, a condition besides it (`ALSO_NEEDED` put before it): for an own `may_match` that asks
        `Rule.may_match` and a shape of what it refers to (`super().may_match(refs) and ...`)."""
        fields = (
            tuple(sorted(cls.targets)),
            tuple(sorted(cls.attribute_targets)),
            tuple(ALSO_NEEDED + p for p in needed),
        )
        return (*fields, (), ()) if cls.strings_name_targets else (*fields, (), (), False)

    @classmethod
    def check_env(cls, assignments: Sequence[tuple[int, int, str, str]]) -> Iterable[tuple[int, int, str, str]]:
        """Findings in a Dockerfile / shell script / .env file (advisor.analysis.textfiles).

        `assignments` are (line, column, variable, value) of allocator-config
        variables; yield (line, column, variable, message). Most rules read only Python.
        """
        return ()

    @classmethod
    def check_text(
        cls, path: str, text: str, target: tuple[int, int], lowest: tuple[int, int] | None = None
    ) -> Iterable[tuple[int, int, int, str, Window | None]]:
        """Findings in a non-Python file (advisor.analysis.textfiles: Dockerfiles, scripts, pyproject.toml, setup.cfg).

        Yield (line, column, length, message, window); window None: the rule's. What the
        window means for the target is decided by the policy, as for Python findings.
        `lowest`: the project's lowest supported torch (None outside a project).
        """
        return ()

    # -- visitor protocol (libcst.BatchableCSTVisitor, duck-typed) ---------

    def get_visitors(self) -> dict[str, Any]:
        return {
            name: getattr(self, name)
            for name in dir(self)
            if name.startswith(("visit_", "leave_")) and callable(getattr(self, name))
        }

    # -- helpers for rule bodies ----------------------------------------

    def qualnames(self, node: Any) -> set[str]:
        return self.ctx.resolver.qualnames(node)

    def match(self, node: Any, targets: Iterable[str]) -> str | None:
        """The qualified name in `targets` that `node` refers to, or None (`getattr(mod, "name")` too)."""
        t = type(node)  # not `isinstance`: LibCST's classes are ABCs (slow to test), and these have no subclasses
        if t is not cst.Name and t is not cst.Attribute and t is not cst.Call:
            return None
        return any_match(self.qualnames(node), targets)

    def imports_torch(self) -> bool:
        return any(q == "torch" or q.startswith("torch.") for q in self.ctx.resolver.module_imports())

    def target_at_least(self, version: str) -> bool:
        return self.ctx.target >= parse_version(version)

    def report(
        self,
        node: Any,
        message: str | None = None,
        *,
        replacement: Any = None,
        applicability: Applicability | None = None,
        add_imports: Sequence[tuple[str, str | None]] = (),
        fix_node: Any = None,
        data: dict | None = None,
        window: Window | None = None,
        kind: Kind | None = None,
        safety: Safety | None = None,
    ) -> None:
        """Record a finding at `node`. A `replacement` (for `fix_node`, default `node`) makes it fixable.

        `window` / `kind` / `safety` override the rule's for this report (e.g. one table entry's release window).
        """
        if replacement is None:
            applicability = Applicability.NONE
        elif applicability is None:
            applicability = type(self).fix
        self.ctx.reports.append(
            Report(
                rule=self,
                node=node,
                message=message or type(self).message,
                applicability=applicability,
                replacement=replacement,
                add_imports=add_imports,
                fix_node=fix_node,
                data=data,
                window=window,
                kind=kind,
                safety=safety,
            )
        )
