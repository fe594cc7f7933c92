from __future__ import annotations

from advisor.rule import Applicability, Example, Severity

from ._export import E8M0, LOAD, SAVE, ExportUsage


class ExportWithE8M0(ExportUsage):
    """`torch.export.save`/`load` in code that uses `float8_e8m0fnu`: needs torch >= 2.12 on both ends.

    What it finds: `torch.export.save` and `torch.export.load` calls in a module
    that mentions `torch.float8_e8m0fnu` (the MX scale dtype).

    Why: export serialization learned e8m0 in 2.12 (PR #176270: schema 8.20,
    `ScalarType.FLOAT8E8M0FNU = 33`). On 2.11 and older, `torch.export.save` of a
    program touching e8m0 raises `KeyError: torch.float8_e8m0fnu` (issue
    #176621). A `.pt2` written by 2.12+ that contains e8m0 is therefore most
    likely unreadable by 2.11 and older (inferred from the schema enum; not run).
    Pin every producer and consumer of these files to >= 2.12.

    Example:
        torch.export.save(torch.export.export(m, (x,)), "model.pt2")  # m has e8m0 scales

    Fix safety: no automatic fix; this is a deployment constraint.

    Validation: `export_roundtrip` exports, saves and loads a module with e8m0
    buffers, constants and inputs and compares the bits.
    """

    code = "ADV401"
    name = "export-e8m0"
    message = "`{call}` with float8_e8m0fnu in this module: saving needs torch >= 2.12, and the .pt2 is most likely unreadable by torch <= 2.11"
    severity = Severity.WARNING
    since = "2.12"
    fix = Applicability.NONE
    validation = "export_roundtrip"
    triggers = ("float8_e8m0fnu",)
    targets = (*SAVE, *LOAD)

    valid = [
        "import torch\ntorch.export.save(ep, 'm.pt2')",
        "import torch\nx = torch.zeros(4, dtype=torch.float8_e8m0fnu)\ntorch.save(x, 'x.pt')",
    ]
    invalid = [
        Example(
            "import torch\nscale = s.to(torch.float8_e8m0fnu)\ntorch.export.save(ep, 'm.pt2')\nep2 = torch.export.load('m.pt2')\n",
            count=2,
        ),
        Example("from torch.export import save\nimport torch as th\nDT = th.float8_e8m0fnu\nsave(ep, path)\n"),
        Example("import torch\nDT = getattr(torch, 'float8_e8m0fnu')\ntorch.export.save(ep, path)\n"),
    ]

    def leave_Module(self, node) -> None:
        if E8M0 not in self.dtypes:
            return
        for call in self.saves:
            self.report(call, self.message.format(call="torch.export.save"))
        for call in self.loads:
            self.report(call, self.message.format(call="torch.export.load"))
