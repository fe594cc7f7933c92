from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, append_args, get_arg, kwarg

FUNCS = {"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"}


class CheckpointUseReentrant(Rule):
    """`torch.utils.checkpoint.checkpoint(...)` without `use_reentrant=`.

    What it finds: `checkpoint` and `checkpoint_sequential` calls that do not
    pass `use_reentrant` (TorchFix TOR003).

    Why: UserWarning on 2.13: "torch.utils.checkpoint: the use_reentrant
    parameter should be passed explicitly. Starting in PyTorch 2.9, calling
    checkpoint without use_reentrant will raise an exception. use_reentrant=False
    is recommended, but if you need to preserve the current default behavior,
    you can pass use_reentrant=True." (2.13 still defaults to True.)

    Example:
        y = checkpoint(block, x)
        # becomes
        y = checkpoint(block, x, use_reentrant=True)
        # and, after review, preferably use_reentrant=False

    Fix safety: safe: the fix passes `use_reentrant=True`, today's default, so
    behaviour is unchanged. (TorchFix inserted `use_reentrant=False`, which
    changes behaviour.) Switching to False is the recommended follow-up.

    Validation: none.
    """

    code = "ADV732"
    name = "checkpoint-use-reentrant"
    message = "`{old}` without `use_reentrant=` warns and is announced to raise; pass it explicitly (True keeps today's behaviour, False is recommended)"
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.SAFE
    triggers = ("checkpoint", "checkpoint_sequential")
    targets = tuple(FUNCS)

    valid = [
        "from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)",
        "from deepspeed import checkpoint\ny = checkpoint(f, x)",
    ]
    invalid = [
        Example(
            "from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x)\n",
            fixed="from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=True)\n",
        ),
        Example(
            "import torch.utils.checkpoint as cp\ny = cp.checkpoint_sequential(layers, 2, x)\n",
            fixed="import torch.utils.checkpoint as cp\ny = cp.checkpoint_sequential(layers, 2, x, use_reentrant=True)\n",
        ),
    ]

    def visit_Call(self, node) -> None:
        old = self.match(node.func, FUNCS)
        if old is None or get_arg(node, "use_reentrant") is not None:
            return
        if any(a.star == "**" for a in node.args):
            self.report(node, self.message.format(old=old))
            return
        self.report(node, self.message.format(old=old), replacement=append_args(node, [kwarg("use_reentrant", "True")]))
