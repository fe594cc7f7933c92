from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule, Window, cst

_CATEGORY = (
    "`{old}` is deprecated: FutureWarning since 2.14 (DeprecationWarning 2.10-2.13), so ignoring DeprecationWarning "
    "no longer hides it and `-W error::FutureWarning` fails; "
)
_COMPILE = _CATEGORY + "switch to `torch.compile` or `torch.export` (not removed: it still works in 2.15)"
# freeze / optimize_for_inference / fork / wait / interface first warn in 2.11 (`2.11.0 jit/_freeze.py:108,232`,
# `jit/_async.py:105,125`, `jit/_script.py:1641`; none in 2.10.0), set_fusion_strategy too (`jit/_fuser.py:170`).
_COMPILE_2_11 = (
    "`{old}` is deprecated: FutureWarning since 2.14 (DeprecationWarning 2.11-2.13), so ignoring DeprecationWarning "
    "no longer hides it and `-W error::FutureWarning` fails; switch to `torch.compile` (not removed: it still "
    "works in 2.15)"
)
_FROM_2_11 = Window(deprecated_in="2.11")
_EXPORT = _CATEGORY + "switch to `{new}` (not removed: it still works in 2.15)"
_FUSER = (
    "`torch.jit.set_fusion_strategy` is deprecated (DeprecationWarning from 2.11; unchanged in 2.14 and 2.15); "
    "use `torch.compile`"
)
_LITE = (
    "`{method}` is deprecated (DeprecationWarning 2.10-2.13, FutureWarning since 2.14; 'Lite Interpreter is "
    "deprecated. Please consider switching to ExecuTorch.')"
)
# Lite Interpreter methods: torch-only names (no known same-named API elsewhere), looked for in files importing torch.
_LITE_METHODS = ("_save_for_lite_interpreter", "_save_to_buffer_for_lite_interpreter")
_NAMES = {
    "script": _COMPILE,
    "trace": _COMPILE,
    "trace_module": _COMPILE,
    "script_method": _COMPILE,
}
_NAMES_2_11 = {
    "freeze": _COMPILE_2_11,
    "optimize_for_inference": _COMPILE_2_11,
    "fork": _COMPILE_2_11,
    "wait": _COMPILE_2_11,
    "interface": _COMPILE_2_11,
    "set_fusion_strategy": _FUSER,
}


class TorchScriptEntryPoint(SymbolRule):
    """TorchScript entry points (`torch.jit.script`, `trace`, `save`, `load`, ...) are deprecated.

    What it finds: references to `torch.jit.script`, `trace`, `trace_module`,
    `save`, `load`, `freeze`, `optimize_for_inference`, `fork`, `wait`,
    `interface`, `script_method` and `set_fusion_strategy`.

    Why: these emit DeprecationWarning from 2.10 (checked: "`torch.jit.script` is
    deprecated" is in `torch/jit/_script.py` of the 2.10.0-2.15.0 wheels, absent
    from 2.0.0-2.9.0), e.g. "`torch.jit.script` is deprecated.
    Please switch to `torch.compile` or `torch.export`." (save/load: "Please
    switch to `torch.export`."; freeze, optimize_for_inference, fork, wait,
    interface: "Please use `torch.compile` instead."). `freeze`, `optimize_for_inference`,
    `fork`, `wait`, `interface` and `set_fusion_strategy` first warn in 2.11, not 2.10
    (`2.11.0 jit/_freeze.py:108,232`, `jit/_async.py:105,125`, `jit/_script.py:1641`,
    `jit/_fuser.py:170`; no such warning in the 2.10.0 wheel), so they are reported from
    2.11. From 2.14 the category is
    FutureWarning (visible by default; PR #189914), so filtering
    DeprecationWarning no longer hides it and `-W error::FutureWarning` test
    suites fail; `torch.jit.set_fusion_strategy` stays DeprecationWarning. The
    Lite Interpreter methods `._save_for_lite_interpreter()` /
    `._save_to_buffer_for_lite_interpreter()` warn from 2.10 too: DeprecationWarning
    in 2.10-2.13, FutureWarning from 2.14 (checked: "Lite Interpreter is deprecated"
    in `torch/jit/_script.py` of the 2.10.0-2.15.0 wheels, absent from 2.0.0-2.9.0). Not removed in 2.15 (draft
    PR #189705, hard errors, is not merged). Verified on the 2.13.0, 2.14.1 and
    2.15.0 wheels: tests/truth (D14-1/*). On Python >= 3.14 the message says they
    may break.
    `torch.jit.ignore` and `torch.jit.unused` emit no warning and are not flagged.

    Example:
        torch.jit.save(torch.jit.script(m), "m.pt")
        # plan to move to
        torch.export.save(torch.export.export(m, (x,)), "m.pt2")

    In tests (test files, `test*` functions, `Test*` classes) the sites are one
    project-level finding: the count, the files, and the filter to change
    (`advisor.run.tests_summary`). Library code that scripts at import time
    (module level, `@torch.jit.script` on a top-level function, class bodies)
    stays per site with severity error: every user of the library sees it.

    Fix safety: no automatic fix: export and compile are different programs.

    Validation: none. `export_roundtrip` tests an e8m0/fp4 export round trip,
    which says nothing about TorchScript code.
    """

    said_once_in_tests = (
        "TorchScript is used {count} times in tests ({files} files: {shown}): said once here, not per line. "
        "From 2.14 its warnings are FutureWarning (DeprecationWarning 2.10-2.13), so a pytest "
        "`filterwarnings = ignore::DeprecationWarning` (or `-W ignore::DeprecationWarning`) no longer hides them and "
        "`-W error::FutureWarning` fails these tests: filter FutureWarning too (pytest "
        "`filterwarnings = ignore:.torch\\.jit\\.:FutureWarning`: the messages start with `` `torch.jit.``), and plan "
        "when to drop TorchScript support (still there in 2.15; no drop-in replacement: `torch.compile` / "
        "`torch.export` are different programs)"
    )
    code = "ADV406"
    statement_local = True  # a reference, or a lite-interpreter method's call
    name = "torchscript-entry-point"
    message = _COMPILE
    severity = Severity.WARNING
    since = "2.0"
    deprecated_in = "2.10"
    fix = Applicability.NONE
    validation = None
    attribute_targets = _LITE_METHODS
    triggers = ("jit", *_LITE_METHODS)  # every spelling of torch.jit.X contains "jit"
    names = {
        **{f"torch.jit.{n}": Symbol(m) for n, m in _NAMES.items()},
        **{f"torch.jit.{n}": Symbol(m, window=_FROM_2_11) for n, m in _NAMES_2_11.items()},
        "torch.jit.save": Symbol(_EXPORT, "torch.export.save", since="2.1"),  # torch.export.save: 2.1.0 on
        "torch.jit.load": Symbol(_EXPORT, "torch.export.load", since="2.1"),
    }

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        self.report(node, symbol.message.format(old=qualname, new=symbol.replacement), window=symbol.window)

    def visit_Call(self, node) -> None:
        super().visit_Call(node)
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in _LITE_METHODS and self.imports_torch():
            self.report(node, _LITE.format(method=func.attr.value), window=Window(deprecated_in="2.10"))

    valid = [
        "import torch\n@torch.jit.ignore\ndef f(): ...",
        "import torch\ntorch.save(m.state_dict(), 'm.pt')",
        "import torch\nm = torch.compile(m)",
    ]
    invalid = [
        Example("import torch\nsm = torch.jit.script(m)\ntorch.jit.save(sm, 'm.pt')\n", count=2),
        Example("from torch.jit import trace\ntm = trace(m, x)\n"),
        Example("import torch.jit as jit\nm = jit.load('m.pt')\n"),
        Example("import torch\n@torch.jit.script\ndef f(x):\n    return x\n", message="FutureWarning since 2.14"),
        Example(
            "import torch\nsm._save_for_lite_interpreter('m.ptl')\n",
            message="DeprecationWarning 2.10-2.13",
            target="2.10",
        ),
        Example("import torch\ntorch.jit.set_fusion_strategy([('STATIC', 2)])\n", message="unchanged in 2.14"),
        Example("import torch\nm = torch.jit.freeze(sm)\n", message="DeprecationWarning 2.11-2.13", target="2.11"),
    ]
