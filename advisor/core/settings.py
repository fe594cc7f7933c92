"""A run's settings: one frozen value, built once (`Project.load`) and carried by every job and rule context.

Each `[tool.advisor]` key and its command-line flag are declared once, as a field of
`Settings` with its metadata: the TOML key, how its value is parsed, and how a flag
combines with the config (replaces it, adds to it, or switches it on). Fixit's
`Config` and Ruff's `Configuration` -> `LinterSettings` are the models:

    Settings.from_toml(section, where)   # the project's config, checked key by key
        .with_overrides(select=[...])    # the flags, by keyword
    plain.replace(settings, versions=...)  # the torch versions, resolved against the project's pins

`Settings` is a plain frozen class (`advisor.core.plain`), not a dataclass: a clean-file scan
imports it, and a dataclass of 27 fields costs more to build than the rest of the module.

Nothing here reads files or knows the rules; `advisor.core.config` finds and reads the TOML.
"""

from __future__ import annotations

import fnmatch
import os
from typing import Any, Callable

from advisor.core.docs_url import DEFAULT_DOCS_URL, parse_docs_url
from advisor.core.config import DEFAULT_FAIL_ON, DEVICES, ConfigError, parse_fail_on, read_section
from advisor.core.plain import Frozen, Plain, init, replace
from advisor.core.releases import NEWEST, OLDEST
from advisor.core.selector import Selector
from advisor.core.versions import parse_version

REPLACE, EXTEND, EITHER = "replace", "extend", "either"  # how a flag combines with the config's value


def split_codes(values: Any) -> tuple[str, ...]:
    """`--select A,B --select C` -> (A, B, C); a string is one comma-separated value."""
    out: list[str] = []
    for v in [values] if isinstance(values, str) else values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of strings, got {value!r}")
    return tuple(value)


def _table(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ValueError("expected a table of glob = [codes]")
    return tuple((k, _strings(v)) for k, v in value.items())


def _version(example: str) -> Callable[[Any], str]:
    def parse(value: Any) -> str:
        if not isinstance(value, str):
            raise ValueError(f'expected a version string such as "{example}", got {value!r}')
        return value

    return parse


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _device(value: Any) -> str:
    if value not in DEVICES:
        raise ValueError(f"expected one of {', '.join(DEVICES)}, got {value!r}")
    return value


def _flag_device(value: Any) -> str:
    if value not in DEVICES:
        raise ValueError(f"unknown --device {value!r} (expected {', '.join(DEVICES)})")
    return value


class Option(Plain):
    """A setting's declaration: its default; `key` in `[tool.advisor]` read with `parse`; a flag of the same
    name combines by `merge` (None: no flag), its value read with `flag_parse` (default: codes or patterns,
    comma-separated)."""

    __slots__ = ("default", "key", "parse", "merge", "flag_parse")
    default: Any
    key: str | None
    parse: Callable[[Any], Any] | None
    merge: str | None
    flag_parse: Callable[[Any], Any] | None

    def __init__(
        self,
        default: Any,
        key: str | None = None,
        parse: Callable[[Any], Any] | None = None,
        merge: str | None = None,
        flag_parse: Callable[[Any], Any] | None = None,
    ) -> None:
        self.default, self.key, self.parse, self.merge, self.flag_parse = default, key, parse, merge, flag_parse


def option(
    default: Any,
    key: str | None = None,
    parse: Callable[[Any], Any] | None = None,
    merge: str | None = None,
    flag_parse: Callable[[Any], Any] | None = None,
) -> Any:
    """A setting, declared in `Settings`' body (typed Any there, as `dataclasses.field` is)."""
    return Option(default, key, parse, merge, flag_parse)


class Versions(Frozen):
    """The torch versions a run is about: upgraded to, still supported, and the companions the target brings."""

    __slots__ = ("target", "lowest", "companions")
    target: str
    lowest: str | None  # the lowest torch the project supports; None: no lower bound (tests, the editors' warm-up)
    companions: tuple[tuple[str, str], ...]  # (torchvision | torchaudio, "X.Y")

    def __init__(
        self, *, target: str = NEWEST, lowest: str | None = None, companions: tuple[tuple[str, str], ...] = ()
    ) -> None:
        init(self, target, lowest, companions)

    @property
    def target_tuple(self) -> tuple[int, int]:
        return parse_version(self.target)

    @property
    def lowest_tuple(self) -> tuple[int, int] | None:
        return parse_version(self.lowest) if self.lowest else None


class Settings(Frozen):
    """Every setting of a run; `[tool.advisor]` keys and flags are declared here, once. Keyword-only."""

    root: str = option(".")  # the project root: globs of per-file-ignores and exclude are relative to it
    config_path: str | None = option(None)  # the pyproject.toml read, if any
    select: tuple[str, ...] = option((), "select", _strings, REPLACE)  # empty: the default set
    extend_select: tuple[str, ...] = option((), "extend-select", _strings, EXTEND)
    ignore: tuple[str, ...] = option((), "ignore", _strings, EXTEND)
    fixable: tuple[str, ...] = option((), "fixable", _strings, EXTEND)  # empty: every rule's fix may apply
    unfixable: tuple[str, ...] = option((), "unfixable", _strings, EXTEND)  # reported, never fixed
    exclude: tuple[str, ...] = option((), "exclude", _strings, EXTEND)
    extend_exclude: tuple[str, ...] = option((), "extend-exclude", _strings)
    extend_include: tuple[str, ...] = option((), "extend-include", _strings, EXTEND)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = option((), "per-file-ignores", _table)
    target_version: str | None = option(None, "target-version", _version(NEWEST), REPLACE, str)
    min_torch: str | None = option(None, "min-torch", _version(OLDEST), REPLACE, str)  # asked; resolved: versions
    unsafe_fixes: bool = option(False, "unsafe-fixes", _bool, REPLACE, bool)
    force_exclude: bool = option(False, "force-exclude", _bool, EITHER, bool)  # Ruff's force-exclude
    fail_on: tuple[str, ...] = option(DEFAULT_FAIL_ON, "fail-on", parse_fail_on, REPLACE, parse_fail_on)
    device: str | None = option(None, "device", _device, REPLACE, _flag_device)  # overrides ROCm detection
    lazy_import_helpers: tuple[str, ...] = option((), "lazy-import-helpers", _strings)  # read per file, checked here
    docs_url: str = option(DEFAULT_DOCS_URL, "docs-url", parse_docs_url)  # the rules' documentation, `{code}`
    # Flags only.
    targets: tuple[str, ...] = option((), merge=REPLACE)  # `--target torchvision=0.29` (advisor.core.pins)
    cache_dir: str | None = option(None, merge=REPLACE, flag_parse=str)
    no_cache: bool = option(False, merge=EITHER, flag_parse=bool)
    jobs: int | None = option(None, merge=REPLACE, flag_parse=int)
    baseline: str | None = option(None, merge=REPLACE, flag_parse=str)  # "": none (--no-baseline)
    report: bool = option(False, merge=EITHER, flag_parse=bool)  # report-only rules (ADV900) join the scan
    # Resolved by Project.load from the above and the project's pins (a shared default: it is frozen).
    versions: Versions = option(Versions())

    def __init__(self, **values: Any) -> None:
        unknown = values.keys() - _OPTIONS.keys()
        if unknown:
            raise TypeError(f"Settings.__init__() got an unexpected keyword argument {sorted(unknown)[0]!r}")
        for name, declared in _OPTIONS.items():
            object.__setattr__(self, name, values[name] if name in values else declared.default)

    @classmethod
    def from_toml(cls, section: dict, config_path: str | None = None, root: str = ".") -> "Settings":
        """The settings `section` (a parsed `[tool.advisor]` table) declares; a bad key or value is a ConfigError."""
        where = f"{config_path}: [tool.advisor]" if config_path else "[tool.advisor]"
        by_key = {o.key: (name, o.parse) for name, o in _OPTIONS.items() if o.key and o.parse}
        values: dict[str, Any] = {}
        for key, value in section.items():
            if key not in by_key:
                raise ConfigError(f"{where} {key}: unknown key")
            name, parse = by_key[key]
            try:
                values[name] = parse(value)
            except ValueError as e:
                raise ConfigError(f"{where} {key}: {e}") from None
        return cls(root=root, config_path=config_path, **values)

    def with_overrides(self, **flags: Any) -> "Settings":
        """These settings with the command line's flags applied, by field name; None (a flag not given) changes nothing.

        Raises ValueError (the message names the flag's problem) and TypeError for a name that is no flag.
        """
        changes: dict[str, Any] = {}
        for name, value in flags.items():
            declared = _OPTIONS.get(name)
            if declared is None or declared.merge is None:
                raise TypeError(f"no flag sets {name!r}")
            if value is None:
                continue
            parse = declared.flag_parse or split_codes
            value, merge = parse(value), declared.merge
            if merge == EXTEND:
                value = getattr(self, name) + value
            elif merge == EITHER:
                value = getattr(self, name) or value
            elif merge == REPLACE and value == ():
                continue  # an empty list (`--select` not given) keeps the config's
            changes[name] = value
        return replace(self, **changes)

    def code_lists(self) -> dict[str, tuple[str, ...]]:
        """Each setting that holds rule codes, by its key (per-file-ignores by glob): what the registry checks."""
        out = {key: getattr(self, name) for name in _CODE_FIELDS if (key := _OPTIONS[name].key)}
        out.update({f"per-file-ignores.{glob}": codes for glob, codes in self.per_file_ignores})
        return out

    def ignored_for(self, path: str) -> Selector:
        """The codes `per-file-ignores` switches off for `path` (globs relative to the project root)."""
        if not self.per_file_ignores:
            return Selector()
        rel = os.path.relpath(os.path.abspath(path), self.root).replace(os.sep, "/")
        return Selector.of(c for pattern, cs in self.per_file_ignores if fnmatch.fnmatch(rel, pattern) for c in cs)

    def may_fix(self, code: str) -> bool:
        """Whether a finding of rule `code` may be fixed: `fixable` (empty: all) and not `unfixable`."""
        fixable = Selector.of(self.fixable)
        return (not fixable or fixable.matches(code)) and not Selector.of(self.unfixable).matches(code)


_OPTIONS: dict[str, Option] = {name: vars(Settings)[name] for name in Settings._fields}  # by field, in order
_CODE_FIELDS = ("select", "extend_select", "ignore", "fixable", "unfixable")


def settings_at(target: str, lowest: str | None = None, **given: Any) -> Settings:
    """Settings for analysing at `target` with this lower bound and nothing else set (tests, the editors' warm-up)."""
    return Settings(versions=Versions(target=target, lowest=lowest), **given)


def load_settings(paths: list[str], explicit: str | None = None) -> Settings:
    """The project's `[tool.advisor]` settings, from the pyproject.toml found above `paths` (or `explicit`)."""
    root, cfg_path, section = read_section(paths, explicit)
    return Settings.from_toml(section, cfg_path, root)
