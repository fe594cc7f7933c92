from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, cst

from .._bound import BoundNames

METHODS = ("set_context", "pop_context")
GREEN = "torch.cuda.green_contexts"


class GreenContextStack(BoundNames):
    """`GreenContext.set_context()` / `.pop_context()` are deprecated from 2.14: use `ctx.Stream()`.

    What it finds: `.set_context()` / `.pop_context()` calls with no arguments
    whose receiver is a name bound to `torch.cuda.green_contexts.GreenContext.create(...)`
    in the same scope, or any such no-argument call in a file that imports
    from `torch.cuda.green_contexts`. Other libraries' `set_context(...)` (e.g.
    `mindspore.set_context(mode=0)`) take arguments and are not flagged.

    Why: 2.14 deprecates the context stack with a FutureWarning (source
    evidence: the 2.14 `green_contexts.py`; it needs a GPU to run).
    `GreenContext.Stream()` already exists in 2.13. tests/truth
    D14-9/green-context-set-pop.

    Example:
        ctx.set_context(); run(); ctx.pop_context()
        # becomes
        s = ctx.Stream()
        with torch.cuda.stream(s):
            run()

    Fix safety: no automatic fix: the code's structure changes.

    Validation: none.
    """

    code = "ADV753"
    name = "green-context-stack"
    message = (
        "`GreenContext.{method}()` is deprecated since 2.14 (FutureWarning); create a stream with `ctx.Stream()` "
        "and use `with torch.cuda.stream(s): ...`"
    )
    severity = Severity.WARNING
    deprecated_in = "2.14"
    fix = Applicability.NONE
    triggers = ("green_contexts", "GreenContext")
    targets = (f"{GREEN}.GreenContext",)
    attribute_targets = METHODS
    bound_calls = (f"{GREEN}.GreenContext.create",)
    valid = [
        "import torch\ns = ctx.Stream()\nwith torch.cuda.stream(s):\n    pass\n",
        "import mindspore\nmindspore.set_context(mode=0)\n",
    ]
    invalid = [
        Example(
            "from torch.cuda.green_contexts import GreenContext\nctx = GreenContext.create(num_sms=8)\n"
            "ctx.set_context()\nrun()\nctx.pop_context()\n",
            count=2,
            message="`GreenContext.set_context()`",
            line=3,
            column=1,
            target="2.14",
        ),
    ]

    def visit_Call(self, node) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in METHODS and not node.args):
            return
        if self.bound(func.value) or any(q.startswith(GREEN) for q in self.ctx.resolver.module_imports()):
            self.report(node, self.message.format(method=func.attr.value))
