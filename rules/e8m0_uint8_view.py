from __future__ import annotations

from advisor.findings import Applicability, Severity
from advisor.lazy import cst
from advisor.rule import Example, Rule

from ._export import E8M0, LOAD, SAVE, ExportUsage

UINT8 = "torch.uint8"


class E8M0Uint8Workaround(ExportUsage, Rule):
    """uint8 reinterpretation of e8m0 scales around export: a pre-2.12 workaround 2.12 makes unnecessary.

    What it finds: `.view(torch.uint8)` and `.view(torch.float8_e8m0fnu)` in a
    module that saves or loads exported programs (`torch.export.save` /
    `load`), when the module also mentions `float8_e8m0fnu` or the view sits in
    the same function or class as the save/load.

    Why: before 2.12, `torch.export.save` could not serialize e8m0
    (`KeyError: torch.float8_e8m0fnu`, issue #176621), so code stored MX
    scales as uint8 and viewed them back after loading. 2.12 serializes e8m0
    directly (PR #176270), so the round trip through uint8 can go, provided
    every reader of the files runs >= 2.12.

    Example:
        self.register_buffer("scale", scale.view(torch.uint8))  # workaround
        # becomes
        self.register_buffer("scale", scale)

    Fix safety: no automatic fix: files written with the workaround must still
    load, and older readers still need it.

    Validation: `export_roundtrip`.
    """

    code = "ADV402"
    name = "e8m0-uint8-workaround"
    message = "`.view({dtype})` looks like the pre-2.12 uint8 workaround for exporting e8m0 scales; torch 2.12 serializes float8_e8m0fnu directly"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "export_roundtrip"
    triggers = ("uint8", "float8_e8m0fnu")
    targets = (*SAVE, *LOAD)

    valid = [
        "import torch\nb = x.view(torch.uint8)",  # no export in this module
        "import torch\nb = x.view(torch.uint8)\ntorch.export.save(ep, p)\n",  # export, but nothing e8m0 and not the same scope
    ]
    invalid = [
        Example("import torch\ns = scale.view(torch.uint8)\nep = torch.export.export(m, (x,))\ntorch.export.save(ep, p)\nback = s.view(torch.float8_e8m0fnu)\n", count=2),
        Example("import torch\ndef save(m, p):\n    m.s = m.s.view(torch.uint8)\n    torch.export.save(torch.export.export(m, ()), p)\n"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._init_export()
        self._scopes: list = [None]
        self._views: list = []  # (call, dtype, scope)
        self._save_scopes: set = set()

    def _enter(self, node) -> None:
        self._scopes.append(node)

    def _leave(self, node) -> None:
        self._scopes.pop()

    visit_FunctionDef = visit_ClassDef = _enter
    leave_FunctionDef = leave_ClassDef = _leave

    def visit_Call(self, node) -> None:
        before = len(self.saves) + len(self.loads)
        super().visit_Call(node)
        if len(self.saves) + len(self.loads) > before:
            self._save_scopes.update(s for s in self._scopes if s is not None)
            return
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "view" and len(node.args) == 1:
            for q in self.qualnames(node.args[0].value):
                if q in (UINT8, E8M0):
                    self._views.append((node, q, [s for s in self._scopes if s is not None]))

    def leave_Module(self, node) -> None:
        if not (self.saves or self.loads):
            return
        for call, dtype, scopes in self._views:
            if E8M0 in self.dtypes or any(s in self._save_scopes for s in scopes):
                self.report(call, self.message.format(dtype=dtype))
