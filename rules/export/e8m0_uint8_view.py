from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, cst

from ._export import E8M0, LOAD, SAVE, ExportUsage

UINT8 = "torch.uint8"


class E8M0Uint8Workaround(ExportUsage):
    """uint8 reinterpretation of e8m0 scales around export: a pre-2.12 workaround 2.12 makes unnecessary.

    What it finds: `.view(torch.uint8)` and `.view(torch.float8_e8m0fnu)` in a
    module that saves or loads exported programs (`torch.export.save` /
    `load`) and mentions `float8_e8m0fnu`. (A uint8 view in a module with no
    e8m0 at all is ordinary byte handling, e.g. dequantization, and is left
    alone.)

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
        "import torch\nb = x.view(torch.uint8)\ntorch.export.save(ep, p)\n",  # export, but nothing e8m0
        "import torch\ndef save(m, p):\n    q = m.w.view(torch.uint8)\n    torch.export.save(torch.export.export(m, ()), p)\n",
    ]
    invalid = [
        Example(
            "import torch\ns = scale.view(torch.uint8)\nep = torch.export.export(m, (x,))\ntorch.export.save(ep, p)\nback = s.view(torch.float8_e8m0fnu)\n",
            count=2,
        ),
        Example(
            "import torch\nE8M0 = torch.float8_e8m0fnu\ndef save(m, p):\n    m.s = m.s.view(torch.uint8)\n    torch.export.save(torch.export.export(m, ()), p)\n"
        ),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._views: list = []  # (call, dtype)

    def visit_Call(self, node) -> None:
        super().visit_Call(node)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "view" and len(node.args) == 1:
            for q in self.qualnames(node.args[0].value):
                if q in (UINT8, E8M0):
                    self._views.append((node, q))

    def leave_Module(self, node) -> None:
        if (self.saves or self.loads) and E8M0 in self.dtypes:
            for call, dtype in self._views:
                self.report(call, self.message.format(dtype=dtype))
