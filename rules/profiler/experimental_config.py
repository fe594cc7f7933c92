from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Window

from .._bound import BoundNames

CONFIGS = ("torch.profiler._ExperimentalConfig", "torch._C._profiler._ExperimentalConfig")
_METRICS = Window(since="2.14", deprecated_in="2.14", removed_in="2.15")
_STEP = Window(since="2.15", deprecated_in="2.15")
KEYWORDS = {"profiler_metrics": _METRICS, "profiler_measure_per_kernel": _METRICS, "adjust_profiler_step": _STEP}
_REMOVED = (
    "`{kw}=` on `_ExperimentalConfig` is ignored since 2.14 (FutureWarning) and removed in 2.15 (TypeError: "
    "incompatible constructor arguments); drop it"
)
_IGNORED = "`adjust_profiler_step=` is deprecated and ignored since 2.15 (FutureWarning); drop it"
_ATTRIBUTE = "`_ExperimentalConfig.{kw}` exists in 2.14 only (AttributeError in 2.15); stop reading it"


class ProfilerExperimentalConfigOptions(BoundNames):
    """`_ExperimentalConfig(profiler_metrics=, profiler_measure_per_kernel=, adjust_profiler_step=)`.

    What it finds: those keywords on `torch.profiler._ExperimentalConfig` /
    `torch._C._profiler._ExperimentalConfig` (through any alias), and reads of
    `.profiler_metrics` / `.profiler_measure_per_kernel` on a name bound to such a
    config in the same scope.

    Why: 2.14 ignores `profiler_metrics` and `profiler_measure_per_kernel` and
    warns FutureWarning at profiler construction ("profiler_metrics and
    profiler_measure_per_kernel are deprecated and ignored. These options will be
    removed in a future release."); 2.15 removes them (TypeError "__init__():
    incompatible constructor arguments"; the read-only attributes exist in 2.14
    only). 2.15 ignores `adjust_profiler_step` and warns FutureWarning
    ("adjust_profiler_step is deprecated and ignored. It will be removed in a
    future release."). Verified on the wheels: tests/truth D14-4/profiler-metrics,
    R15-2/profiler_metrics-attribute, D15-2/adjust_profiler_step.
    `PerformanceMetricsConfig` is not suggested: its equivalence is unverified.

    Example:
        cfg = torch.profiler._ExperimentalConfig(profiler_metrics=["kineto__cuda_core_flops"], verbose=True)
        # becomes
        cfg = torch.profiler._ExperimentalConfig(verbose=True)

    Fix safety: dropping the keyword is safe where torch already ignores it (the
    release in each keyword's window: 2.14 for the metrics, 2.15 for
    `adjust_profiler_step`); below that the option still acted, so the fix is
    unsafe there (decided centrally from the window).

    Validation: none.
    """

    code = "ADV749"
    name = "profiler-experimental-config-options"
    message = _REMOVED
    severity = Severity.WARNING
    since = "2.14"
    deprecated_in = "2.14"
    removed_in = "2.15"
    fix = Applicability.SAFE
    triggers = ("_ExperimentalConfig",)
    targets = CONFIGS
    bound_calls = CONFIGS
    valid = [
        "import torch\ncfg = torch.profiler._ExperimentalConfig(verbose=True)\n",
        "import torch\nm = other.profiler_metrics\n",
    ]
    invalid = [
        Example(
            'import torch\ncfg = torch.profiler._ExperimentalConfig(profiler_metrics=["kineto__cuda_core_flops"], '
            "profiler_measure_per_kernel=True)\n",
            count=2,
            message="removed in 2.15",
            target="2.15",
        ),
        Example(
            "from torch.profiler import _ExperimentalConfig\ncfg = _ExperimentalConfig(verbose=True, adjust_profiler_step=True)\n",
            fixed="from torch.profiler import _ExperimentalConfig\ncfg = _ExperimentalConfig(verbose=True)\n",
            message="since 2.15",
            target="2.15",
            line=2,
            column=41,
        ),
        Example(
            "import torch\ncfg = torch.profiler._ExperimentalConfig()\nm = cfg.profiler_metrics\n",
            message="2.14 only",
            line=3,
            target="2.15",
        ),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, CONFIGS) is None:
            return
        for arg in node.args:
            kw = arg.keyword.value if arg.keyword is not None else None
            if kw in KEYWORDS:
                message = _IGNORED if kw == "adjust_profiler_step" else _REMOVED.format(kw=kw)
                self.report(arg, message, replacement=_without(node, arg), fix_node=node, window=KEYWORDS[kw])

    def visit_Attribute(self, node) -> None:
        if node.attr.value in ("profiler_metrics", "profiler_measure_per_kernel") and self.bound(node.value):
            self.report(node, _ATTRIBUTE.format(kw=node.attr.value), window=Window(removed_in="2.15"))


def _without(call, arg):
    args = list(call.args)
    index = args.index(arg)
    del args[index]
    if index == len(args) and args:  # it was last: the new last argument takes its comma
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)
