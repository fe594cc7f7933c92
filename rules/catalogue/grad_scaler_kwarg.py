from __future__ import annotations

from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, cst, nodes_of


def _is_flag(target: Any) -> bool:
    """`_step_supports_amp_scaling` (class body) or `self._step_supports_amp_scaling` (a method)."""
    if isinstance(target, cst.Name):
        return target.value == "_step_supports_amp_scaling"
    return (
        isinstance(target, cst.Attribute)
        and target.attr.value == "_step_supports_amp_scaling"
        and isinstance(target.value, cst.Name)
        and target.value.value == "self"
    )


def _sets_flag(node: Any) -> bool:
    """Does the class set `_step_supports_amp_scaling = True`, in its body or on `self` in a method?"""
    for assign in nodes_of(node, cst.Assign):
        if isinstance(assign.value, cst.Name) and assign.value.value == "True":
            if any(_is_flag(t.target) for t in assign.targets):
                return True
    return False


def _step_takes_grad_scaler(statement: Any) -> Any:
    """The `grad_scaler` parameter of a `def step(...)` class-body statement, or None."""
    if not (isinstance(statement, cst.FunctionDef) and statement.name.value == "step"):
        return None
    p = statement.params
    for param in (*p.posonly_params, *p.params, *p.kwonly_params):
        if param.name.value == "grad_scaler":
            return param
    return None


class GradScalerKwarg(Rule):
    """An optimizer that takes `grad_scaler=` in `step` relies on a GradScaler contract that is being withdrawn.

    What it finds: a class that sets `_step_supports_amp_scaling = True` (in its body, or on `self` in a
    method, as torch's fused optimizers do in `__init__`) and defines
    `step(..., grad_scaler=...)`: the custom-optimizer contract of `torch.amp.GradScaler` (the
    parameter is reported). A `step` without `grad_scaler`, or a class without the flag, is not.

    Why: for such an optimizer `GradScaler.step` passes itself as `grad_scaler=` and warns FutureWarning
    from 2.3: "GradScaler is going to stop passing itself as a keyword argument to the passed optimizer.
    In the near future GradScaler registers `grad_scale: Tensor` and `found_inf: Tensor` to the passed
    optimizer and let the optimizer use them directly." (`2.3.0 torch/amp/grad_scaler.py`,
    `2.15.0 torch/amp/grad_scaler.py:418-441`, checked with `inspect.signature(optimizer.step)`). Without
    the parameter, GradScaler sets `optimizer.grad_scale` and `optimizer.found_inf` before calling
    `step()`, as it does for torch's fused optimizers.

    Example:
        class MyAdam(torch.optim.Optimizer):
            _step_supports_amp_scaling = True
            def step(self, closure=None, grad_scaler=None): ...
        # becomes
            def step(self, closure=None):
                scale, found_inf = getattr(self, "grad_scale", None), getattr(self, "found_inf", None)

    Fix safety: none: the optimizer's own scaling logic changes.
    Verified: torch 2.13.0 CPU and 2.15.0 at run time. Truth: K-168/grad-scaler-kwarg.
    Window: the warning is on the optimizer's own `step` signature, which the index does not record.

    Validation: none.
    """

    code = "ADV168"
    name = "grad-scaler-kwarg"
    message = (
        "`step(..., grad_scaler=...)` with `_step_supports_amp_scaling = True`: GradScaler is withdrawing this "
        "contract (FutureWarning from 2.3); read `self.grad_scale` / `self.found_inf` instead"
    )
    severity = Severity.WARNING
    deprecated_in = "2.3"
    fix = Applicability.NONE
    triggers = ("_step_supports_amp_scaling",)
    window_apis = {"old": ("torch.amp.GradScaler.step",)}
    window_exceptions = {
        "deprecated_in": "the warning is on the optimizer's own `step` signature, which the index does not record"
    }

    valid = [
        "import torch\nclass A(torch.optim.Optimizer):\n    _step_supports_amp_scaling = True\n"
        "    def step(self, closure=None):\n        pass\n",
        "class A:\n    def step(self, closure=None, grad_scaler=None):\n        pass\n",
        "class A:\n    _step_supports_amp_scaling = False\n    def step(self, grad_scaler=None):\n        pass\n",
        # torch's own fused optimizers: the flag on self, a step without grad_scaler
        "import torch\nclass Adam(torch.optim.Optimizer):\n    def __init__(self, fused=False):\n"
        "        if fused:\n            self._step_supports_amp_scaling = True\n\n    def step(self, closure=None):\n"
        "        pass\n",
    ]
    invalid = [
        Example(
            "import torch\n\nclass FusedAdam(torch.optim.Optimizer):\n    _step_supports_amp_scaling = True\n\n"
            "    def step(self, closure=None, grad_scaler=None):\n        pass\n",
            message="GradScaler is withdrawing this contract",
            line=6,
            column=34,
        ),
        Example(
            "class O:\n    _step_supports_amp_scaling = True\n    def step(self, *, grad_scaler=None, closure=None):\n"
            "        pass\n"
        ),
        Example(
            "class O:\n    def __init__(self, fused):\n        if fused:\n            self._step_supports_amp_scaling = True\n\n"
            "    def step(self, closure=None, grad_scaler=None):\n        pass\n"
        ),
    ]

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # A `def step(...)` taking `grad_scaler`: torch's own optimizers set the flag, but their `step` takes none.
        return any(
            a.arg == "grad_scaler"
            for f in refs.defs.get("step", ())
            for a in (*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs)
        )

    def visit_ClassDef(self, node: Any) -> None:
        if not _sets_flag(node):
            return
        for statement in node.body.body:
            param = _step_takes_grad_scaler(statement)
            if param is not None:
                self.report(param)
