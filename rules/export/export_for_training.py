from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule


class RemovedExportEntryPoints(SymbolRule):
    """`torch.export.export_for_training` and `capture_pre_autograd_graph` are gone: use `torch.export.export`.

    What it finds: references to `torch.export.export_for_training` and
    `torch._export.capture_pre_autograd_graph`.

    Why: both are absent from the 2.11, 2.12 and 2.13 sources; using them raises
    AttributeError. `torch.export.export` (non-strict by default since 2.11)
    produces the training IR they used to.

    Example:
        ep = torch.export.export_for_training(m, (x,))
        # becomes
        ep = torch.export.export(m, (x,))

    Fix safety: unsafe. `export_for_training` is renamed to `torch.export.export`;
    review that the graph you get is the one you need. `capture_pre_autograd_graph`
    returned a GraphModule, so it becomes `torch.export.export(...).module()`:
    reported without a fix.

    Validation: `export_roundtrip`.
    """

    code = "ADV404"
    name = "removed-export-entry-point"
    message = "`{old}` no longer exists (AttributeError); use `{new}`"
    severity = Severity.ERROR
    since = "2.0"
    removed_in = "2.11"
    fix = Applicability.UNSAFE
    validation = "export_roundtrip"
    triggers = ("export_for_training", "capture_pre_autograd_graph")
    names = {
        "torch.export.export_for_training": Symbol(message, "torch.export.export"),
        "torch._export.capture_pre_autograd_graph": Symbol(
            "`{old}` no longer exists (AttributeError); use `torch.export.export(...).module()`"
        ),
    }

    valid = [
        "import torch\nep = torch.export.export(m, (x,))",
        "def export_for_training(m): ...\nexport_for_training(m)",
    ]
    invalid = [
        Example(
            "import torch\nep = torch.export.export_for_training(m, (x,))\n",
            fixed="import torch\nep = torch.export.export(m, (x,))\n",
        ),
        Example(
            "from torch.export import export_for_training\nep = export_for_training(m, args)\n",
            fixed="import torch\n\nep = torch.export.export(m, args)\n",
        ),
        Example("from torch._export import capture_pre_autograd_graph\ngm = capture_pre_autograd_graph(m, args)\n"),
    ]
