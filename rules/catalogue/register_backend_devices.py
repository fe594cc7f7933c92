from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, get_arg

REGISTER = ("torch.distributed.Backend.register_backend", "torch.distributed.distributed_c10d.Backend.register_backend")


class RegisterBackendDevices(Rule):
    """`Backend.register_backend` without `devices=`: its default changed in 2.14.

    What it finds: calls of `torch.distributed.Backend.register_backend` with
    no `devices=` and fewer than four positional arguments.

    Why: without `devices=` torch warns (UserWarning) and assumes a device
    list: 2.13 assumed "`cpu` and `cuda` or `xpu`", 2.14 and later "`cpu` and
    the current accelerator". Verified on the wheels: tests/truth
    B14-3/register_backend-devices.

    Example:
        dist.Backend.register_backend("x", make_pg)
        # becomes
        dist.Backend.register_backend("x", make_pg, devices=["cpu", "cuda"])

    Fix safety: no automatic fix: only you know which devices the backend serves.

    Validation: none.
    """

    code = "ADV763"
    name = "register-backend-devices"
    message = (
        "`register_backend` without `devices=` assumes `cpu` and the current accelerator since 2.14 (2.13 "
        "assumed `cpu` and `cuda` or `xpu`) and warns; pass `devices=[...]`"
    )
    severity = Severity.INFO
    since = "2.14"  # the behaviour described exists from 2.14
    fix = Applicability.NONE
    triggers = ("register_backend",)
    targets = REGISTER
    valid = ['import torch.distributed as dist\ndist.Backend.register_backend("x", fn, devices=["cpu"])\n']
    invalid = [
        Example(
            'import torch.distributed as dist\ndist.Backend.register_backend("x", fn)\n',
            line=2,
            column=1,
            target="2.14",
        ),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, REGISTER) is None or get_arg(node, "devices") is not None:
            return
        if sum(1 for a in node.args if a.keyword is None and not a.star) < 4 and not any(a.star for a in node.args):
            self.report(node)
