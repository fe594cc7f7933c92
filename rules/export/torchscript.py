from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule

_COMPILE = "`{old}` is deprecated (DeprecationWarning since 2.10); switch to `torch.compile` or `torch.export` (deprecated, not removed: it still works in 2.12 and 2.13)"
_EXPORT = "`{old}` is deprecated (DeprecationWarning since 2.10); switch to `{new}` (deprecated, not removed: it still works in 2.12 and 2.13)"
_NAMES = {
    "script": _COMPILE,
    "trace": _COMPILE,
    "trace_module": _COMPILE,
    "freeze": _COMPILE,
    "optimize_for_inference": _COMPILE,
    "fork": _COMPILE,
    "wait": _COMPILE,
    "interface": _COMPILE,
    "script_method": _COMPILE,
    "set_fusion_strategy": _COMPILE,
}


class TorchScriptEntryPoint(SymbolRule):
    """TorchScript entry points (`torch.jit.script`, `trace`, `save`, `load`, ...) are deprecated.

    What it finds: references to `torch.jit.script`, `trace`, `trace_module`,
    `save`, `load`, `freeze`, `optimize_for_inference`, `fork`, `wait`,
    `interface`, `script_method` and `set_fusion_strategy`.

    Why: these emit DeprecationWarning (already in 2.11; the release blog dates
    the formal deprecation to 2.10), e.g. "`torch.jit.script` is deprecated.
    Please switch to `torch.compile` or `torch.export`." They are deprecated,
    not removed: claims that 2.12 removed TorchScript are false per the 2.12
    sources. On Python >= 3.14 the message says they may break.
    `torch.jit.ignore` and `torch.jit.unused` emit no warning and are not flagged.

    Example:
        torch.jit.save(torch.jit.script(m), "m.pt")
        # plan to move to
        torch.export.save(torch.export.export(m, (x,)), "m.pt2")

    Fix safety: no automatic fix: export and compile are different programs.

    Validation: `export_roundtrip` checks the export path you move to.
    """

    code = "ADV406"
    name = "torchscript-entry-point"
    message = _COMPILE
    severity = Severity.WARNING
    since = "2.0"
    deprecated_in = "2.10"
    fix = Applicability.NONE
    validation = "export_roundtrip"
    triggers = ("jit",)  # every spelling of torch.jit.X contains it
    names = {
        **{f"torch.jit.{n}": Symbol(m) for n, m in _NAMES.items()},
        "torch.jit.save": Symbol(_EXPORT, "torch.export.save"),
        "torch.jit.load": Symbol(_EXPORT, "torch.export.load"),
    }

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        self.report(node, symbol.message.format(old=qualname, new=symbol.replacement))

    valid = [
        "import torch\n@torch.jit.ignore\ndef f(): ...",
        "import torch\ntorch.save(m.state_dict(), 'm.pt')",
        "import torch\nm = torch.compile(m)",
    ]
    invalid = [
        Example("import torch\nsm = torch.jit.script(m)\ntorch.jit.save(sm, 'm.pt')\n", count=2),
        Example("from torch.jit import trace\ntm = trace(m, x)\n"),
        Example("import torch.jit as jit\nm = jit.load('m.pt')\n"),
        Example("import torch\n@torch.jit.script\ndef f(x):\n    return x\n"),
    ]
