from __future__ import annotations

from advisor.rule import (
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    calls_to,
    cst,
    get_arg,
)

HOOKS = ("torch.autograd.graph.save_on_cpu", "torch.autograd.graph.saved_tensors_hooks")
CHECKPOINT = ("torch.utils.checkpoint.checkpoint",)


class SacSavedTensorsHooks(Rule):
    """Selective activation checkpointing inside `saved_tensors_hooks` / `save_on_cpu` warns from 2.14.

    What it finds: a call of `torch.utils.checkpoint.checkpoint` with
    `context_fn=` (selective activation checkpointing) and without
    `respect_saved_tensors_hooks=`, lexically inside a `with` block of
    `torch.autograd.graph.save_on_cpu(...)` or
    `torch.autograd.graph.saved_tensors_hooks(...)`.

    Why: from 2.14 this warns FutureWarning: tensors saved by SAC bypass the
    hooks today, and a future release will route them through the hooks.
    `respect_saved_tensors_hooks=` is new in 2.14. Verified on the wheels:
    tests/truth D14-10/sac-in-save_on_cpu, D14-10/respect_saved_tensors_hooks.

    Example:
        with torch.autograd.graph.save_on_cpu():
            y = checkpoint(f, x, use_reentrant=False, context_fn=cf)
        # becomes, keeping today's behaviour (torch 2.14+ only)
            y = checkpoint(f, x, use_reentrant=False, context_fn=cf, respect_saved_tensors_hooks=False)

    Fix safety: no automatic fix. Below 2.14 the keyword is not merely unknown:
    2.13's non-reentrant checkpoint forwards unknown keywords to the checkpointed
    function (a TypeError, or a silently received argument with `**kwargs`;
    tests/truth D14-10/respect_saved_tensors_hooks), so adding it is only right
    when your lowest supported torch is 2.14.

    Validation: none.
    """

    code = "ADV754"
    name = "sac-saved-tensors-hooks"
    message = (
        "selective activation checkpointing inside `{ctx}` warns since 2.14 (FutureWarning): SAC-saved tensors "
        "bypass the hooks today, and a future release will route them through the hooks; pass "
        "`respect_saved_tensors_hooks=False` (today's behaviour) or `True` (2.14+ only)"
    )
    severity = Severity.WARNING
    since = "2.14"
    deprecated_in = "2.14"
    fix = Applicability.NONE
    triggers = ("context_fn",)
    targets = (*HOOKS, *CHECKPOINT)
    valid = [
        "import torch\nfrom torch.autograd.graph import save_on_cpu\nfrom torch.utils.checkpoint import checkpoint\n"
        "with save_on_cpu():\n    y = checkpoint(f, x, use_reentrant=False, context_fn=cf, respect_saved_tensors_hooks=False)\n",
        "from torch.utils.checkpoint import checkpoint\ny = checkpoint(f, x, use_reentrant=False, context_fn=cf)\n",
    ]
    invalid = [
        Example(
            "import torch\nfrom torch.utils.checkpoint import checkpoint\nwith torch.autograd.graph.save_on_cpu():\n"
            "    y = checkpoint(f, x, use_reentrant=False, context_fn=cf)\n",
            message="inside `save_on_cpu`",
            line=4,
            column=9,
            target="2.14",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A hook referred to (may_match asks first), and a `context_fn=` keyword in code besides.
        keyword = ALSO_NEEDED + CODE_ONLY + rf"context_fn(?<![\w.]context_fn){TEXT_GAPS}=(?!=)"
        return HOOKS, (), (keyword,), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # A hook named, and a checkpoint call given `context_fn=` but not `respect_saved_tensors_hooks=`.
        if not refs.refers_to_any(HOOKS):
            return False
        calls = calls_to(refs, CHECKPOINT)
        return any(
            "context_fn" in given and "respect_saved_tensors_hooks" not in given
            for given in ({k.arg for k in c.keywords} for c in calls)
        )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._hooks: list[str] = []

    def visit_With(self, node) -> None:
        self._hooks.append(self._hook_of(node))

    def leave_With(self, node) -> None:
        self._hooks.pop()

    def _hook_of(self, node) -> str:
        for item in node.items:
            if isinstance(item.item, cst.Call):
                q = self.match(item.item.func, HOOKS)
                if q:
                    return q.rpartition(".")[2]
        return ""

    def visit_Call(self, node) -> None:
        inside = next((h for h in reversed(self._hooks) if h), None)
        if inside is None or not self.match(node.func, CHECKPOINT):
            return
        if get_arg(node, "context_fn") is not None and get_arg(node, "respect_saved_tensors_hooks") is None:
            self.report(node, self.message.format(ctx=inside))
