"""A flake8 plugin: ADV codes in a flake8 run, as TorchFix offered its TOR codes.

Registered as the `flake8.extension` entry point `ADV`. Each file flake8 hands over is
analysed by the same engine as `advisor scan`, on the text flake8 read (so stdin works),
with the project's `[tool.advisor]` config (target, select/ignore, per-file-ignores) and
advisor's own `# advisor: ignore[...]` comments; flake8's `# noqa` and its
`--select/--ignore/--extend-ignore` apply on top. torch is never imported.

ROCm rules (ADV8xx) need the whole project to decide their scope, and syntax errors are
flake8's own E999: both stay with `advisor scan`.
"""

from __future__ import annotations

import functools
import os
from typing import Iterator

from advisor import __version__


@functools.lru_cache(maxsize=64)
def _setup(directory: str):
    """(prefilter, target, min_version, config) for files in `directory`, from its project's config."""
    from advisor.core.config import load_config
    from advisor.analysis.prefilter import Prefilter
    from advisor.analysis.registry import select_rules
    from advisor.rule import parse_version
    from advisor.core.versions import resolve_bounds

    cfg = load_config([directory])
    target, _, min_version, _, _ = resolve_bounds(cfg.target_version, cfg.min_torch, cfg.project_root)
    tgt = parse_version(target)
    rules = [
        r
        for r in select_rules(cfg.select or None, cfg.ignore, cfg.extend_select)
        if parse_version(r.since) <= tgt and r.device is None
    ]
    return Prefilter(rules), target, min_version, cfg


class Plugin:
    name = "torch-upgrade-advisor"
    version = __version__

    # flake8 passes arguments by name; taking `tree` makes this an AST plugin, run once per file.
    def __init__(self, tree, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        from advisor.analysis.analyse import analyse
        from advisor.core.config import per_file_ignored_codes

        path = self.filename if self.filename not in ("-", "stdin", None) else "stdin.py"
        if path.endswith(".ipynb"):
            return  # flake8 reads notebooks as JSON text; `advisor scan` reads their cells
        prefilter, target, min_version, cfg = _setup(os.path.dirname(os.path.abspath(path)) or ".")
        data = "".join(self.lines).encode("utf-8")
        candidates = prefilter.candidates(data)
        off = per_file_ignored_codes(path, cfg.per_file_ignores, cfg.project_root)
        candidates = [r for r in candidates if not any(r.code.startswith(c) for c in off)]
        if not candidates:
            return
        result, _ = analyse(data, path, candidates, target, min_version)
        for f in result.findings:
            yield f.line, f.column - 1, f"{f.rule} {f.message}", type(self)
