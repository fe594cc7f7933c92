from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst


class RequireGradTypo(Rule):
    """`x.require_grad = ...` is a typo for `requires_grad`, and silently does nothing.

    What it finds: assignments to an attribute named `require_grad` in files that
    import torch (TorchFix TOR002).

    Why: tensors and parameters have `requires_grad`; assigning `require_grad`
    just sets a new, unused Python attribute, so gradients are not switched on
    or off as intended.

    Example:
        p.require_grad = False
        # becomes
        p.requires_grad = False

    Fix safety: safe in intent, but it changes behaviour (that is the point):
    the assignment starts to take effect. Marked unsafe for that reason.

    Validation: none.
    """

    code = "ADV743"
    name = "require-grad-typo"
    message = "`require_grad` is a typo for `requires_grad`: this assignment has no effect on autograd"
    severity = Severity.ERROR
    since = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("require_grad",)
    attribute_targets = ("require_grad",)

    valid = ["import torch\np.requires_grad = False", "obj.require_grad = 1  # no torch"]
    invalid = [
        Example(
            "import torch\nfor p in m.parameters():\n    p.require_grad = False\n",
            fixed="import torch\nfor p in m.parameters():\n    p.requires_grad = False\n",
        ),
    ]

    def _check(self, target) -> None:
        if isinstance(target, cst.Attribute) and target.attr.value == "require_grad" and self.imports_torch():
            self.report(target, replacement=target.attr.with_changes(value="requires_grad"), fix_node=target.attr)

    def visit_AssignTarget(self, node) -> None:
        self._check(node.target)

    def visit_AugAssign(self, node) -> None:
        self._check(node.target)

    def visit_AnnAssign(self, node) -> None:
        self._check(node.target)
