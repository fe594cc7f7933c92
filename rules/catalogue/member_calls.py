from __future__ import annotations

from typing import Any

from advisor.rule import ALSO_NEEDED, CODE_ONLY, TEXT_GAPS, Applicability, Example, Severity, Window, cst

from .._bound import BoundNames

_MODULE = "torch.optim.lr_scheduler"
_SCHEDULERS = tuple(
    f"{_MODULE}.{c}"
    for c in (
        "LRScheduler _LRScheduler LambdaLR MultiplicativeLR StepLR MultiStepLR ConstantLR LinearLR ExponentialLR "
        "PolynomialLR CosineAnnealingLR CyclicLR OneCycleLR CosineAnnealingWarmRestarts SequentialLR ChainedScheduler "
        "ReduceLROnPlateau"
    ).split()
)
# Members no other library defines (checked on 12 repositories): reported on any receiver.
_UNIQUE = {
    "cummulative_sizes": (
        "`ConcatDataset.cummulative_sizes` is renamed `cumulative_sizes` (FutureWarning); use `.cumulative_sizes`",
        "cumulative_sizes",
    ),
    "mark_shared_storage": (
        "`ctx.mark_shared_storage(...)` is deprecated and does nothing (FutureWarning): shared storages are tracked "
        "automatically; delete the call",
        None,
    ),
}
_SHAPES = "torch.fx.experimental.symbolic_shapes.ShapeEnv"
_DISPATCHER = "torch.fx.experimental.unification.multipledispatch.Dispatcher"
# Members reported only on a name bound, in the same scope, to a constructor of their class: member -> (the
# classes, the message, deprecated_in, removed_in).
_BOUND = {
    "print_lr": (
        _SCHEDULERS,
        "`{recv}.print_lr(...)` is deprecated from 2.4 and removed in 2.7 (AttributeError); log "
        "`{recv}.get_last_lr()` instead",
        "2.4",
        "2.7",
    ),
    "var_to_val": (
        (_SHAPES,),
        "`{recv}.var_to_val` is deprecated from 2.11 (FutureWarning); use `{recv}.backed_var_to_val`",
        "2.11",
        None,
    ),
    "add_var_to_val": (
        (_SHAPES,),
        "`{recv}.add_var_to_val(...)` is deprecated from 2.11 (FutureWarning); use `{recv}.add_backed_var_to_val(...)`",
        "2.11",
        None,
    ),
    "size_hint": (
        (_SHAPES,),
        "`{recv}.size_hint(...)` is deprecated from 2.12 (FutureWarning); use `guarding_hint_or_throw` or "
        "`optimization_hint`",
        "2.12",
        None,
    ),
    "resolve": (
        (_DISPATCHER,),
        "`{recv}.resolve(types)` is deprecated (FutureWarning); use `{recv}.dispatch(*types)`",
        "2.0",
        None,
    ),
}


class MemberCalls(BoundNames):
    """Deprecated torch members as user code reaches them: through an instance, not the class.

    What it finds:
    - `x.cummulative_sizes` (a `ConcatDataset`'s misspelt alias) and `ctx.mark_shared_storage(...)`
      (an autograd `FunctionCtx` method) on any receiver: no other library defines these names
      (none of detectron2, mmengine, pytorch/examples, torchgeo, speechbrain, open_clip, ignite,
      diffusers, torchtune, Megatron-LM), so the receiver need not be known;
    - `s.print_lr(...)` where `s` is bound in the same function (or module) to a
      `torch.optim.lr_scheduler` scheduler, `env.var_to_val` / `env.add_var_to_val(...)` /
      `env.size_hint(...)` on a `ShapeEnv(...)`, `d.resolve(...)` on a `Dispatcher(...)` of
      `torch.fx.experimental.unification.multipledispatch`: these names are common, so a receiver of
      unknown type is left alone.
    The mined family (ADV001/ADV002) reports the class-attribute forms (`ConcatDataset.cummulative_sizes`).

    Why:
    - `cummulative_sizes`: FutureWarning from 2.4 (`@deprecated`, `2.15.0 torch/utils/data/dataset.py:348-353`),
      DeprecationWarning before; it returns `cumulative_sizes`, which every 2.x release has.
    - `mark_shared_storage`: "`mark_shared_storage` is deprecated. Tensors with shared storages are
      automatically tracked." in every 2.x release; the method only warns (`2.0.0 autograd/function.py:166-170`,
      `2.15.0 autograd/function.py:281-288`).
    - `print_lr`: "`LRScheduler.print_lr()` is being deprecated. To fetch the learning rate, please use
      `get_last_lr()` instead." UserWarning from 2.4 (`2.6.0 optim/lr_scheduler.py:196`), gone from 2.7.
    - `ShapeEnv`: `var_to_val` and `add_var_to_val` are `@deprecated` from 2.11, `size_hint` from 2.12
      (`2.15.0 fx/experimental/symbolic_shapes.py:6126-6138,7866-7870`); `Dispatcher.resolve`: "`resolve()` is
      deprecated, use `dispatch(*types)`" in every 2.x (`2.15.0 .../multipledispatch/dispatcher.py:369-371`).

    Example:
        sizes = dataset.cummulative_sizes      # becomes dataset.cumulative_sizes
        ctx.mark_shared_storage((x, y))        # delete
        scheduler.print_lr(True, group, lr)    # print(scheduler.get_last_lr())

    Fix safety: safe for `cummulative_sizes` (the alias returns `cumulative_sizes`); none for the others.
    Verified: the 2.0.0, 2.6.0 and 2.15.0 wheels; torch 2.13.0 and 2.15.0 at run time. Truth:
    K-798/cummulative-sizes, K-798/mark-shared-storage, K-798/print-lr.
    Validation: none.
    """

    code = "ADV798"
    name = "member-calls"
    message = "deprecated torch member"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = (*_UNIQUE, *_BOUND)
    # only the unique names: the mined family leaves every API of an attribute name listed here to this rule, and
    # must keep the class-attribute forms of the common ones (`ShapeEnv.size_hint`, the removed `size_hint`)
    attribute_targets = tuple(_UNIQUE)
    bound_calls = (*_SCHEDULERS, _SHAPES, _DISPATCHER)
    window_apis = {
        "old": (
            "torch.utils.data.ConcatDataset.cummulative_sizes",
            "torch.autograd.function.FunctionCtx.mark_shared_storage",
        )
    }

    valid = [
        "import torch\nsizes = ds.cumulative_sizes\n",
        "import torch\ndef f(trainer):\n    trainer.print_lr()\n",
        "from timm.scheduler import CosineLRScheduler\ns = CosineLRScheduler(opt, 10)\ns.print_lr()\n",
        "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\nprint(s.get_last_lr())\n",
        # the same names on other receivers
        "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\ns.resolve(x)\n",
        "import pathlib\np = pathlib.Path('.')\nq = p.resolve()\n",
        "import torch\ndef f(graph):\n    return graph.sizevars.size_hint(e)\n",
    ]
    invalid = [
        Example(
            "import torch\nsizes = dataset.cummulative_sizes\n",
            message="renamed `cumulative_sizes`",
            line=2,
            column=9,
            fixed="import torch\nsizes = dataset.cumulative_sizes\n",
        ),
        Example(
            "import torch\n\nclass F(torch.autograd.Function):\n    @staticmethod\n    def forward(ctx, x, y):\n"
            "        ctx.mark_shared_storage((x, y))\n        return x\n",
            message="`ctx.mark_shared_storage(...)` is deprecated and does nothing",
        ),
        Example(
            "from torch.fx.experimental.symbolic_shapes import ShapeEnv\nenv = ShapeEnv()\nhint = env.size_hint(expr)\n",
            message="`env.size_hint(...)` is deprecated from 2.12",
        ),
        Example(
            "import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\ns.print_lr(True, opt.param_groups[0], 0.1)\n",
            message="`s.print_lr(...)` is deprecated from 2.4 and removed in 2.7",
            target="2.6",
        ),
    ]

    @classmethod
    def text_gate(cls) -> Any:
        # A name only this rule's APIs have as an attribute, or a reference to a class whose member it is, and an
        # attribute of one of those names besides (may_match: the unique ones alone, the others with their class).
        owners = tuple(sorted({o for owned, *_ in _BOUND.values() for o in owned}))
        names = "|".join(sorted({*_UNIQUE, *_BOUND}))
        attribute = ALSO_NEEDED + CODE_ONLY + rf"\.{TEXT_GAPS}(?:{names})\b"
        return owners, tuple(sorted(_UNIQUE)), (attribute,), (), ()

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # `resolve`, `size_hint`, `print_lr` are common names: only where their class is referred to as well.
        if not refs.attributes.isdisjoint(_UNIQUE):
            return True
        return any(name in refs.attributes and refs.refers_to_any(_BOUND[name][0]) for name in _BOUND)

    def visit_Attribute(self, node: Any) -> None:
        name = node.attr.value
        if name in _UNIQUE:
            message, new = _UNIQUE[name]
            if new is None:
                self.report(node, message, applicability=Applicability.NONE)
            else:
                self.report(node, message, replacement=node.with_changes(attr=cst.Name(new)))
        elif name in _BOUND:
            owners, message, deprecated_in, removed_in = _BOUND[name]
            bound = self.bound(node.value)
            if bound is not None and bound[0] in owners:
                self.report(
                    node,
                    message.format(recv=node.value.value),
                    applicability=Applicability.NONE,
                    window=Window(deprecated_in=deprecated_in, removed_in=removed_in),
                )
