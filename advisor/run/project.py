"""One project, set up as `advisor scan` sees it, and one run over it.

`ProjectOptions` holds what the user asked for (flags; an audit fills it per
repository). `Project.load` resolves it against the project's `[tool.advisor]`
config into plain data: the files, the target and lowest supported torch, the
rules, the device. `Project.scan` is the pipeline: `engine.scan`, then the one
post-processing step (`advisor.run.postprocess`).

The CLI (`advisor scan`, `advisor fix`) and the org-wide audit (`advisor audit`,
one project per repository) both go through here, so a repository audited on a
Dask worker is scanned exactly as `advisor scan` would scan it in its checkout.
Errors are `ProjectError`s with a message for the user; the CLI turns them into exit 2.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable, Sequence

from advisor.core.config import Config, ConfigError, load_config, parse_fail_on
from advisor.run.device import DEVICES, DeviceContext
from advisor.run.discovery import Discovered, DiscoveryError, discover
from advisor.run.engine import ScanOptions, scan, scan_bytes
from advisor.core.findings import KINDS, Finding, ScanResult, Severity
from advisor.run.postprocess import PostprocessError, Shaping, report_rules, shape
from advisor.analysis.registry import RuleSelectionError, check_codes, rule_by_code, select_rules
from advisor.rule import Rule
from advisor.core.pins import parse_target_overrides, resolve_companions
from advisor.core.versions import NO_LOWER_BOUND, OLDEST, parse_version, resolve_bounds


class ProjectError(ValueError):
    pass


def split_codes(values: Sequence[str] | None) -> list[str]:
    """`--select A,B --select C` -> [A, B, C]."""
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def cache_root(explicit: str | None, project_root: str) -> str:
    """Where the cache lives: `--cache-dir`, else $ADVISOR_CACHE_DIR, else .advisor_cache at the project root."""
    return explicit or os.environ.get("ADVISOR_CACHE_DIR") or os.path.join(project_root, ".advisor_cache")


def _explicit_target(flag: str | None, from_targets: str | None) -> str | None:
    """`--target-version X` and `--target torch=Y` name the same thing: they must agree."""
    if flag and from_targets and flag != from_targets:
        raise ValueError(f"--target-version {flag} and --target torch={from_targets} disagree")
    return flag or from_targets


@dataclass
class ProjectOptions:
    """What the user asked for, before the project's config is read. Lists may hold comma-separated codes."""

    paths: list[str] = field(default_factory=lambda: ["."])
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    target_version: str | None = None
    cache_dir: str | None = None
    no_cache: bool = False
    jobs: int | None = None
    exclude: list[str] = field(default_factory=list)
    extend_include: list[str] = field(default_factory=list)
    config_path: str | None = None
    baseline: str | None = None
    device: str | None = None
    report: bool = False  # a --report run: report-only rules (ADV900) join the scan
    targets: list[str] = field(default_factory=list)  # `--target torchvision=0.29` (advisor.core.pins)
    extend_select: list[str] = field(default_factory=list)
    fixable: list[str] = field(default_factory=list)
    unfixable: list[str] = field(default_factory=list)
    min_torch: str | None = None  # --min-torch: the lowest torch the project supports
    fail_on: str | None = None  # --fail-on: kinds (or a severity), comma-separated
    force_exclude: bool = False  # `exclude` applies to paths named on the command line too (Ruff's --force-exclude)


def _check_config_codes(cfg: Config) -> None:
    """A bad code in pyproject.toml is reported with the file and key it comes from."""
    keys = {
        "select": cfg.select,
        "extend-select": cfg.extend_select,
        "ignore": cfg.ignore,
        "fixable": cfg.fixable,
        "unfixable": cfg.unfixable,
        **{f"per-file-ignores.{k}": v for k, v in cfg.per_file_ignores.items()},
    }
    for key, codes in keys.items():
        try:
            check_codes(codes)
        except RuleSelectionError as e:
            raise ConfigError(f"{cfg.path}: [tool.advisor] {key}: {e}") from None


@dataclass
class Project:
    """A project resolved against its config: plain data, nothing left to look up."""

    config: Config
    target: str
    min_version: str  # the lowest supported torch, "2.4" (min_torch as text)
    target_source: str
    rules: list[type[Rule]]
    found: Discovered
    cache_dir: str | None
    jobs: int | None
    device: str | None
    baseline: str | None = None
    listed: frozenset[str] = frozenset()  # report-only codes the user selected (advisor.run.postprocess)
    device_context: DeviceContext | None = None  # set by `scan`
    min_torch_source: str = ""  # where the lowest supported torch came from (printed)
    min_torch_found: bool = True  # False: none found, the conservative default (NO_LOWER_BOUND says so)
    companion_targets: dict[str, str] = field(default_factory=dict)  # torchvision/torchaudio, from the torch target
    companion_overrides: frozenset[str] = frozenset()  # the companions set by --target
    fixable: list[str] = field(default_factory=list)  # `fix --fixable` / `--unfixable` (added to the config's)
    unfixable: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # pin files skipped as unsafe or malformed (printed)

    @property
    def min_torch(self) -> tuple[int, int]:
        return parse_version(self.min_version)

    @property
    def lower_bound_note(self) -> str | None:
        """The one line printed when no lower bound was found, else None."""
        return None if self.min_torch_found else NO_LOWER_BOUND.format(oldest=OLDEST)

    @classmethod
    def load(cls, options: ProjectOptions, found: Discovered | None = None) -> "Project":
        """`found`: the files, when already known (an audit task is handed them); else they are discovered."""
        paths = list(options.paths or ["."])
        try:
            cfg = load_config(paths, options.config_path)
            _check_config_codes(cfg)
            check_codes(
                split_codes(options.fixable) + split_codes(options.unfixable) + split_codes(options.extend_select)
            )
            overrides = parse_target_overrides(options.targets)
            explicit = _explicit_target(options.target_version, overrides.get("torch")) or cfg.target_version
            notes: list[str] = []
            target, source, min_version, min_source, min_found = resolve_bounds(
                explicit, options.min_torch or cfg.min_torch, cfg.project_root, notes
            )
            companions = resolve_companions(target, overrides)
            if options.fail_on:
                cfg.fail_on = parse_fail_on(options.fail_on)
            rules = select_rules(
                split_codes(options.select) or cfg.select or None,
                split_codes(options.ignore) + cfg.ignore,
                cfg.extend_select + split_codes(options.extend_select),
            )
        except (ConfigError, RuleSelectionError, ValueError) as e:
            raise ProjectError(str(e)) from None
        newest = parse_version(target)
        rules = [r for r in rules if parse_version(r.since) <= newest]
        listed: frozenset[str] = frozenset()
        if options.report:
            rules, listed = report_rules(rules, split_codes(options.ignore), rule_by_code)
        if options.device is not None and options.device not in DEVICES:
            raise ProjectError(f"unknown --device {options.device!r} (expected {', '.join(DEVICES)})")
        if found is None:
            exclude = [*cfg.exclude, *cfg.extend_exclude, *split_codes(options.exclude)]
            include = [*cfg.extend_include, *split_codes(options.extend_include)]
            try:
                found = discover(
                    paths,
                    exclude=exclude,
                    extend_include=include,
                    force_exclude=options.force_exclude or cfg.force_exclude,
                )
            except DiscoveryError as e:
                raise ProjectError(str(e)) from None
        no_cache = options.no_cache or os.environ.get("ADVISOR_NO_CACHE")
        return cls(
            cfg,
            target,
            min_version,
            source,
            rules,
            found,
            None if no_cache else cache_root(options.cache_dir, cfg.project_root),
            options.jobs,
            options.device or cfg.device,
            options.baseline,
            listed,
            min_torch_source=min_source,
            min_torch_found=min_found,
            companion_targets=companions,
            companion_overrides=frozenset(overrides) - {"torch"},
            fixable=list(options.fixable),
            unfixable=list(options.unfixable),
            warnings=notes,
        )

    @property
    def files(self) -> list[str]:
        return self.found.files

    @property
    def text_files(self) -> list[str]:
        return self.found.text_files

    @property
    def discovery_errors(self) -> list[tuple[str, str]]:
        return self.found.errors

    def scan_options(self, rules: Sequence[type[Rule]] | None = None) -> ScanOptions:
        """The engine's options for this project; `rules`: a subset of the project's rules."""
        return ScanOptions(
            list(self.rules if rules is None else rules),
            self.target,
            self.min_version,
            cache_dir=self.cache_dir,
            jobs=self.jobs,
            per_file_ignores=self.config.per_file_ignores,
            project_root=self.config.project_root,
        )

    def scan_raw(self, progress: Callable[[int, int], None] | None = None, python: bool = True) -> ScanResult:
        """The engine's findings, before post-processing; `python=False`: the text files only."""
        options = self.scan_options()
        options.progress = progress
        return scan(self.files if python else [], options, self.text_files)

    def shape(self, result: ScanResult, project_markers: list | None = None) -> ScanResult:
        """The one post-processing step (advisor.run.postprocess); sets `device_context`."""
        how = Shaping(
            self.config.project_root, self.device, self.baseline, self.discovery_errors, project_markers, self.listed
        )
        try:
            self.device_context = shape(result, how)
        except PostprocessError as e:
            raise ProjectError(str(e)) from None
        return result

    def scan_stdin(self, path: str, data: bytes) -> ScanResult:
        """`advisor scan -`: the text read from stdin, analysed as `path` and post-processed as a scan."""
        return self.shape(scan_bytes(path, data, self.scan_options()))

    def scan(self, progress: Callable[[int, int], None] | None = None) -> ScanResult:
        """The whole pipeline: engine, then post-processing."""
        return self.shape(self.scan_raw(progress))

    def unfixable_codes(self, rules: Sequence[type[Rule]]) -> list[str]:
        """Codes whose findings `fix` reports but never fixes: not `fixable`, or `unfixable` (flags add to config)."""
        fixable = [*self.config.fixable, *split_codes(self.fixable)]
        unfixable = [*self.config.unfixable, *split_codes(self.unfixable)]
        return [
            r.code
            for r in rules
            if (fixable and not any(r.code.startswith(c.upper()) or c.upper() in ("ALL", "ADV") for c in fixable))
            or any(r.code.startswith(c.upper()) or c.upper() in ("ALL", "ADV") for c in unfixable)
        ]

    def fails_on(self, finding: Finding) -> bool:
        """Whether this finding fails the run: of a `fail-on` kind, or at or above a `fail-on` severity."""
        kinds = {v for v in self.config.fail_on if v in KINDS}
        floors = [Severity(v).rank for v in self.config.fail_on if v not in KINDS]
        return finding.kind in kinds or bool(floors and Severity(finding.severity).rank >= min(floors))

    def fails(self, result: ScanResult) -> bool:
        """Findings of a `fail-on` kind (or at or above a `fail-on` severity), or files that could not be analysed."""
        return bool(result.errors) or any(self.fails_on(f) for f in result.findings)
