from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule


class LegacyAotCompile(SymbolRule):
    """`torch._export.aot_compile` / `aot_load` are being deprecated: use AOTInductor packages.

    What it finds: references to `torch._export.aot_compile` and
    `torch._export.aot_load`.

    Why: torch logs (with `log.warning`, not a Python warning, so `-W error`
    does not catch it): "torch._export.aot_compile()/torch._export.aot_load() is
    being deprecated, please switch to directly calling
    torch._inductor.aoti_compile_and_package(torch.export.export())/
    torch._inductor.aoti_load_package() instead." This log line first appears in
    `torch/_export/__init__.py` of the 2.6.0 wheel (checked: absent from 2.0.0-2.5.0).

    Example:
        so_path = torch._export.aot_compile(m, (x,))
        # becomes
        pkg = torch._inductor.aoti_compile_and_package(torch.export.export(m, (x,)))
        runner = torch._inductor.aoti_load_package(pkg)

    Fix safety: no automatic fix: the new API takes an ExportedProgram and
    produces a .pt2 package rather than a shared library.

    Validation: none. `export_roundtrip` tests an MX-dtype export round trip,
    not AOTInductor packaging.

    Window: logged with `log.warning`, not a Python warning (`2.6.0 torch/_export/__init__.py:280-283`),
    which the API index does not record.
    """

    code = "ADV405"
    statement_local = True  # reported at the reference; nothing else read
    name = "legacy-aot-compile"
    message = "`{old}` is being deprecated; use `{new}`"
    severity = Severity.WARNING
    since = "2.6"
    deprecated_in = "2.6"
    window_exceptions = {
        "deprecated_in": "logged with `log.warning`, not a Python warning (`2.6.0 torch/_export/__init__.py:280-283`),\nwhich the API index does not record.",
    }
    fix = Applicability.NONE
    validation = None
    triggers = ("aot_compile", "aot_load")
    names = {
        "torch._export.aot_compile": Symbol(
            message, "torch._inductor.aoti_compile_and_package(torch.export.export(...))"
        ),
        "torch._export.aot_load": Symbol(message, "torch._inductor.aoti_load_package"),
    }

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        self.report(node, symbol.message.format(old=qualname, new=symbol.replacement))

    valid = [
        "import torch\npkg = torch._inductor.aoti_compile_and_package(ep)",
        "from mylib import aot_compile\naot_compile(m)",
    ]
    invalid = [
        Example(
            "import torch\np = torch._export.aot_compile(m, (x,))\nr = torch._export.aot_load(p, 'cuda')\n", count=2
        ),
        Example("from torch._export import aot_compile as ac\nac(m, args)\n"),
    ]
