from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    cst,
    has_star_args,
    positional,
    prepend_args,
    rewrite_reference,
)

OLD = {
    "torch.cuda.amp.autocast": "cuda",
    "torch.cuda.amp.autocast_mode.autocast": "cuda",
    "torch.cpu.amp.autocast": "cpu",
    "torch.cpu.amp.autocast_mode.autocast": "cpu",
}
POSITIONAL = ("enabled", "dtype", "cache_enabled")  # the old signature's order


class AmpAutocast(ReferenceRule):
    """`torch.cuda.amp.autocast(...)` / `torch.cpu.amp.autocast(...)` -> `torch.amp.autocast("cuda"/"cpu", ...)`.

    What it finds: calls of (and references to) `torch.cuda.amp.autocast` and
    `torch.cpu.amp.autocast`, as context managers, decorators or plain calls.

    Why: FutureWarning: "`torch.cuda.amp.autocast(args...)` is deprecated.
    Please use `torch.amp.autocast('cuda', args...)` instead." (likewise for cpu).

    Example:
        with torch.cuda.amp.autocast(dtype=torch.bfloat16): ...
        # becomes
        with torch.amp.autocast("cuda", dtype=torch.bfloat16): ...

    Fix safety: safe. The old positional order `(enabled, dtype, cache_enabled)`
    differs from the new `(device_type, dtype=None, enabled=True, ...)`, so
    positional arguments become keywords. The old default dtype (float16 on
    CUDA, bfloat16 on CPU) equals `torch.get_autocast_dtype(device)` unless you
    changed that, and the old class is a subclass of the new one. Calls with
    `*args` and bare references are reported without a fix. The replacement
    exists in every release the catalogue covers, so the fix is safe on any
    lowest supported torch.

    Release window: `torch.amp.autocast(device_type, ...)` exists from 2.0 (checked:
    `torch/amp/__init__.py` of the 2.0.0 wheel is `from .autocast_mode import autocast`,
    and 2.0.0's `torch/cuda/amp/autocast_mode.py` subclasses it and passes "cuda");
    the old classes warn from 2.4 (checked: `@deprecated(..., category=FutureWarning)`
    in `torch/cuda/amp/autocast_mode.py` and `torch/cpu/amp/autocast_mode.py` of the
    2.4.0 wheel, absent from 2.3.0).

    Validation: `amp_migration` checks that old and new give the same autocast dtype.
    """

    code = "ADV701"
    name = "amp-autocast"
    message = '`{old}(...)` is deprecated (FutureWarning); use `torch.amp.autocast("{device}", ...)`'
    severity = Severity.WARNING
    since = "2.0"
    deprecated_in = "2.4"
    fix = Applicability.SAFE
    validation = "amp_migration"
    triggers = ("autocast",)
    names = OLD

    valid = [
        "import torch\nwith torch.amp.autocast('cuda'):\n    pass",
        "import torch\nwith torch.autocast('cuda', dtype=torch.bfloat16):\n    pass",
        "def f(torch):\n    return torch.cuda.amp.autocast()",
    ]
    invalid = [
        Example(
            "import torch\nwith torch.cuda.amp.autocast(dtype=torch.bfloat16):\n    pass\n",
            fixed='import torch\nwith torch.amp.autocast("cuda", dtype=torch.bfloat16):\n    pass\n',
        ),
        Example(
            "import torch\nwith torch.cuda.amp.autocast(True):\n    pass\n",
            fixed='import torch\nwith torch.amp.autocast("cuda", enabled=True):\n    pass\n',
        ),
        Example(
            "from torch.cuda.amp import autocast\n@autocast()\ndef f(x):\n    return x\n",
            fixed='import torch\n\n@torch.amp.autocast("cuda")\ndef f(x):\n    return x\n',
        ),
        Example(
            "import torch as th\nctx = th.cpu.amp.autocast(False, th.bfloat16, cache_enabled=True)\n",
            fixed='import torch as th\nctx = th.amp.autocast("cpu", enabled=False, dtype=th.bfloat16, cache_enabled=True)\n',
        ),
        Example("import torch\nfactory = torch.cuda.amp.autocast\n"),
    ]

    def on_call(self, node, old) -> None:
        device = OLD[old]
        message = self.message.format(old=old, device=device)
        if has_star_args(node) or sum(1 for a in node.args if a.keyword is None) > len(POSITIONAL):
            self.report(node, message)
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, "torch.amp.autocast")
        args = []
        position = 0
        for a in node.args:
            if a.keyword is None:
                a = a.with_changes(
                    keyword=cst.Name(POSITIONAL[position]),
                    equal=cst.AssignEqual(
                        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                    ),
                )
                position += 1
            args.append(a)
        new = prepend_args(node.with_changes(func=func, args=args), [positional(f'"{device}"')])
        self.report(node, message, replacement=new, add_imports=imports)

    def on_reference(self, node, old) -> None:
        self.report(node, self.message.format(old=old, device=OLD[old]))
