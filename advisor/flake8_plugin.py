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
def _project(directory: str):
    """The project files in `directory` belong to, as `advisor scan` resolves it (config, target, rules)."""
    from advisor.run.project import Project

    return Project.for_editor(directory)


class Plugin:
    name = "torch-upgrade-advisor"
    version = __version__

    # flake8 passes arguments by name; taking `tree` makes this an AST plugin, run once per file.
    def __init__(self, tree, filename: str, lines: list[str]) -> None:
        self.filename = filename
        self.lines = lines

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        path = self.filename if self.filename not in ("-", "stdin", None) else "stdin.py"
        if path.endswith(".ipynb"):
            return  # flake8 reads notebooks as JSON text; `advisor scan` reads their cells
        project = _project(os.path.dirname(os.path.abspath(path)) or ".")
        # The prefilter and per-file-ignores choose the rules, as for `advisor scan`; syntax errors are flake8's E999.
        result = project.analyse_bytes(path, "".join(self.lines).encode("utf-8"), use="editor")
        for f in result.findings:
            yield f.line, f.column - 1, f"{f.rule} {f.message}", type(self)
