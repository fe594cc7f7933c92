from __future__ import annotations

from typing import Any

from advisor.rule import Example, Severity, cst, get_arg

from .._bound import BoundNames

_MODULE = "torch.optim.lr_scheduler"
# Schedulers whose `step(epoch)` is `LRScheduler.step`'s (the warning); ReduceLROnPlateau's epoch is its second argument.
# CosineAnnealingWarmRestarts.step(epoch) takes a fractional epoch on purpose and never warns;
# SequentialLR / ChainedScheduler.step take no argument.
_FIRST = tuple(
    f"{_MODULE}.{c}"
    for c in (
        "LRScheduler _LRScheduler LambdaLR MultiplicativeLR StepLR MultiStepLR ConstantLR LinearLR ExponentialLR PolynomialLR "
        "CosineAnnealingLR CyclicLR OneCycleLR"
    ).split()
)
_PLATEAU = f"{_MODULE}.ReduceLROnPlateau"
_SCHEDULERS = (*_FIRST, _PLATEAU)


class SchedulerStepEpoch(BoundNames):
    """`scheduler.step(epoch)` on a torch learning-rate scheduler is deprecated: call `scheduler.step()`.

    What it finds: `s.step(epoch)` / `s.step(epoch=...)` (for `ReduceLROnPlateau`, `s.step(metric,
    epoch)`), where `s` is bound in the same function (or module) to a scheduler made by
    `torch.optim.lr_scheduler.<Scheduler>(...)`, however imported. `step` on anything else
    (another library's scheduler, a name of unknown type) is not matched, nor is
    `CosineAnnealingWarmRestarts.step(epoch)` (its fractional epoch is documented and silent)
    nor a literal `None`.

    Why: `LRScheduler.step` and `ReduceLROnPlateau.step` warn UserWarning "The epoch parameter
    in `scheduler.step()` was not necessary and is being deprecated where possible. Please use
    `scheduler.step()` to step the scheduler. ..." whenever `epoch` is not None, in every 2.x
    release (`2.0.0 optim/lr_scheduler.py:152,1013`, `2.15.0 optim/lr_scheduler.py:281,1703`).
    With an epoch the scheduler jumps to it, through a closed form where the scheduler has one:
    not always the schedule that `step()` walks.

    Example:
        for epoch in range(n):
            train(...)
            scheduler.step(epoch)
        # becomes (by hand)
            scheduler.step()

    Window: the warning is on the `epoch` argument, which the index does not record.

    Fix safety: none: `step()` advances by one from `last_epoch`; resuming code must set
    `last_epoch` (or load the scheduler's state_dict) instead.
    Verified: torch 2.13.0 CPU at run time; the 2.0.0 and 2.15.0 wheels' optim/lr_scheduler.py.
    Truth: K-152/scheduler-step-epoch.
    Validation: none.
    """

    code = "ADV152"
    name = "scheduler-step-epoch"
    message = (
        "`{recv}.step({arg})` with an epoch is deprecated (UserWarning); call `{recv}.step()` once per epoch "
        "(to resume, set `last_epoch` or load the scheduler's state_dict)"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    bound_calls = _SCHEDULERS
    triggers = ("lr_scheduler",)
    targets = _SCHEDULERS
    window_apis = {"old": ("torch.optim.lr_scheduler.LRScheduler.step",)}
    window_exceptions = {"deprecated_in": "the warning is on the `epoch` argument, which the index does not record"}

    valid = [
        "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\nfor e in range(3):\n    s.step()\n",
        "import torch\ns = torch.optim.lr_scheduler.ReduceLROnPlateau(opt)\ns.step(val_loss)\n",
        "import torch\nfrom torch.optim.lr_scheduler import CosineAnnealingWarmRestarts as W\ns = W(opt, 10)\ns.step(e + i / n)\n",
        "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\ns.step(None)\n",
        # another library's scheduler, and a scheduler of unknown type
        "import torch\nfrom timm.scheduler import CosineLRScheduler\ns = CosineLRScheduler(opt, 10)\ns.step(epoch)\n",
        "import torch\ndef run(scheduler, epoch):\n    scheduler.step(epoch)\n",
        "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\ns = wrap(s)\ns.step(3)\n",
    ]
    invalid = [
        Example(
            "import torch\nsched = torch.optim.lr_scheduler.StepLR(opt, 10)\nfor epoch in range(3):\n"
            "    sched.step(epoch)\n",
            message="`sched.step(epoch)` with an epoch is deprecated",
            line=4,
            column=5,
        ),
        Example(
            "from torch.optim import lr_scheduler\ndef train(opt):\n    s = lr_scheduler.MultiStepLR(opt, [3])\n"
            "    s.step(epoch=4)\n"
        ),
        Example(
            "from torch.optim.lr_scheduler import ReduceLROnPlateau\np = ReduceLROnPlateau(opt)\np.step(loss, epoch)\n"
        ),
        Example(
            "import torch.optim as optim\nwith_lr = optim.lr_scheduler.OneCycleLR(opt, 1.0, 10)\nwith_lr.step(5)\n"
        ),
    ]

    def visit_Call(self, node: Any) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value != "step":
            return
        bound = self.bound(func.value)
        if bound is None:
            return
        epoch = get_arg(node, "epoch", 1 if bound[0] == _PLATEAU else 0)
        if epoch is None or (isinstance(epoch.value, cst.Name) and epoch.value.value == "None"):
            return
        arg = self.ctx.code_for(epoch.value) if epoch.keyword is None else f"epoch={self.ctx.code_for(epoch.value)}"
        recv = func.value.value
        self.report(node, self.message.format(recv=recv, arg=arg if len(arg) <= 30 else "epoch"))
