from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    Rule,
    Severity,
    append_args,
    cst,
    get_arg,
    has_star_args,
    kwarg,
)

LOAD = {"torch.load", "torch.serialization.load"}


class TorchLoadWeightsOnly(Rule):
    """`torch.load(...)` without `weights_only=`: the default flipped to True in 2.6.

    What it finds: `torch.load` calls that do not pass `weights_only` (TorchFix TOR102).

    Why: since 2.6 the default is effectively `weights_only=True` (the signature
    default None resolves to True unless `pickle_module` is given;
    serialization.py in 2.12 and 2.13). Loading a checkpoint that pickles custom
    objects then fails with "UnpicklingError: Weights only load failed". Code
    written for older torch silently changed meaning; say which one you want.

    Example:
        state = torch.load(path)
        # becomes
        state = torch.load(path, weights_only=True)

    Fix safety: safe: it adds `weights_only=True`, which is what the call already
    does on torch >= 2.6 (on a project that still supports older torch the fix is
    downgraded to unsafe). Pass `weights_only=False` instead only for trusted
    files that really hold pickled objects. Calls passing `pickle_module` (whose
    default stays False) are reported without a fix.

    Validation: none; load each of your checkpoints once under the new torch.
    """

    code = "ADV716"
    name = "torch-load-weights-only"
    message = "`torch.load` without `weights_only=`: since torch 2.6 it defaults to True; pass it explicitly (False only for trusted files)"
    severity = Severity.INFO
    since = "2.6"
    fix = Applicability.SAFE
    triggers = ("load",)
    targets = tuple(LOAD)

    valid = [
        "import torch\nsd = torch.load(p, weights_only=True)",
        "import torch\nsd = torch.load(p, weights_only=False)",
        "import json\nd = json.load(f)",
        "def f(torch):\n    return torch.load(p)",
    ]
    invalid = [
        Example("import torch\nsd = torch.load(p)\n", fixed="import torch\nsd = torch.load(p, weights_only=True)\n"),
        Example(
            "from torch import load\nsd = load(p, map_location='cpu',)\n",
            fixed="from torch import load\nsd = load(p, map_location='cpu', weights_only=True)\n",
        ),
        Example("import torch\nimport dill\nsd = torch.load(p, pickle_module=dill)\n"),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, LOAD) is None or get_arg(node, "weights_only") is not None:
            return
        if get_arg(node, "pickle_module") is not None or has_star_args(node) or any(a.star == "**" for a in node.args):
            self.report(node)
            return
        self.report(node, replacement=_append_trailing_safe(node, kwarg("weights_only", "True")))


def _append_trailing_safe(call, arg):
    """Append `arg`, dropping a trailing comma's dangling space (`f(a,)` -> `f(a, b)`)."""
    args = list(call.args)
    if args and isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return append_args(call.with_changes(args=args), [arg])
