from __future__ import annotations

from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, calls_to, cst, get_arg

_SPAWN = ("torch.multiprocessing.spawn", "torch.multiprocessing.spawn.spawn")


def _other_method(call: Any) -> bool:
    """Could this `ast` call pass a start method other than "spawn" (a string literal)?"""
    values = [k.value for k in call.keywords if k.arg == "start_method"] + call.args[5:6]
    return any(type(v).__name__ == "Constant" and isinstance(v.value, str) and v.value != "spawn" for v in values)


class SpawnStartMethod(Rule):
    """`torch.multiprocessing.spawn(..., start_method="fork")` ignores the start method: use `start_processes`.

    What it finds: calls of `torch.multiprocessing.spawn` (however imported) whose `start_method`
    (keyword or sixth argument) is a string literal other than `"spawn"`. A variable is not reported
    (it may hold `"spawn"`), nor is `multiprocessing.spawn` of the standard library or another library.

    Why: `spawn` always starts its processes with `"spawn"`; any other value only warns "This method
    only supports start_method=spawn (got: fork). To use a different start_method use:
    torch.multiprocessing.start_processes(...)", UserWarning up to 2.3 and FutureWarning from 2.4
    (`2.0.0 torch/multiprocessing/spawn.py:231-239`, `2.15.0 torch/multiprocessing/spawn.py:343-350`).
    Code that asks for `fork` (to share memory, or to avoid pickling) silently gets `spawn`.

    Example:
        mp.spawn(train, args=(cfg,), nprocs=4, start_method="fork")
        # becomes
        mp.start_processes(train, args=(cfg,), nprocs=4, start_method="fork")
        # (or drop start_method=: that is what runs today)

    Fix safety: none: `start_processes` really uses the method asked for, which the code has not run with;
    dropping the argument keeps today's behaviour (spawn).
    Verified: torch 2.13.0 CPU and 2.15.0 at run time. Truth: K-167/spawn-start-method.
    Validation: none.
    """

    code = "ADV167"
    name = "spawn-start-method"
    message = (
        '`torch.multiprocessing.spawn(start_method={method})` ignores the method and uses "spawn" (FutureWarning); '
        "call `torch.multiprocessing.start_processes(...)` for another method, or drop the argument"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.NONE
    triggers = ("spawn",)
    targets = _SPAWN
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch.multiprocessing as mp\nmp.spawn(train, nprocs=2)\n",
        "import torch.multiprocessing as mp\nmp.spawn(train, nprocs=2, start_method='spawn')\n",
        "import torch.multiprocessing as mp\nmp.start_processes(train, nprocs=2, start_method='fork')\n",
        "import torch.multiprocessing as mp\nmp.spawn(train, nprocs=2, start_method=method)\n",
        "import multiprocessing\nctx = multiprocessing.get_context('fork')\n",
    ]
    invalid = [
        Example(
            "import torch.multiprocessing as mp\nmp.spawn(train, args=(1,), nprocs=2, start_method='fork')\n",
            message="`torch.multiprocessing.spawn(start_method='fork')` ignores the method",
            line=2,
            column=1,
        ),
        Example("from torch.multiprocessing import spawn\nspawn(f, (), 2, True, False, 'forkserver')\n"),
    ]

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        calls = calls_to(refs, _SPAWN)
        return super().may_match(refs) and any(_other_method(c) for c in calls)

    def visit_Call(self, node: Any) -> None:
        if self.match(node.func, _SPAWN) is None:
            return
        arg = get_arg(node, "start_method", 5)
        if arg is None or not isinstance(arg.value, cst.SimpleString):
            return
        if arg.value.evaluated_value != "spawn":
            self.report(node, self.message.format(method=self.ctx.code_for(arg.value)))
