"""Shared by the export rules: what a module does with torch.export and MX dtypes."""

from __future__ import annotations

from advisor.rule import Rule, string_value

SAVE = {"torch.export.save"}
LOAD = {"torch.export.load"}
EXPORT = {"torch.export.export"}
E8M0 = "torch.float8_e8m0fnu"
FP4 = "torch.float4_e2m1fn_x2"


class ExportUsage(Rule):
    """Base for rules: records export save/load calls and dtype mentions; rules report at module end."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.saves: list = []
        self.loads: list = []
        self.exports: list = []
        self.dtypes: set[str] = set()

    def _note_dtype(self, node) -> None:
        for q in self.qualnames(node):
            if q in (E8M0, FP4):
                self.dtypes.add(q)

    def visit_Attribute(self, node) -> None:
        self._note_dtype(node)

    def visit_Name(self, node) -> None:
        self._note_dtype(node)

    def visit_SimpleString(self, node) -> None:
        value = string_value(node)
        if value in ("float8_e8m0fnu", "float4_e2m1fn_x2"):
            self.dtypes.add(f"torch.{value}")

    def visit_Call(self, node) -> None:
        if self.match(node.func, SAVE):
            self.saves.append(node)
        elif self.match(node.func, LOAD):
            self.loads.append(node)
        elif self.match(node.func, EXPORT):
            self.exports.append(node)
