from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    positional,
    prepend_args,
    rewrite_reference,
)

OLD = {
    "torch.cuda.amp.GradScaler": "cuda",
    "torch.cuda.amp.grad_scaler.GradScaler": "cuda",
    "torch.cpu.amp.GradScaler": "cpu",
    "torch.cpu.amp.grad_scaler.GradScaler": "cpu",
}


class AmpGradScaler(ReferenceRule):
    """`torch.cuda.amp.GradScaler(...)` -> `torch.amp.GradScaler("cuda", ...)` (and cpu).

    What it finds: calls of and references to `torch.cuda.amp.GradScaler` and
    `torch.cpu.amp.GradScaler`.

    Why: FutureWarning: "`torch.cuda.amp.GradScaler(args...)` is deprecated.
    Please use `torch.amp.GradScaler('cuda', args...)` instead."

    Example:
        scaler = torch.cuda.amp.GradScaler(init_scale=2.0**16)
        # becomes
        scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)

    Fix safety: safe: the device goes first, so the other positional arguments
    keep their places. References that are not calls, such as
    `isinstance(s, torch.cuda.amp.GradScaler)`, are reported without a fix:
    after migrating, scalers built with `torch.amp.GradScaler` no longer pass
    that check. The replacement takes the device from 2.3: on a project whose
    lowest torch is older the fix is unsafe (the policy says so).

    Release window: `torch.amp.GradScaler(device="cuda", ...)` exists from 2.3
    (checked: `torch/amp/__init__.py` of the 2.3.0 wheel imports it, 2.2.0's does not);
    the old classes warn from 2.4 (checked: `@deprecated(..., category=FutureWarning)`
    in `torch/cuda/amp/grad_scaler.py` of the 2.4.0 wheel, absent from 2.3.0).

    Validation: `amp_migration` compares the old and new scaler's state.
    """

    code = "ADV702"
    name = "amp-grad-scaler"
    message = '`{old}` is deprecated (FutureWarning); use `torch.amp.GradScaler("{device}", ...)`'
    severity = Severity.WARNING
    since = "2.3"
    deprecated_in = "2.4"
    fix = Applicability.SAFE
    validation = "amp_migration"
    triggers = ("GradScaler",)
    names = OLD

    valid = [
        "import torch\ns = torch.amp.GradScaler('cuda')",
        "from mylib import GradScaler\ns = GradScaler()",
    ]
    invalid = [
        Example(
            "from torch.cuda.amp import GradScaler\nscaler = GradScaler()\n",
            fixed='import torch\n\nscaler = torch.amp.GradScaler("cuda")\n',
        ),
        Example(
            "import torch\nscaler = torch.cuda.amp.GradScaler(2.0**16, growth_interval=100)\n",
            fixed='import torch\nscaler = torch.amp.GradScaler("cuda", 2.0**16, growth_interval=100)\n',
        ),
        Example(
            "import torch\nok = isinstance(s, torch.cuda.amp.GradScaler)\n",
            message="isinstance checks against the old class stop matching new scalers",
            line=2,
            column=20,
        ),
    ]

    def on_call(self, node, old) -> None:
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.amp.GradScaler")
        new = prepend_args(node.with_changes(func=func), [positional(f'"{OLD[old]}"')])
        self.report(node, self.message.format(old=old, device=OLD[old]), replacement=new, add_imports=imports)

    def on_reference(self, node, old) -> None:
        self.report(
            node,
            self.message.format(old=old, device=OLD[old])
            + "; isinstance checks against the old class stop matching new scalers",
        )
