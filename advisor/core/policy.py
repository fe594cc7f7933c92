"""The release-window policy: one place decides a finding's kind, severity, fix and message prefix.

Rules declare data (a `Window`, maybe a `Kind`); this module turns it into what
the user sees for a target torch and a lowest supported torch. It runs at
analysis (`advisor.analysis.place.place`), before the `Finding` exists, so the
fixer, the cache and every output read one decision. Pure: no libcst, no torch.

| condition (target T)                        | kind       | severity | message          |
|---------------------------------------------|------------|----------|------------------|
| old-torch-only branch (`compat_until`)      | compat     | info     | COMPAT_PREFIX    |
| `since` > T (replacement not there yet)     | not reported                              |
| `removed_in` <= T                           | breaking   | error    | BREAKS_PREFIX    |
| `undeprecated_in` <= T                      | not reported                              |
| T < `deprecated_in`                         | not reported (the upgrade path lists it)  |
| the rule declares a kind                    | that kind  | per kind | the rule's own   |
| `deprecated_in` <= T, or `removed_in` > T   | deprecated | warning, or the rule's lower one |
| no window: from the rule's severity         | error: breaking, warning: deprecated, info: advice |

Fix: never on compat (a version-gated branch is kept as written); none at all when the
lowest supported torch lacks the replacement (`since`): a rewrite would break a torch the
project supports, so not even `--unsafe-fixes` applies it; UNSAFE when the new form only
behaves the same from a later release (`Safety.same_from`). The message gives the reason
with its release.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.core.pins import COMPANIONS
from advisor.core.findings import Applicability, Kind, Safety, Severity, Window
from advisor.core.versions import parse_version

Version = tuple[int, int]

_SEVERITY_OF = {
    Kind.BREAKING: Severity.ERROR,
    Kind.DEPRECATED: Severity.WARNING,
    Kind.ADVICE: Severity.INFO,
    Kind.COMPAT: Severity.INFO,
}
_KIND_OF = {Severity.ERROR: Kind.BREAKING, Severity.WARNING: Kind.DEPRECATED, Severity.INFO: Kind.ADVICE}

# The message wording, in one place.
BREAKS_PREFIX = "breaks in {removed_in}: "
COMPAT_MESSAGE = (
    "compat fallback: delete this branch when your lowest supported torch is >= {until}; "
    "not fixed: this is a version-gated branch ({message})"
)
# The lowest supported torch already has what the branch waits for: it never runs.
COMPAT_DEAD = (
    "compat fallback, dead code now: your lowest supported torch {lowest} is >= {until}, so this branch never "
    "runs; delete it ({message})"
)
COMPAT_UNKNOWN = (
    "compat fallback: delete this branch when your lowest supported torch no longer needs it; "
    "not fixed: this is a version-gated branch ({message})"
)
# Why a fix is unsafe on the project's lowest supported torch: the two reasons, each with its release.
NO_FIX_NOTE = " (no fix: the replacement does not exist before torch {since}; your lowest supported torch is {lowest})"
DIFFERS_NOTE = (
    " (fix not safe: the new form behaves differently below torch {same_from} ({differs}); "
    "your lowest supported torch is {lowest})"
)


@dataclass(frozen=True)
class Decision:
    kind: Kind
    severity: Severity
    applicability: Applicability
    message: str
    warns_from: str | None
    breaks_in: str | None


def _v(text: str | None) -> Version | None:
    return None if text is None else parse_version(text)


def kind_for(window: Window, kind: Kind | None, severity: Severity, target: Version) -> Kind | None:
    """The finding's kind on `target`, or None: nothing to report for that target."""
    if parse_version(window.since) > target:
        return None
    removed, undeprecated, deprecated = _v(window.removed_in), _v(window.undeprecated_in), _v(window.deprecated_in)
    if removed is not None and removed <= target:
        return Kind.BREAKING
    if undeprecated is not None and undeprecated <= target:
        return None
    if deprecated is not None and target < deprecated:
        return None
    if kind is not None:
        return kind
    if deprecated is not None or removed is not None:  # warns now, or is on its way out
        return Kind.DEPRECATED
    return _KIND_OF[severity]


def plain_kind(kind: Kind | None, severity: Severity) -> Kind:
    """The kind of a finding with no window to read (e.g. in a Dockerfile): declared, else from severity."""
    return kind or _KIND_OF[severity]


def severity_for(kind: Kind, declared: Severity) -> Severity:
    """Severity follows kind; a deprecation keeps a rule's lower default (e.g. info for private APIs)."""
    if kind is Kind.DEPRECATED and declared.rank < Severity.WARNING.rank:
        return declared
    return _SEVERITY_OF[kind]


def decide(
    window: Window,
    kind: Kind | None,
    severity: Severity,
    applicability: Applicability,
    message: str,
    target: Version,
    lowest: Version | None,
    compat_until: str | None = None,
    compat: bool = False,
    safety: Safety | None = None,
) -> Decision | None:
    """Everything the policy decides for one report; None: the report is dropped for this target.

    `compat`: the report sits in an old-torch-only branch (`compat_until` is the release
    that makes the branch dead, None when unknown). `lowest`: None only outside a
    project (rule examples), where no lower bound constrains fixes.
    """
    warns, breaks = window.deprecated_in, window.removed_in
    if compat or compat_until is not None:
        dead = compat_until is not None and lowest is not None and lowest >= parse_version(compat_until)
        template = COMPAT_DEAD if dead else COMPAT_MESSAGE if compat_until else COMPAT_UNKNOWN
        text = template.format(until=compat_until, message=message, lowest=_short(lowest))
        return Decision(Kind.COMPAT, Severity.INFO, Applicability.NONE, text, warns, breaks)
    decided = kind_for(window, kind, severity, target)
    if decided is None:
        return None
    if decided is Kind.BREAKING and breaks is not None and parse_version(breaks) <= target:
        prefix = BREAKS_PREFIX.format(removed_in=breaks)
        message = message if message.startswith(prefix) else prefix + message
    if applicability is not Applicability.NONE and lowest is not None:
        held, reason = fix_limit(window, safety, lowest)
        if reason:  # an unsafe fix says it too: `--unsafe-fixes` must not hide the release it needs
            applicability, message = held or applicability, message + reason
    return Decision(decided, severity_for(decided, severity), applicability, message, warns, breaks)


def fix_limit(window: Window, safety: Safety | None, lowest: Version) -> tuple[Applicability | None, str]:
    """What the lowest supported torch allows of a fix, and why ((None, "") when nothing limits it): none where
    the replacement is missing there (the rewrite would fail on it), unsafe where it behaves differently there."""
    low = f"{lowest[0]}.{lowest[1]}"
    exists = safety.exists_from if safety is not None and safety.exists_from else window.since
    if parse_version(exists) > lowest:
        return Applicability.NONE, NO_FIX_NOTE.format(since=exists, lowest=low)
    if safety is not None and parse_version(safety.same_from) > lowest:
        return Applicability.UNSAFE, DIFFERS_NOTE.format(same_from=safety.same_from, differs=safety.differs, lowest=low)
    return None, ""


def torch_window(window: Window, library: str | None) -> Window:
    """A companion rule's window (torchvision / torchaudio versions) in the torch releases that bring them.

    Each version becomes the first torch release whose companion (`pins.COMPANIONS`: what pip resolves
    with it) is at least that version; one newer than every known pairing becomes None (not reached).
    Torch rules (library None) keep their window.
    """
    if library is None:
        return window
    column = 0 if library == "torchvision" else 1
    pairs = sorted((parse_version(t), parse_version(libs[column]), t) for t, libs in COMPANIONS.items())

    def brings(version: str | None) -> str | None:
        if version is None:
            return None
        wanted = parse_version(version)
        return next((t for _, lib, t in pairs if lib >= wanted), None)

    return Window(
        since=brings(window.since) or pairs[0][2],
        deprecated_in=brings(window.deprecated_in),
        removed_in=brings(window.removed_in),
        undeprecated_in=brings(window.undeprecated_in),
    )


def rule_kind(windows: "list[Window]", kind: Kind | None, severity: Severity, target: Version) -> Kind | None:
    """What a rule is on `target` (for `advisor rules --target-version`): the most severe of its windows' kinds."""
    kinds = [k for w in windows if (k := kind_for(w, kind, severity, target)) is not None]
    order = (Kind.BREAKING, Kind.DEPRECATED, Kind.ADVICE, Kind.COMPAT)
    return min(kinds, key=order.index) if kinds else None


def _short(version: Version | None) -> str:
    """`2.4` for the Version 2.4.0 (as the project's pins and flags spell it)."""
    return "" if version is None else f"{version[0]}.{version[1]}"
