from __future__ import annotations

from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, calls_to, cst, get_arg

_GATHER = ("torch.cuda.comm.gather", "torch.nn.parallel.comm.gather")


def _minus_one(value: Any) -> bool:
    return (
        isinstance(value, cst.UnaryOperation)
        and isinstance(value.operator, cst.Minus)
        and isinstance(value.expression, cst.Integer)
        and value.expression.value == "1"
    )


def _may_minus_one(call: Any) -> bool:
    """Could this `ast` call pass `-1` as the destination (keyword or third argument)?"""
    values = [k.value for k in call.keywords if k.arg == "destination"] + call.args[2:3]
    return any(type(v).__name__ == "UnaryOp" and type(v.op).__name__ == "USub" for v in values)


class CommGatherCpu(Rule):
    """`torch.cuda.comm.gather(..., destination=-1)` is deprecated: pass `"cpu"`.

    What it finds: calls of `torch.cuda.comm.gather` / `torch.nn.parallel.comm.gather` (however
    imported) whose `destination` (keyword or third argument) is the literal `-1`.

    Why: "Using -1 to represent CPU tensor is deprecated. Please use a device object or string instead,
    e.g., "cpu"." FutureWarning (UserWarning before 2.4) in every 2.x release (`2.0.0
    torch/nn/parallel/comm.py:230-233`, `2.15.0 torch/nn/parallel/comm.py:250-256`); `-1` and `"cpu"`
    both gather onto the CPU.

    Example:
        out = comm.gather(tensors, dim=0, destination=-1)
        # becomes
        out = comm.gather(tensors, dim=0, destination="cpu")

    Fix safety: safe: `-1` is turned into the CPU device in every 2.x release, as `"cpu"` is.
    Verified: the 2.0.0 and 2.15.0 wheels' torch/nn/parallel/comm.py; torch 2.13.0 and 2.15.0 at run time
    (the warning comes before any CUDA call). Truth: K-169/comm-gather-cpu.
    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV169"
    name = "comm-gather-cpu"
    message = '`destination=-1` of `comm.gather` is deprecated (FutureWarning); pass `"cpu"`'
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = ("gather",)
    targets = _GATHER
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "from torch.cuda import comm\nout = comm.gather(ts, dim=0, destination='cpu')\n",
        "from torch.cuda import comm\nout = comm.gather(ts, 0, 1)\n",
        "import torch.distributed as dist\ndist.gather(t, gather_list, -1)\n",
    ]
    invalid = [
        Example(
            "from torch.cuda import comm\nout = comm.gather(ts, dim=0, destination=-1)\n",
            message="`destination=-1` of `comm.gather` is deprecated",
            line=2,
            column=42,
            fixed='from torch.cuda import comm\nout = comm.gather(ts, dim=0, destination="cpu")\n',
        ),
        Example(
            "import torch.nn.parallel.comm as c\nout = c.gather(ts, 1, -1)\n",
            fixed='import torch.nn.parallel.comm as c\nout = c.gather(ts, 1, "cpu")\n',
        ),
    ]

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        calls = calls_to(refs, _GATHER)
        return super().may_match(refs) and any(_may_minus_one(c) for c in calls)

    def visit_Call(self, node: Any) -> None:
        if self.match(node.func, _GATHER) is None:
            return
        arg = get_arg(node, "destination", 2)
        if arg is not None and _minus_one(arg.value):
            self.report(arg.value, replacement=cst.SimpleString('"cpu"'))
