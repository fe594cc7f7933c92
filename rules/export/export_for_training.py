from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule, Window

# Each entry point has its own window (checked in the wheels, below).
EXPORT_FOR_TRAINING = Window(since="2.1", deprecated_in="2.9", removed_in="2.11")
CAPTURE_PRE_AUTOGRAD_GRAPH = Window(since="2.1", deprecated_in="2.4", removed_in="2.7")


class RemovedExportEntryPoints(SymbolRule):
    """`torch.export.export_for_training` and `capture_pre_autograd_graph` are removed: use `torch.export.export`.

    What it finds: references to `torch.export.export_for_training` and
    `torch._export.capture_pre_autograd_graph`.

    Why: `torch._export.capture_pre_autograd_graph` exists in 2.1-2.6, logs a
    deprecation warning (through `logging`, not `warnings`) from 2.4, and is gone from
    2.7. `torch.export.export_for_training` exists in 2.5-2.10, warns FutureWarning in
    2.9 and 2.10, and is gone from 2.11. Using either where it is gone raises
    AttributeError (ImportError for a `from` import). `torch.export.export` (in every
    release from 2.1; non-strict by default from 2.8) is the replacement.

    Example:
        ep = torch.export.export_for_training(m, (x,))
        # becomes
        ep = torch.export.export(m, (x,))

    Fix safety: unsafe. `export_for_training` is renamed to `torch.export.export`;
    in 2.5-2.10 the two go through different internal paths
    (`_trace._export_for_training` vs `_trace._export(pre_dispatch=True)`), so review
    that the graph you get is the one you need. `capture_pre_autograd_graph`
    returned a GraphModule, so it becomes `torch.export.export(...).module()`:
    reported without a fix.

    Release windows (checked in the wheels): `def capture_pre_autograd_graph` in
    `torch/_export/__init__.py` of 2.1.0-2.6.0 (its `log.warning("capture_pre_autograd_graph()
    is deprecated ...")` from 2.4.0), absent from 2.7.0; `def export_for_training` in
    `torch/export/__init__.py` of 2.5.0-2.10.0 (`@deprecated(..., category=FutureWarning)`
    from 2.9.0), absent from 2.11.0; `export(..., strict: bool = True)` in 2.2.0-2.7.0 and
    `strict: bool = False` from 2.8.0.

    Validation: `export_roundtrip`.

    Window: `capture_pre_autograd_graph` logs with `log.warning`, not a Python warning
    (`2.4.0 torch/_export/__init__.py:94-99`), which the API index does not record.
    """

    code = "ADV404"
    name = "removed-export-entry-point"
    message = "`{old}` is removed in 2.11 (AttributeError; it warns FutureWarning before); use `{new}`"
    severity = Severity.ERROR
    since = "2.1"
    deprecated_in = "2.4"
    window_exceptions = {
        "torch._export.capture_pre_autograd_graph deprecated_in": "`capture_pre_autograd_graph` logs with `log.warning`, not a Python warning\n(`2.4.0 torch/_export/__init__.py:94-99`), which the API index does not record.",
    }
    removed_in = "2.7"
    fix = Applicability.UNSAFE
    validation = "export_roundtrip"
    triggers = ("export_for_training", "capture_pre_autograd_graph")
    names = {
        "torch.export.export_for_training": Symbol(message, "torch.export.export", window=EXPORT_FOR_TRAINING),
        "torch._export.capture_pre_autograd_graph": Symbol(
            "`{old}` is removed in 2.7 (AttributeError; before, it logs a deprecation warning); use "
            "`torch.export.export(...).module()`",
            window=CAPTURE_PRE_AUTOGRAD_GRAPH,
        ),
    }

    @classmethod
    def windows(cls) -> list[Window]:
        return [EXPORT_FOR_TRAINING, CAPTURE_PRE_AUTOGRAD_GRAPH]

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
        Example(
            "import torch\ngm = torch._export.capture_pre_autograd_graph(m, args)\n",
            target="2.7",
            message="breaks in 2.7: `torch._export.capture_pre_autograd_graph` is removed in 2.7",
        ),
        Example(
            "import torch\nep = torch.export.export_for_training(m, (x,))\n",
            target="2.10",
            message="`torch.export.export_for_training` is removed in 2.11 (AttributeError; it warns FutureWarning",
        ),
    ]
