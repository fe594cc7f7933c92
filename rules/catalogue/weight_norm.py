from __future__ import annotations

from advisor.rule import Applicability, Example, ReferenceRule, Severity, cst, nodes_of, rewrite_reference

OLD = ("torch.nn.utils.weight_norm", "torch.nn.utils.weight_norm.weight_norm")
REMOVE = ("torch.nn.utils.remove_weight_norm", "torch.nn.utils.weight_norm.remove_weight_norm")
NEW = "torch.nn.utils.parametrizations.weight_norm"
COST = (
    "the state-dict keys change (`weight_g`/`weight_v` become `parametrizations.weight.original0`/`original1`): "
    "old checkpoints still load into it (a load hook converts the keys, from torch 2.1), but code that names the old "
    "keys breaks, and `remove_weight_norm` raises ValueError on it (use "
    '`torch.nn.utils.parametrize.remove_parametrizations(module, "weight")`)'
)
KEPT = (
    "; not rewritten: this file also calls `remove_weight_norm`, which raises ValueError on the new "
    'parametrization: rewrite both (`torch.nn.utils.parametrize.remove_parametrizations(module, "weight")`)'
)


class WeightNorm(ReferenceRule):
    """`torch.nn.utils.weight_norm` is deprecated: use `torch.nn.utils.parametrizations.weight_norm`.

    What it finds: calls of and references to `torch.nn.utils.weight_norm` (through
    aliases and `from` imports).

    Why: the old function warns from 2.1 (UserWarning "torch.nn.utils.weight_norm is
    deprecated in favor of torch.nn.utils.parametrizations.weight_norm.") and, from 2.4,
    with a FutureWarning ("`torch.nn.utils.weight_norm` is deprecated in favor of
    `torch.nn.utils.parametrizations.weight_norm`."). 2.0 does not warn.

    Example:
        m = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2))
        # becomes
        m = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))

    Fix safety: unsafe. The weight becomes a parametrization, so the state-dict keys
    change (`weight_g`/`weight_v` become `parametrizations.weight.original0`/`original1`).
    Checkpoints saved with the old form still load into the new one: its load hook
    (`_weight_norm_compat_hook`) renames the keys, in every release that has the new
    function (2.1 on). Code that reads or writes the old keys breaks, and
    `torch.nn.utils.remove_weight_norm` raises ValueError on the new parametrization
    (it looks for the old hook), so a file that also calls `remove_weight_norm` gets no
    fix: rewrite both, the removal to
    `torch.nn.utils.parametrize.remove_parametrizations(module, "weight")`. On a project
    whose lowest supported torch is 2.0 the message also says that the replacement does
    not exist there. References that are not calls are reported without a fix.

    Release window (checked in the wheels): `parametrizations.weight_norm` and its load
    hook first appear in 2.1.0's `torch/nn/utils/parametrizations.py` (2.0.0's
    `__all__` is `['orthogonal', 'spectral_norm']`); `torch/nn/utils/weight_norm.py`
    calls `warnings.warn(...)` (UserWarning) in 2.1.0-2.3.0, has `@deprecated(...,
    category=FutureWarning)` from 2.4.0, and neither in 2.0.0; `remove_weight_norm`
    raises `ValueError("weight_norm of '...' not found in ...")` when no old hook is
    registered, in every release 2.0.0-2.15.0.

    Window: the warning is raised by the helper `WeightNorm.apply` that `weight_norm` calls
    (`2.1.0 torch/nn/utils/weight_norm.py:30`), which the API index does not follow.
    """

    code = "ADV709"
    whole_module = True  # whether the file also removes weight norm is searched module-wide
    name = "weight-norm"
    message = "`{old}` is deprecated (UserWarning from 2.1, FutureWarning from 2.4); use `" + NEW + "`; " + COST
    severity = Severity.WARNING
    since = "2.1"
    deprecated_in = "2.1"
    window_exceptions = {
        "deprecated_in": "the warning is raised by the helper `WeightNorm.apply` that `weight_norm` calls\n(`2.1.0 torch/nn/utils/weight_norm.py:30`), which the API index does not follow.",
    }
    fix = Applicability.UNSAFE
    triggers = ("weight_norm",)
    names = OLD

    valid = [
        "import torch\nm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2))",
        "def f(torch):\n    return torch.nn.utils.weight_norm(m)",
    ]
    invalid = [
        Example(
            "import torch\nm = torch.nn.utils.weight_norm(torch.nn.Linear(2, 2), dim=1)\n",
            fixed="import torch\nm = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(2, 2), dim=1)\n",
            message="old checkpoints still load into it",
            line=2,
            column=5,
        ),
        Example(
            "from torch.nn.utils import weight_norm\nm = weight_norm(conv)\n",
            fixed="import torch\n\nm = torch.nn.utils.parametrizations.weight_norm(conv)\n",
        ),
        Example(
            "from torch.nn.utils import remove_weight_norm, weight_norm\n"
            "m = weight_norm(conv)\nremove_weight_norm(m)\n",
            message="not rewritten: this file also calls `remove_weight_norm`",
        ),
        Example("import torch\nwrap = torch.nn.utils.weight_norm\n", message="use `" + NEW + "`"),
        Example("import torch\nm = torch.nn.utils.weight_norm(conv)\n", target="2.3", message="UserWarning from 2.1"),
    ]

    def on_call(self, node, old) -> None:
        message = self.message.format(old=old)
        if self._removes_weight_norm():
            self.report(node, message + KEPT)
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, NEW)
        self.report(node, message, replacement=node.with_changes(func=func), add_imports=imports)

    def on_reference(self, node, old) -> None:
        self.report(node, self.message.format(old=old))

    def _removes_weight_norm(self) -> bool:
        if not hasattr(self, "_removes"):
            self._removes = any(self.match(n, REMOVE) for n in nodes_of(self.ctx.module, cst.Attribute, cst.Name))
        return self._removes
