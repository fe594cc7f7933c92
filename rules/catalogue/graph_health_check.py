from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity


class OptimizerGraphHealthCheck(Rule):
    """`Optimizer._cuda_graph_capture_health_check` -> `_accelerator_graph_capture_health_check` (2.12).

    What it finds: uses of the private optimizer method
    `_cuda_graph_capture_health_check` (typically `self._cuda_graph_capture_health_check()`
    in custom optimizers) in files that import torch.

    Why: new in 2.12: DeprecationWarning "Use _accelerator_graph_capture_health_check
    instead" (optim/optimizer.py), as the optimizer's capture checks became
    device-agnostic.

    Example:
        self._cuda_graph_capture_health_check()
        # becomes
        self._accelerator_graph_capture_health_check()

    Fix safety: safe on torch >= 2.12, where the new method exists (older
    torch lacks it, so the fix is marked unsafe for projects that still
    support them).

    Validation: `stream_capture`.
    """

    code = "ADV742"
    window_apis = {"old": ("torch.optim.Optimizer._cuda_graph_capture_health_check",)}
    name = "optimizer-graph-health-check"
    message = "`_cuda_graph_capture_health_check` is deprecated in torch 2.12 (DeprecationWarning); use `_accelerator_graph_capture_health_check`"
    severity = Severity.WARNING
    since = "2.12"
    deprecated_in = "2.12"
    fix = Applicability.SAFE
    validation = "stream_capture"
    triggers = ("_cuda_graph_capture_health_check",)
    attribute_targets = ("_cuda_graph_capture_health_check",)

    valid = ["import torch\nself._accelerator_graph_capture_health_check()"]
    invalid = [
        Example(
            "import torch\nclass Opt(torch.optim.Optimizer):\n    def step(self):\n        self._cuda_graph_capture_health_check()\n",
            fixed="import torch\nclass Opt(torch.optim.Optimizer):\n    def step(self):\n        self._accelerator_graph_capture_health_check()\n",
        ),
    ]

    def visit_Attribute(self, node) -> None:
        if node.attr.value == "_cuda_graph_capture_health_check" and self.imports_torch():
            self.report(
                node,
                replacement=node.attr.with_changes(value="_accelerator_graph_capture_health_check"),
                fix_node=node.attr,
            )
