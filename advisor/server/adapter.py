"""Everything the language server asks of advisor, in one place.

The server holds editor buffers (str); advisor analyses and fixes bytes as read from
disk. This module turns one into the other and runs the same steps as `advisor scan`
and `advisor fix` on one file: the project's `[tool.advisor]` config and target
version (`Project`), the prefilter and per-file ignores, the engine's per-file job
(suppressions, slicing of big files), ROCm scoping and the baseline (`Project.finish`),
and the fixer, through the project's doors (advisor.run.project). It returns plain `Issue`s, so the protocol side never sees a `Finding`.

Nothing here imports libcst at module level; `warm()` pays for it in the background.
"""

from __future__ import annotations

import glob
import os
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from advisor.core.config import find_project_root
from advisor.core.docs_url import rule_docs_url
from advisor.core.versions import parse_version
from advisor.run.project import (  # noqa: F401  (warm: lsp.py calls it here)
    Project,
    ProjectError,
    forget_config_caches,
    rule_by_code,
    warm,
)

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", re.ASCII)


class SettingsError(ValueError):
    """The project's config (or target) is invalid; the message is for the user."""


@dataclass(frozen=True)
class Issue:
    """One finding, positioned in the buffer (0-based lines, 0-based columns in code points)."""

    code: str
    name: str
    severity: str  # error | warning | info
    message: str
    line: int
    column: int
    end_line: int
    end_column: int
    fix: str | None  # safe | unsafe | None
    kind: str | None
    warns_from: str | None
    breaks_in: str | None
    validation: str | None
    docs_url: str = ""  # the rule's documentation, under the project's `docs-url`

    @property
    def key(self) -> list:
        """Identifies the finding in a later analysis of the same text."""
        return [self.code, self.line, self.column]


@dataclass
class Analysis:
    issues: list[Issue] = field(default_factory=list)
    error: str | None = None  # why the buffer was not analysed (syntax error, ...)


@dataclass
class Settings:
    """One project, as `advisor scan` resolves it, and what it was read from."""

    project: Project
    stamp: tuple

    @property
    def root(self) -> str:
        return self.project.root

    @property
    def target(self) -> str:
        return self.project.target

    @property
    def unsafe_fixes(self) -> bool:
        return self.project.settings.unsafe_fixes


_settings: dict[str, Settings] = {}
_lock = threading.Lock()


# What a cached `Settings` depends on: the config and the pins the target is read from (advisor.versions).
# The baseline and the ROCm project files are read afresh by every analysis.
SETTINGS_FILES = ("pyproject.toml", "requirements*.txt", "uv.lock", "poetry.lock")
WATCHED = "**/{pyproject.toml,requirements*.txt,uv.lock,poetry.lock,advisor-baseline.json}"


def _stamp(root: str) -> tuple:
    out = []
    for pattern in SETTINGS_FILES:
        for path in sorted(glob.glob(os.path.join(glob.escape(root), pattern))):
            try:
                out.append((path, os.stat(path).st_mtime_ns))
            except OSError:
                pass
    return tuple(out)


def settings_for(path: str) -> Settings:
    """The settings `advisor scan PATH` would use: config from the nearest pyproject.toml upwards."""
    root = find_project_root([path])
    stamp = _stamp(root)
    with _lock:
        cached = _settings.get(root)
        if cached is not None and cached.stamp == stamp:
            return cached
    try:
        project = Project.for_editor(path)  # the buffer is the one file: nothing is discovered on disk
    except ProjectError as e:
        raise SettingsError(str(e)) from None
    settings = Settings(project, stamp)
    with _lock:
        _settings[root] = settings
    return settings


def forget_settings() -> None:
    """Drop cached settings, and what the pipeline read of config files by directory (a config file changed)."""
    with _lock:
        _settings.clear()
        forget_config_caches()


def encode(text: str) -> tuple[bytes, str]:
    """The bytes the buffer would be saved as: its coding cookie's encoding, else UTF-8."""
    head = text[:400].encode("utf-8", "surrogatepass").splitlines()[:2]
    for line in head:
        m = _COOKIE.match(line)
        if m:
            encoding = m.group(1).decode("ascii")
            try:
                return text.encode(encoding), encoding
            except (LookupError, UnicodeEncodeError):
                break  # advisor reports the file's encoding problem itself
        if line.strip() and not line.lstrip().startswith(b"#"):
            break
    return text.encode("utf-8", "surrogatepass"), "utf-8"


def _rule(code: str):
    return rule_by_code(code)


def _versions(finding: Any, rule: Any) -> tuple[str | None, str | None]:
    """(warns_from, breaks_in): from the finding where it says, else from the rule's metadata."""
    warns = getattr(finding, "warns_from", None) or finding.data.get("warns_from") or rule.deprecated_in
    breaks = getattr(finding, "breaks_in", None) or finding.data.get("breaks_in") or rule.removed_in
    return warns, breaks


def _kind(finding: Any, rule: Any, target: str, warns: str | None, breaks: str | None) -> str | None:
    kind = getattr(finding, "kind", None) or finding.data.get("kind")
    if kind:
        return str(getattr(kind, "value", kind))
    t = parse_version(target)
    if breaks and parse_version(breaks) <= t:
        return "breaking"
    if warns and parse_version(warns) <= t:
        return "deprecated"
    return None


def analyse_buffer(text: str, path: str, settings: Settings) -> Analysis:
    """Findings for `text` as `advisor scan path` would report them if `text` were on disk."""
    project = settings.project
    data, _ = encode(text)
    scanned = project.shape(project.analyse_bytes(path, data, incremental=True))  # ROCm scoping, baseline
    out = Analysis(error="; ".join(e.message for e in scanned.errors) or None)
    for f in scanned.findings:
        rule = _rule(f.rule)
        warns, breaks = _versions(f, rule)
        out.issues.append(
            Issue(
                code=f.rule,
                name=f.name,
                severity=f.severity,
                message=f.message,
                line=f.line - 1,
                column=f.column - 1,
                end_line=f.end_line - 1,
                end_column=f.end_column - 1,
                fix=f.fix,
                kind=_kind(f, rule, project.target, warns, breaks),
                warns_from=warns,
                breaks_in=breaks,
                validation=f.validation,
                docs_url=docs_url(f.rule, project.settings.docs_url),
            )
        )
    return out


def fix_all(text: str, path: str, settings: Settings) -> str | None:
    """`text` with every safe fix applied (as `advisor fix` without unsafe fixes), or None if nothing changes."""
    data, encoding = encode(text)
    outcome = settings.project.fix_bytes(path, data, unsafe=False)
    if outcome.error or not outcome.changed:
        return None
    return outcome.fixed.decode(encoding)


def fix_one(text: str, path: str, settings: Settings, key: list) -> str | None:
    """`text` with only the finding `key` (`Issue.key`) fixed, or None if it has no fix here (as `advisor fix`
    would make it: the node swapped, imports added and removed, the result checked to parse)."""
    data, encoding = encode(text)
    new = settings.project.fix_bytes(path, data, at=key)
    return None if new is None else new.decode(encoding)


def fix_each(text: str, path: str, settings: Settings, keys: list) -> dict[tuple, str | None]:
    """Each finding of `keys` fixed alone (as `fix_one`), from one analysis: {key: new text, or None}."""
    data, encoding = encode(text)
    fixed = settings.project.fix_bytes(path, data, each=keys)
    return {key: None if new is None else new.decode(encoding) for key, new in fixed.items()}


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str
    severity: str
    since: str
    fix: str
    validation: str | None
    deprecated_in: str | None
    removed_in: str | None
    doc: str
    url: str


def rule_info(code: str) -> RuleInfo:
    """What `advisor explain CODE` prints, as data."""
    rule = _rule(code)
    m = rule.metadata()
    return RuleInfo(
        rule.code,
        rule.name,
        m["severity"],
        m["since"],
        m["fix"],
        m["validation"],
        rule.deprecated_in,
        rule.removed_in,
        rule.doc(),
        docs_url(code),
    )


def docs_url(code: str, template: str | None = None) -> str:
    """The rule's documentation page under the project's `docs-url` template (advisor.core.docs_url)."""
    return rule_docs_url(code, _rule(code).name, template)
