from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst, string_value


class DynamicTorchAccess(Rule):
    """`getattr(torch.cuda, name)`: torch APIs chosen at run time cannot be checked statically.

    What it finds: `getattr(<a torch module>, <not a string literal>)`.

    Why: the upgrade report must not let "0 findings" read as "nothing to do".
    When code picks a torch API by a computed name, no static tool can tell
    whether it reaches a deprecated or changed API. This rule lists those places
    under "could not be analysed". It is opt-in (`--select ADV900`) and is
    switched on by `advisor scan --report`.

    Example:
        fn = getattr(torch.cuda, f"{kind}_memory_cached")

    Fix safety: no automatic fix.
    """

    code = "ADV900"
    name = "dynamic-torch-access"
    message = (
        "dynamic access `getattr({target}, ...)`: advisor cannot see which torch API this reaches; review it by hand"
    )
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.NONE
    default_enabled = False
    report_only = True
    triggers = ("getattr",)

    @classmethod
    def may_match(cls, refs) -> bool:
        return refs.imports_torch

    valid = [
        "import torch\nf = getattr(torch.cuda, 'synchronize')",
        "import os\nf = getattr(os, name)",
        "def f(torch, name):\n    return getattr(torch, name)",
    ]
    invalid = [
        Example("import torch\nf = getattr(torch.cuda, name)\n"),
        Example("import torch.distributed as dist\nop = getattr(dist, f'all_{kind}')\n"),
    ]

    def visit_Call(self, node) -> None:
        func = node.func
        if not (isinstance(func, cst.Name) and func.value == "getattr" and not self.qualnames(func)):
            return
        if len(node.args) < 2 or string_value(node.args[1].value) is not None:
            return
        quals = self.qualnames(node.args[0].value)
        torch_quals = sorted(q for q in quals if q == "torch" or q.startswith("torch."))
        if torch_quals:
            self.report(node, self.message.format(target=torch_quals[0]))
