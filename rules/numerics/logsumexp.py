from __future__ import annotations

from advisor.rule import (
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAP,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    calls_to,
    cst,
    rewrite_reference,
)

from ._numerics import GETATTR_CALLED, sole


def _named(func, name: str) -> bool:
    """May the `ast` callee be `torch.<name>` by its last name? A `getattr(...)` call may be anything."""
    kind = type(func).__name__
    if kind == "Call":
        return type(func.func).__name__ == "Name" and func.func.id == "getattr"
    return getattr(func, "attr", getattr(func, "id", None)) == name


class LogSumExp(Rule):
    """`torch.log(torch.sum(torch.exp(x), dim))` overflows; `torch.logsumexp(x, dim)` does not.

    What it finds: `torch.log(torch.sum(torch.exp(x), d))` (also with `dim=d`, and
    `keepdim=`), each call resolved to torch (TorchFix TOR108, unreleased there).

    Why: `exp(x)` overflows to inf for large `x` (above ~88 in float32) and
    underflows to 0 for very negative `x`; `torch.logsumexp` subtracts the maximum
    first (documented in `torch.logsumexp`). Only the forms with a `dim` are flagged:
    `torch.logsumexp` requires one. Nothing warns or breaks: this is advice.

    Example:
        y = torch.log(torch.sum(torch.exp(x), dim=1))
        # becomes
        y = torch.logsumexp(x, dim=1)

    Fix safety: unsafe: the result changes where the old form overflowed (that is
    the point) and in the last bits elsewhere.

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV112"
    name = "log-sum-exp"
    message = "`torch.log(torch.sum(torch.exp(x), dim))` overflows for large x; `torch.logsumexp(x, dim)` is stable"
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("log",)
    targets = ("torch.log",)

    valid = [
        "import torch\ny = torch.logsumexp(x, 1)",
        "import torch\ny = torch.log(torch.sum(torch.exp(x)))",
        "import torch\ny = torch.log(torch.sum(x, 1))",
        "import numpy as np\ny = np.log(np.sum(np.exp(x), 1))",
    ]
    invalid = [
        Example(
            "import torch\ny = torch.log(torch.sum(torch.exp(x), dim=1))\n",
            fixed="import torch\ny = torch.logsumexp(x, dim=1)\n",
            line=2,
            column=5,
        ),
        Example(
            "import torch as th\ny = th.log(th.sum(th.exp(a - b), -1, keepdim=True))\n",
            fixed="import torch as th\ny = th.logsumexp(a - b, -1, keepdim=True)\n",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A call of `log`, or `torch.sum` imported under another name; and, besides, `sum(` with `exp(` first in it
        # (the text between read as names, dots and brackets), or either renamed (`exp as e`), or a `getattr(...)`
        # called (`_named` takes any for either)
        g = TEXT_GAPS
        # (each starting with a literal, which `re` looks for at C speed)
        inner = rf"sum(?<=\bsum){g}(?:\((?:[\w.()]|{TEXT_GAP}|#[^\r\n]*+)*?\bexp{g}\(|as\b)"
        renamed = rf"exp(?<=\bexp){g}as\b"
        needed = (CODE_ONLY + inner, CODE_ONLY + renamed, CODE_ONLY + GETATTR_CALLED)
        return (), (), tuple(ALSO_NEEDED + p for p in needed), ("log",), ("sum",)

    @classmethod
    def may_match(cls, refs) -> bool:
        args = [c.args[0] for c in calls_to(refs, cls.targets) if sole(c)]  # `torch.log(torch.sum(exp(x), dim))`
        if "torch.sum" in refs.renamed:
            return True
        return any(
            type(a).__name__ == "Call"
            and len(a.args) + len(a.keywords) >= 2
            and bool(a.args)
            and type(a.args[0]).__name__ == "Call"
            and _named(a.func, "sum")
            and (_named(a.args[0].func, "exp") or "torch.exp" in refs.renamed)
            for a in args
        )

    def _sole_arg(self, call, target: str):
        if not isinstance(call, cst.Call) or self.match(call.func, (target,)) is None:
            return None
        return call.args

    def visit_Call(self, node) -> None:
        outer = self._sole_arg(node, "torch.log")
        if not outer or len(outer) != 1 or outer[0].keyword is not None or outer[0].star:
            return
        summed = self._sole_arg(outer[0].value, "torch.sum")
        if not summed or len(summed) < 2 or any(a.star for a in summed):
            return
        if any(a.keyword is not None and a.keyword.value not in ("dim", "keepdim") for a in summed):
            return
        exp = self._sole_arg(summed[0].value, "torch.exp")
        if summed[0].keyword is not None or not exp or len(exp) != 1 or exp[0].keyword is not None or exp[0].star:
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.logsumexp")
        args = [summed[0].with_changes(value=exp[0].value), *summed[1:]]
        self.report(node, replacement=node.with_changes(func=func, args=args), add_imports=imports)
