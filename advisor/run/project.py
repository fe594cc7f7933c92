"""One project, set up as `advisor scan` sees it, and one run over it.

`Project.load` reads the project's `[tool.advisor]` config, applies what the user
asked for (flags, by the `Settings` field each sets; an audit passes them per
repository) and resolves the torch versions: one frozen `Settings`
(advisor.core.settings), then the files and the rules. `Project.scan` is the
pipeline: `engine.scan`, then the one post-processing step (`advisor.run.postprocess`).

The doors: `rules_for(use)` and `analyse_bytes(path, data)`; the CLI, the audit and
the editors (the language server, the flake8 plugin) come in only through them.

The CLI (`advisor scan`, `advisor fix`) and the org-wide audit (`advisor audit`,
one project per repository) both go through here, so a repository audited on a
Dask worker is scanned exactly as `advisor scan` would scan it in its checkout.
Errors are `ProjectError`s with a message for the user; the CLI turns them into exit 2.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Sequence

from advisor.core.config import ConfigError
from advisor.core.plain import Plain, replace
from advisor.core.settings import Settings, Versions, load_settings, split_codes
from advisor.run.device import DeviceContext, project_markers
from advisor.run.discovery import Discovered, DiscoveryError, discover
from advisor.run.engine import ScanOptions, scan, scan_bytes, warm
from advisor.run.hidden import config_turned_off, hidden_line
from advisor.core.findings import KINDS, Finding, ScanResult, Severity
from advisor.run.postprocess import PostprocessError, Shaping, report_rules, shape
from advisor.analysis.registry import (
    RuleSelectionError,
    all_rules,
    check_codes,
    entry_by_code,
    rule_by_code,
    select_entries,
)

if TYPE_CHECKING:
    from advisor.analysis.rule_index import AnyRule
from advisor.core.pins import parse_target_overrides, resolve_companions
from advisor.core.versions import NO_LOWER_BOUND, OLDEST, parse_version, resolve_bounds


# The doors: the CLI, the audit and the editors need nothing else of the pipeline.
__all__ = ["Discovered", "Project", "ProjectError", "all_rules", "cache_root", "rule_by_code", "warm"]


class ProjectError(ValueError):
    pass


CODE_FIELDS = ("select", "extend_select", "ignore", "fixable", "unfixable")  # the flags that name rule codes


def cache_root(explicit: str | None, project_root: str) -> str:
    """Where the cache lives: `--cache-dir`, else $ADVISOR_CACHE_DIR, else .advisor_cache at the project root."""
    return explicit or os.environ.get("ADVISOR_CACHE_DIR") or os.path.join(project_root, ".advisor_cache")


def _explicit_target(flag: str | None, from_targets: str | None) -> str | None:
    """`--target-version X` and `--target torch=Y` name the same thing: they must agree."""
    if flag and from_targets and flag != from_targets:
        raise ValueError(f"--target-version {flag} and --target torch={from_targets} disagree")
    return flag or from_targets


def _check_codes(settings: Settings, flags: dict) -> None:
    """A bad code in pyproject.toml is reported with the file and key it comes from; a flag's, as the flag's."""
    for key, codes in settings.code_lists().items():
        try:
            check_codes(list(codes))
        except RuleSelectionError as e:
            raise ConfigError(f"{settings.config_path}: [tool.advisor] {key}: {e}") from None
    check_codes([c for name in CODE_FIELDS for c in split_codes(flags.get(name))])


def _rules(settings: Settings) -> tuple[list[AnyRule], frozenset[str]]:
    """The rules the settings select that exist at the target, and the report-only codes the user selected."""
    selected = select_entries(list(settings.select) or None, list(settings.ignore), list(settings.extend_select))
    newest = settings.versions.target_tuple
    rules: list[AnyRule] = [r for r in selected if parse_version(r.since) <= newest]
    if settings.report:
        return report_rules(rules, settings.ignore, entry_by_code)
    return rules, frozenset()


def _discover(paths: list[str], settings: Settings) -> Discovered:
    try:
        return discover(
            paths,
            exclude=[*settings.exclude, *settings.extend_exclude],
            extend_include=list(settings.extend_include),
            force_exclude=settings.force_exclude,
        )
    except DiscoveryError as e:
        raise ProjectError(str(e)) from None


class Project(Plain):
    """A project resolved against its config: plain data, nothing left to look up."""

    __slots__ = (
        *("settings", "rules", "found", "target_source", "lowest_source", "lowest_found", "companion_overrides"),
        *("listed", "cache_dir", "device_context", "warnings", "turned_off", "baseline_hid"),
    )
    settings: Settings  # the config and the flags, with the torch versions resolved
    rules: list[AnyRule]  # the index's entries: a rule's module is imported when a file needs it
    found: Discovered
    target_source: str  # where the target came from (printed)
    lowest_source: str  # where the lowest supported torch came from (printed)
    lowest_found: bool  # False: none found, the conservative default (NO_LOWER_BOUND says so)
    companion_overrides: frozenset[str]  # the companions set by --target
    listed: frozenset[str]  # report-only codes the user selected (advisor.run.postprocess)
    cache_dir: str | None
    device_context: DeviceContext | None  # set by `scan`
    warnings: list[str]  # pin files skipped as unsafe or malformed (printed)
    turned_off: list[str]  # the config's settings that switch rules off (hidden_note)
    baseline_hid: tuple[str, int] | None  # set by `shape`: the baseline applied, and the findings it dropped

    def __init__(
        self,
        settings: Settings,
        rules: list[AnyRule],
        found: Discovered,
        target_source: str,
        lowest_source: str = "",
        lowest_found: bool = True,
        companion_overrides: frozenset[str] = frozenset(),
        listed: frozenset[str] = frozenset(),
        cache_dir: str | None = None,
        device_context: DeviceContext | None = None,
        warnings: list[str] | None = None,
        turned_off: list[str] | None = None,
        baseline_hid: tuple[str, int] | None = None,
    ) -> None:
        self.settings, self.rules, self.found, self.target_source = settings, rules, found, target_source
        self.lowest_source, self.lowest_found, self.companion_overrides = (
            lowest_source,
            lowest_found,
            companion_overrides,
        )
        self.listed, self.cache_dir, self.device_context = listed, cache_dir, device_context
        self.warnings = [] if warnings is None else warnings
        self.turned_off = [] if turned_off is None else turned_off
        self.baseline_hid = baseline_hid

    @property
    def root(self) -> str:
        return self.settings.root

    @property
    def target(self) -> str:
        return self.settings.versions.target

    @property
    def lowest(self) -> str:
        """The lowest supported torch, "2.4"."""
        return self.settings.versions.lowest or OLDEST

    @property
    def companion_targets(self) -> dict[str, str]:
        return dict(self.settings.versions.companions)

    @property
    def lower_bound_note(self) -> str | None:
        """The one line printed when no lower bound was found, else None."""
        return None if self.lowest_found else NO_LOWER_BOUND.format(oldest=OLDEST)

    @classmethod
    def load(
        cls, paths: Sequence[str] | None = None, *, config: str | None = None, found: Discovered | None = None, **flags
    ) -> "Project":
        """The project above `paths`, its `[tool.advisor]` config (or `config`) and the flags (by the
        `Settings` field they set) applied. `found`: the files, when already known (an audit task is handed
        them; an editor's buffer is the only file); else they are discovered."""
        paths = list(paths or ["."])
        try:
            asked = load_settings(paths, config)
            turned_off = config_turned_off(asked)
            _check_codes(asked, flags)
            asked = asked.with_overrides(**flags)
            overrides = parse_target_overrides(list(asked.targets))
            explicit = _explicit_target(flags.get("target_version"), overrides.get("torch")) or asked.target_version
            notes: list[str] = []
            target, source, lowest, lowest_source, lowest_found = resolve_bounds(
                explicit, asked.min_torch, asked.root, notes
            )
            companions = tuple(resolve_companions(target, overrides).items())
            settings = replace(asked, versions=Versions(target=target, lowest=lowest, companions=companions))
            rules, listed = _rules(settings)
        except (ConfigError, RuleSelectionError, ValueError) as e:
            raise ProjectError(str(e)) from None
        if found is None:
            found = _discover(paths, settings)
        no_cache = settings.no_cache or os.environ.get("ADVISOR_NO_CACHE")
        return cls(
            settings,
            rules,
            found,
            source,
            lowest_source,
            lowest_found,
            companion_overrides=frozenset(overrides) - {"torch"},
            listed=listed,
            cache_dir=None if no_cache else cache_root(settings.cache_dir, settings.root),
            warnings=notes,
            turned_off=turned_off,
        )

    @classmethod
    def for_editor(cls, path: str) -> "Project":
        """The project `path` (a file or a directory) belongs to, as an editor sees it: its config, no cache, no
        discovery (the buffer is the one file)."""
        return cls.load([path], found=Discovered(), no_cache=True)

    def rules_for(self, use: str) -> list[AnyRule]:
        """The rules of one use: "scan" (all selected), "fix" and "editor" (those that judge a file alone:
        device-specific rules (ADV8xx) offer no fixes and need the whole project to scope them)."""
        if use == "scan":
            return list(self.rules)
        if use in ("fix", "editor"):
            return [r for r in self.rules if r.device is None]
        raise ValueError(f"unknown use of rules: {use!r}")

    @property
    def files(self) -> list[str]:
        return self.found.files

    @property
    def text_files(self) -> list[str]:
        return self.found.text_files

    @property
    def discovery_errors(self) -> list[tuple[str, str]]:
        return self.found.errors

    def scan_options(self, use: str = "scan") -> ScanOptions:
        """The engine's options for this project, with the rules of one use (`rules_for`)."""
        return ScanOptions(self.rules_for(use), self.settings, cache_dir=self.cache_dir, jobs=self.settings.jobs)

    def scan_raw(
        self,
        progress: Callable[[int, int], None] | None = None,
        python: bool = True,
        shared_cache_dir: str | None = None,
        edits: bool = False,
    ) -> ScanResult:
        """The engine's findings, before post-processing; `python=False`: the text files only.
        `shared_cache_dir`: results shared with other repositories (an audit's; advisor.run.cache).
        `edits`: the workers make the JSON report's fix edits too (`FileJob.edits`)."""
        options = self.scan_options()
        options.progress = progress
        options.shared_cache_dir = shared_cache_dir
        options.edits = edits
        return scan(self.files if python else [], options, self.text_files)

    def markers(self) -> list:
        """The ROCm markers of the project's files and build files (advisor.run.device): what scoping reads."""
        return project_markers(self.root, self.files + self.text_files)

    def shape(self, result: ScanResult, project_markers: list | None = None) -> ScanResult:
        """The one post-processing step (advisor.run.postprocess); sets `device_context`."""
        s = self.settings
        how = Shaping(s.root, s.device, s.baseline, self.discovery_errors, project_markers, self.listed)
        try:
            self.device_context = shape(result, how)
        except PostprocessError as e:
            raise ProjectError(str(e)) from None
        self.baseline_hid = how.baseline_hid
        return result

    @property
    def hidden_note(self) -> str | None:
        """One line on what the config turned off, what discovery left out and what a baseline hid (None: nothing),
        so that a config committed in a pull request cannot make "0 findings" silently (advisor.run.hidden)."""
        return hidden_line(self.settings.config_path, self.turned_off, self.found.left_out, self.baseline_hid)

    def analyse_bytes(self, path: str, data: bytes, use: str = "scan", incremental: bool = False) -> ScanResult:
        """One file's text that is not on disk (stdin, an editor's buffer), analysed as `path` with the rules of
        `use` (`rules_for`): the engine's findings, before post-processing (`shape`). `incremental`: an editor's
        next analysis of the buffer, only the statement its edit changed analysed again where it can be."""
        return scan_bytes(path, data, self.scan_options(use), incremental)

    def fix_bytes(
        self, path: str, data: bytes, unsafe: bool | None = None, at: Sequence | None = None, each: Sequence = ()
    ) -> Any:
        """One file's text fixed as `advisor fix` would fix `path` (`unsafe`: None, as the settings say): its
        `FixOutcome`. `at` ([code, 0-based line, 0-based column]): only that finding, the new bytes or None.
        `each` (such keys): each finding alone, from one analysis, {key: new bytes or None}."""
        from advisor.fix.fixer import FixOutcome, fix_bounded  # lazy: LibCST's codemods load only to fix

        settings = self.settings if unsafe is None else replace(self.settings, unsafe_fixes=unsafe)
        rules = [rule_by_code(c) for c in self.scan_options("fix").candidates(path, data)]
        keys = [at] if at is not None else list(each)
        if keys:
            fixed = fix_bounded(data, path, rules, settings, keys) if rules else {}
            return fixed.get(tuple(at)) if at is not None else {tuple(k): fixed.get(tuple(k)) for k in keys}
        return fix_bounded(data, path, rules, settings) if rules else FixOutcome(path, data, data)

    def scan_stdin(self, path: str, data: bytes) -> ScanResult:
        """`advisor scan -`: the text read from stdin, analysed as `path` and post-processed as a scan."""
        return self.shape(self.analyse_bytes(path, data))

    def scan(self, progress: Callable[[int, int], None] | None = None, edits: bool = False) -> ScanResult:
        """The whole pipeline: engine, then post-processing (`edits`: see `scan_raw`)."""
        return self.shape(self.scan_raw(progress, edits=edits))

    def fails_on(self, finding: Finding) -> bool:
        """Whether this finding fails the run: of a `fail-on` kind, or at or above a `fail-on` severity."""
        kinds = {v for v in self.settings.fail_on if v in KINDS}
        floors = [Severity(v).rank for v in self.settings.fail_on if v not in KINDS]
        return finding.kind in kinds or bool(floors and Severity(finding.severity).rank >= min(floors))

    def fails(self, result: ScanResult) -> bool:
        """Findings of a `fail-on` kind (or at or above a `fail-on` severity), or files that could not be analysed."""
        return bool(result.errors) or any(self.fails_on(f) for f in result.findings)


def forget_config_caches() -> None:
    """Forget everything read of config files by directory. A scan reads each once; a language server lives on
    while the user edits `pyproject.toml` (its own settings are dropped beside this)."""
    from advisor.analysis import lazy_helpers
    from advisor.fix import imports
    from advisor.rule import style

    lazy_helpers.forget_cached()
    imports.forget_cached()
    style.forget_cached()
