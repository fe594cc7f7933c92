"""One project, set up as `advisor scan` sees it: config, target, rules, files; then one scan of it.

The CLI (`advisor scan`, `advisor fix`) and the org-wide audit (`advisor audit`,
one project per repository) both go through here, so a repository audited on a
Dask worker is scanned exactly as `advisor scan` would scan it in its checkout.
Errors are `ProjectError`s with a message for the user; the CLI turns them into exit 2.
"""

from __future__ import annotations

import os
from typing import Callable, Sequence


class ProjectError(ValueError):
    pass


def split_codes(values: Sequence[str] | None) -> list[str]:
    """`--select A,B --select C` -> [A, B, C]."""
    out: list[str] = []
    for v in values or []:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


class Project:
    """Options shared by scan and fix, resolved against the project's `[tool.advisor]` config."""

    def __init__(self, paths=None, select=None, ignore=None, target_version=None, cache_dir=None, no_cache=False,
                 jobs=None, exclude=None, config_path=None, baseline=None, extend_include=None, device=None,
                 found=None):
        """`found`: the files, when already known (an audit task is handed them); else they are discovered."""
        from advisor.config import ConfigError, load_config
        from advisor.device import DEVICES
        from advisor.registry import RuleSelectionError, select_rules
        from advisor.rule import parse_version
        from advisor.versions import resolve_target

        self.paths = list(paths or ["."])
        try:
            self.config = cfg = load_config(self.paths, config_path)
        except ConfigError as e:
            raise ProjectError(str(e)) from None
        try:
            self.target, self.min_version, self.target_source = resolve_target(
                target_version or cfg.target_version, cfg.project_root
            )
        except ValueError as e:
            raise ProjectError(str(e)) from None
        try:
            rules = select_rules(split_codes(select) or cfg.select or None, split_codes(ignore) + cfg.ignore)
        except RuleSelectionError as e:
            raise ProjectError(str(e)) from None
        tgt = parse_version(self.target)
        self.rules = [r for r in rules if parse_version(r.since) <= tgt]
        self.exclude = [*cfg.exclude, *cfg.extend_exclude, *split_codes(exclude)]
        self.extend_include = [*cfg.extend_include, *split_codes(extend_include)]
        self.selected_dynamic = True
        if no_cache or os.environ.get("ADVISOR_NO_CACHE"):
            self.cache_dir = None
        else:
            self.cache_dir = cache_dir or os.environ.get("ADVISOR_CACHE_DIR") or os.path.join(cfg.project_root, ".advisor_cache")
        self.jobs = jobs
        self.baseline_path = baseline
        if device is not None and device not in DEVICES:
            raise ProjectError(f"unknown --device {device!r} (expected {', '.join(DEVICES)})")
        self.device = device or cfg.device
        self.device_context = None
        self._found = found if found is not None else self._discover()

    # -- files -------------------------------------------------------------

    def _discover(self):
        from advisor.discovery import DiscoveryError, discover

        try:
            return discover(self.paths, exclude=self.exclude, extend_include=self.extend_include)
        except DiscoveryError as e:
            raise ProjectError(str(e)) from None

    @property
    def files(self) -> list[str]:
        return self._found.files

    @property
    def text_files(self) -> list[str]:
        return self._found.text_files

    @property
    def discovery_errors(self) -> list[tuple[str, str]]:
        return self._found.errors

    # -- rules -------------------------------------------------------------

    def add_report_rules(self, ignored: list[str]) -> None:
        """The report lists dynamic torch access (ADV900) under "could not be analysed"."""
        from advisor.registry import rule_by_code

        codes = {r.code for r in self.rules}
        self.selected_dynamic = "ADV900" in codes
        if not self.selected_dynamic and not any("ADV900".startswith(i.upper()) for i in ignored):
            self.rules.append(rule_by_code("ADV900"))

    # -- the scan ----------------------------------------------------------

    def scan(self, progress: Callable[[int, int], None] | None = None):
        """Scan the project's Python files and return the engine's `ScanResult`."""
        from advisor.engine import scan

        options = self.scan_options()
        options.progress = progress
        return scan(self.files, options)

    def finish(self, result, project_markers=None):
        """Add the text files, scope device rules, list discovery errors, apply the baseline."""
        from advisor.device import apply_scope
        from advisor.findings import FileError, FileResult

        if self.text_files:
            from advisor.textfiles import scan_text_files

            result.results.extend(scan_text_files(self.text_files, self.rules))
            result.results.sort(key=lambda r: r.path)
            result.files_scanned += len(self.text_files)
        root = None if project_markers is not None else self.config.project_root
        self.device_context = apply_scope(result, self.device, root, extra_markers=project_markers)
        for path, reason in self.discovery_errors:
            result.results.append(FileResult(path, errors=[FileError(path, reason)]))
        from advisor.baseline import apply_baseline, find_baseline

        path = self.baseline_path or find_baseline(self.config.project_root)
        if path:
            try:
                apply_baseline(result, path, self.config.project_root)
            except ValueError as e:
                raise ProjectError(str(e)) from None
        return result

    def fails(self, result) -> bool:
        """Findings at or above `fail-on`, or files that could not be analysed, fail the run."""
        from advisor.findings import Severity

        floor = Severity(self.config.fail_on).rank
        return bool(result.errors) or any(Severity(f.severity).rank >= floor for f in result.findings)

    def scan_options(self, rules=None):
        """The engine's options for this project; `rules`: a subset of the project's rules."""
        from advisor.engine import ScanOptions

        return ScanOptions(
            self.rules if rules is None else rules,
            self.target,
            self.min_version,
            cache_dir=self.cache_dir,
            jobs=self.jobs,
            per_file_ignores=self.config.per_file_ignores,
            project_root=self.config.project_root,
        )
