from __future__ import annotations

from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, cst

# name -> (the releases (minor) in which the name is missing, what to do); read from the 2.0.0-2.15.0 wheels.
_DCP = "torch.distributed.checkpoint"
_FSSPEC_MISSING = ((2, 0), (2, 1), (2, 2), *((2, m) for m in range(4, 15)))
_FSSPEC_WAY = (
    f"guard the import (`try:`/`except ImportError:`) or import it from `{_DCP}._fsspec_filesystem` (2.1-2.15)"
)
GAPS: dict[str, tuple[tuple[tuple[int, int], ...], str]] = {
    f"{_DCP}.FsspecReader": (_FSSPEC_MISSING, _FSSPEC_WAY),
    f"{_DCP}.FsspecWriter": (_FSSPEC_MISSING, _FSSPEC_WAY),
}


def _span(missing: tuple[tuple[int, int], ...]) -> str:
    """`2.0-2.2, 2.4-2.14` from the sorted minors."""
    runs: list[list[tuple[int, int]]] = []
    for v in missing:
        if runs and v == (runs[-1][-1][0], runs[-1][-1][1] + 1):
            runs[-1].append(v)
        else:
            runs.append([v])
    return ", ".join(f"{r[0][0]}.{r[0][1]}" + (f"-{r[-1][0]}.{r[-1][1]}" if len(r) > 1 else "") for r in runs)


class ImportGaps(Rule):
    """A torch name that some releases in the project's range do not define: its import fails there.

    What it finds: `from torch.distributed.checkpoint import FsspecReader` / `FsspecWriter` (and the
    same names reached as attributes, `torch.distributed.checkpoint.FsspecReader`), where the project's lowest supported torch
    (or, with no lower bound, torch 2.0) is at or below a release that lacks the name. Imports under
    `try:` with an `except ImportError` are compat code and left alone.

    Why: these names come and go between releases, so the mined catalogue (which compares each release
    with the newest) does not see them as removed. In the wheels: `torch.distributed.checkpoint` exports
    `FsspecReader` / `FsspecWriter` only in 2.3 (`from .fsspec import ...`) and 2.15 (`from
    .fsspec_filesystem import ...`); the class lives in the private `_fsspec_filesystem` module from 2.1.
    The import raises ImportError (the attribute, AttributeError) on those releases.

    Not reported: `torch.distributed.tensor.parallel.SequenceParallel`, missing from 2.0 and 2.2 (2.1's
    is a `PairwiseParallel` subclass). 2.3 rewrote that experimental API, so code written for today's
    `SequenceParallel` does not run on 2.0-2.2 whatever it imports: on two real repositories
    (torchtune, pytorch/examples, which declare no torch bound) the finding only restated that.

    Example:
        from torch.distributed.checkpoint import FsspecReader   # ImportError on 2.4-2.14

    Fix safety: none: which import works depends on the supported range.
    Verified: the `__init__.py` of torch.distributed.checkpoint and torch.distributed.tensor.parallel in
    the 2.0.0-2.15.0 wheels; torch 2.13.0 and 2.15.0 at run time. Truth: K-163/import-gaps.
    Validation: none.
    """

    code = "ADV163"
    name = "import-gaps"
    message = "`{name}` does not exist in torch {span}, which your supported range includes: {way}"
    severity = Severity.ERROR
    fix = Applicability.NONE
    triggers = ("FsspecReader", "FsspecWriter")
    targets = tuple(GAPS)

    valid = [
        "from torch.distributed.checkpoint import FileSystemReader\n",
        "try:\n    from torch.distributed.checkpoint import FsspecReader\nexcept ImportError:\n    FsspecReader = None\n",
        "from torch.distributed.checkpoint._fsspec_filesystem import FsspecReader\n",
        "from torch.distributed.tensor.parallel import ColwiseParallel, SequenceParallel\n",
        "from megatron.core import SequenceParallel\n",
    ]
    invalid = [
        Example(
            "from torch.distributed.checkpoint import FsspecReader\n",
            message="`torch.distributed.checkpoint.FsspecReader` does not exist in torch 2.0-2.2, 2.4-2.14",
            line=1,
            column=1,
        ),
        Example("import torch.distributed.checkpoint as dcp\nw = dcp.FsspecWriter(path)\n"),
    ]

    def __init__(self, ctx: Any) -> None:
        super().__init__(ctx)
        self._try_import_error = 0

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # an import of the name counts even where it is never used
        return super().may_match(refs) or not refs.imports.isdisjoint(GAPS)

    def visit_Try(self, node: Any) -> None:
        if any(_catches_import_error(h) for h in node.handlers):
            self._try_import_error += 1

    def leave_Try(self, node: Any) -> None:
        if any(_catches_import_error(h) for h in node.handlers):
            self._try_import_error -= 1

    def visit_ImportFrom(self, node: Any) -> None:
        if isinstance(node.names, cst.ImportStar) or node.relative or node.module is None:
            return
        module = self.ctx.code_for(node.module)
        for alias in node.names:
            name = f"{module}.{self.ctx.code_for(alias.name)}"
            if name in GAPS:
                self._gap(node, name)

    def visit_Attribute(self, node: Any) -> None:
        name = self.match(node, GAPS)
        if name is not None:
            self._gap(node, name)

    def _gap(self, node: Any, name: str) -> None:
        missing, way = GAPS[name]
        lowest = self.ctx.lowest or (2, 0)
        if self._try_import_error or not any(v >= lowest and v <= self.ctx.target for v in missing):
            return
        self.report(node, self.message.format(name=name, span=_span(missing), way=way))


def _catches_import_error(handler: Any) -> bool:
    kind = handler.type
    if kind is None:
        return True
    names = [e.value for e in kind.elements] if isinstance(kind, cst.Tuple) else [kind]
    return any(
        isinstance(n, cst.Name) and n.value in ("ImportError", "ModuleNotFoundError", "Exception") for n in names
    )
