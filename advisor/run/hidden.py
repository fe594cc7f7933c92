"""What a run was told to leave out, said in one line (issue 41, item 10).

A pull request can hide findings without touching a line of code: `ignore` or `per-file-ignores` in its
`pyproject.toml`, an `exclude` glob, a nested `.gitignore`, a folder named `build/` or `venv/` anywhere, a
committed baseline. Each is legitimate, so none is refused; but "Found 0 findings" must not be all CI shows.
`advisor scan` and `advisor fix` print this line on stderr (not under `-q`, which prints findings and errors only).
"""

from __future__ import annotations

import os
from collections import defaultdict
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from advisor.core.settings import Settings

_NAMED = 3  # paths named per cause; the rest are counted


def config_turned_off(config: "Settings") -> list[str]:
    """The settings of the project's config file (before any flag) that switch rules off, as written there."""
    if not config.config_path:
        return []
    off = []
    if config.select:
        off.append(f"select = [{', '.join(config.select)}] (no other rule)")
    if config.ignore:
        off.append(f"ignore = [{', '.join(config.ignore)}]")
    for glob, codes in config.per_file_ignores:
        off.append(f'per-file-ignores "{glob}" = [{", ".join(codes)}]')
    return off


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _cause(by: str) -> str:
    if by == "exclude":
        return "exclude globs"
    if by == "skip":
        return "the folder names advisor always skips (build, dist, venv, ...)"
    return os.path.relpath(by) if os.path.isabs(by) else by  # a .gitignore


def _left_out(left_out: Sequence[tuple[str, str]]) -> str:
    by_cause: dict[str, list[str]] = defaultdict(list)
    for path, by in left_out:
        by_cause[by].append(path)
    parts = []
    for by, paths in by_cause.items():
        folders = sum(p.endswith("/") for p in paths)
        counted = [_plural(len(paths) - folders, "file")] if len(paths) > folders else []
        counted += [_plural(folders, "folder")] if folders else []
        named = ", ".join(paths[:_NAMED]) + (", ..." if len(paths) > _NAMED else "")
        parts.append(f"{' and '.join(counted)} ({named}) by {_cause(by)}")
    return "left out " + "; ".join(parts)


def hidden_line(
    config_path: str | None,
    turned_off: Sequence[str],
    left_out: Sequence[tuple[str, str]],
    baseline: tuple[str, int] | None = None,
) -> str | None:
    """One line on what the config turned off, what discovery left out and by what, and what a baseline hid;
    None when nothing was."""
    parts = []
    if turned_off:
        parts.append(f"{config_path} turns off {', '.join(turned_off)}")
    if left_out:
        parts.append(_left_out(left_out))
    if baseline and baseline[1]:
        parts.append(f"the baseline {baseline[0]} hid {_plural(baseline[1], 'finding')}")
    return "advisor: note: " + "; ".join(parts) if parts else None
