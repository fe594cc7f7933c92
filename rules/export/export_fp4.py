from __future__ import annotations

from advisor.rule import Applicability, Example, Severity

from ._export import FP4, SAVE, ExportUsage


class ExportWithFp4(ExportUsage):
    """`torch.export.save` where `float4_e2m1fn_x2` is used: unsupported even on 2.13.

    What it finds: `torch.export.save` calls in a module that mentions
    `torch.float4_e2m1fn_x2`.

    Why: verified on torch 2.13.0: exporting a module with a float4 buffer or
    input works, but `torch.export.save` raises `KeyError: torch.float4_e2m1fn_x2`
    (or a SerializeError wrapping it). `torch.save` / `torch.load` of the state
    dict do handle float4.

    Example:
        torch.export.save(ep, "m.pt2")            # fails with float4 weights
        # instead
        torch.save(model.state_dict(), "w.pt")

    Fix safety: no automatic fix.

    Validation: `export_roundtrip` confirms the limitation (PASS "still
    unsupported") or tells you that it no longer applies.
    """

    code = "ADV403"
    name = "export-fp4"
    message = "`torch.export.save` with float4_e2m1fn_x2 in this module: still unsupported in torch 2.13 (KeyError); save the state_dict with torch.save instead"
    severity = Severity.ERROR
    since = "2.0"
    fix = Applicability.NONE
    validation = "export_roundtrip"
    triggers = ("float4_e2m1fn_x2",)
    targets = tuple(SAVE)

    valid = [
        "import torch\nw = torch.empty(4, dtype=torch.float4_e2m1fn_x2)\ntorch.save(w, 'w.pt')",
        "import torch\ntorch.export.save(ep, 'm.pt2')",
    ]
    invalid = [
        Example("import torch\nw = w.view(torch.float4_e2m1fn_x2)\ntorch.export.save(ep, 'm.pt2')\n"),
    ]

    def leave_Module(self, node) -> None:
        if FP4 in self.dtypes:
            for call in self.saves:
                self.report(call)
