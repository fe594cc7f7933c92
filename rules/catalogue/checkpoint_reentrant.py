from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    Rule,
    Severity,
    append_args,
    calls_to,
    get_arg,
    keyword_calls,
    kwarg,
)

FUNCS = {"torch.utils.checkpoint.checkpoint", "torch.utils.checkpoint.checkpoint_sequential"}


class CheckpointUseReentrant(Rule):
    """`torch.utils.checkpoint.checkpoint(...)` without `use_reentrant=`.

    What it finds: `checkpoint` and `checkpoint_sequential` calls that do not
    pass `use_reentrant` (TorchFix TOR003).

    Why: UserWarning from 2.1 (2.0 takes `use_reentrant: bool = True` and does not
    warn; checked in `torch/utils/checkpoint.py` of the 2.0.0 and 2.1.0 wheels). 2.1 and
    2.2 say "torch.utils.checkpoint: please pass in use_reentrant=True or
    use_reentrant=False explicitly"; from 2.3 `checkpoint` says
    "torch.utils.checkpoint: the use_reentrant parameter should be passed
    explicitly." followed by a date that moved: "In version 2.4 we will raise an
    exception if use_reentrant is not passed" in 2.3-2.4 (`2.3.0 utils/checkpoint.py:465-467`),
    "In version 2.5 ..." in 2.5-2.8 (`2.5.0 :466-468`), "Starting in PyTorch 2.9, calling
    checkpoint without use_reentrant will raise an exception" in 2.9-2.14
    (`2.9.0 :473-475`); `checkpoint_sequential` names the same releases ("In version 2.4 /
    2.5 / 2.9 we will raise an exception if use_reentrant is not passed"); 2.15
    drops the date: "In a future release, calling checkpoint without
    use_reentrant will raise an exception" / "In a future release, we will raise
    an exception if use_reentrant is not passed". The default is still
    `use_reentrant=True` in 2.15 (verified: tests/truth D15-9/*).

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
    deprecated_in = "2.1"
    fix = Applicability.SAFE
    triggers = ("checkpoint", "checkpoint_sequential")
    targets = tuple(FUNCS)
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False)",
        "from deepspeed import checkpoint\ny = checkpoint(f, x)",
        "from torch.utils.checkpoint import checkpoint\nkw = {'use_reentrant': False}\ny = checkpoint(f, x, **kw)",
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

    @classmethod
    def text_gate(cls):
        # A reference (Rule.may_match), and, besides, a `checkpoint(`/`checkpoint_sequential(` call that may pass no
        # `use_reentrant=` (`**kw` is read as any text)
        return cls.text_gate_with(*keyword_calls("checkpoint", "use_reentrant", False, "(?:_sequential)?"))

    @classmethod
    def may_match(cls, refs) -> bool:
        # A call passing neither `use_reentrant=` nor `**kwargs` (torch's own calls pass it).
        calls = calls_to(refs, FUNCS)
        return super().may_match(refs) and any(
            all(k.arg not in ("use_reentrant", None) for k in c.keywords) for c in calls
        )

    def visit_Call(self, node) -> None:
        old = self.match(node.func, FUNCS)
        if old is None or get_arg(node, "use_reentrant") is not None:
            return
        if any(a.star == "**" for a in node.args):
            return  # `**kwargs` may hold use_reentrant (a dict built a few lines up often does)
        self.report(node, self.message.format(old=old), replacement=append_args(node, [kwarg("use_reentrant", "True")]))
