from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    cst,
    has_star_args,
    kwarg,
    prepend_args,
    rewrite_reference,
)

OLD = {
    "torch.cuda.amp.custom_fwd": "torch.amp.custom_fwd",
    "torch.cuda.amp.custom_bwd": "torch.amp.custom_bwd",
    "torch.cuda.amp.autocast_mode.custom_fwd": "torch.amp.custom_fwd",
    "torch.cuda.amp.autocast_mode.custom_bwd": "torch.amp.custom_bwd",
}


class AmpCustomFwdBwd(ReferenceRule):
    """`@torch.cuda.amp.custom_fwd` / `custom_bwd` -> `@torch.amp.custom_fwd(device_type="cuda")`.

    What it finds: the decorators `torch.cuda.amp.custom_fwd` and
    `torch.cuda.amp.custom_bwd`, bare or called (`custom_fwd(cast_inputs=...)`),
    and other references to them.

    Why: FutureWarning: "`torch.cuda.amp.custom_fwd(args...)` is deprecated.
    Please use `torch.amp.custom_fwd(args..., device_type='cuda')` instead."

    Example:
        @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
        # becomes
        @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)

    Fix safety: safe. `device_type` is keyword-only and required in the new API,
    so a bare decorator becomes a call. Other references are reported only.

    Validation: `amp_migration`.

    Release window (checked in the wheels): `torch.amp.custom_fwd` and the
    `@deprecated(..., category=FutureWarning)` on `torch.cuda.amp.custom_fwd` both
    first appear in the 2.4.0 wheel.
    """

    code = "ADV703"
    name = "amp-custom-fwd-bwd"
    message = '`{old}` is deprecated (FutureWarning); use `{new}(device_type="cuda", ...)`'
    severity = Severity.WARNING
    since = "2.4"
    deprecated_in = "2.4"  # @deprecated in the 2.4.0 wheel (torch/cuda/amp/autocast_mode.py); 2.3.0 has none
    fix = Applicability.SAFE
    validation = "amp_migration"
    triggers = ("custom_fwd", "custom_bwd")
    names = OLD

    valid = [
        "import torch\n@torch.amp.custom_fwd(device_type='cuda')\ndef f(ctx, x): ...",
        "from mylib import custom_fwd\n@custom_fwd\ndef f(ctx, x): ...",
    ]
    invalid = [
        Example(
            "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    @torch.cuda.amp.custom_fwd\n    def forward(ctx, x):\n        return x\n",
            fixed='import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    @torch.amp.custom_fwd(device_type="cuda")\n    def forward(ctx, x):\n        return x\n',
        ),
        Example(
            "from torch.cuda.amp import custom_fwd, custom_bwd\n@custom_fwd(cast_inputs=torch.float32)\ndef f(ctx, x): ...\n@custom_bwd\ndef b(ctx, g): ...\n",
            fixed='import torch\n\n@torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)\ndef f(ctx, x): ...\n@torch.amp.custom_bwd(device_type="cuda")\ndef b(ctx, g): ...\n',
            count=2,
        ),
        Example("import torch\nwrap = torch.cuda.amp.custom_fwd\n"),
    ]

    def visit_Decorator(self, node) -> None:
        dec = node.decorator
        target = dec.func if isinstance(dec, cst.Call) else dec
        old = self.match(target, OLD)
        if old is None:
            return
        self._seen.add(target)
        self._decorators.add(dec)
        message = self.message.format(old=old, new=OLD[old])
        func, imports = rewrite_reference(self.ctx.resolver, target, OLD[old])
        device = kwarg("device_type", '"cuda"')
        if isinstance(dec, cst.Call):
            if has_star_args(dec):
                self.report(node, message)
                return
            new = prepend_args(dec.with_changes(func=func), [device])
        else:
            new = cst.Call(func=func, args=[device])
        self.report(node, message, replacement=node.with_changes(decorator=new), add_imports=imports)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._decorators: set = set()  # decorator calls, fixed in visit_Decorator

    def on_call(self, node, old) -> None:
        if node not in self._decorators:  # e.g. custom_fwd(fn) called directly
            self.on_reference(node.func, old)

    def on_reference(self, node, old) -> None:
        self.report(node, self.message.format(old=old, new=OLD[old]))
