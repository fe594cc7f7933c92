from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, bool_value, cst, get_arg

RENAMES = {
    "cuda_time": "device_time",
    "cuda_time_total": "device_time_total",
    "self_cuda_time_total": "self_device_time_total",
    "self_cuda_memory_usage": "self_device_memory_usage",
}
AUTOGRAD_PROFILE = {"torch.autograd.profiler.profile", "torch.autograd.profile"}
PROFILER_PROFILE = {"torch.profiler.profile", "torch.profiler.profiler.profile"}


class DeprecatedProfilerAttributes(Rule):
    """Deprecated profiler event attributes and arguments: `cuda_*` -> `device_*`, `metadata_json`, `use_cuda`.

    What it finds: the attributes `cuda_time`, `cuda_time_total`,
    `self_cuda_time_total`, `self_cuda_memory_usage` and `metadata_json` (in
    files that use torch), and `use_cuda=` passed to `torch.profiler.profile` or
    `torch.autograd.profiler.profile`.

    Why: on `prof.events()` entries (`FunctionEvent`) each emits a FutureWarning
    on 2.13, e.g. "`cuda_time_total` is deprecated. Use `device_time_total`
    instead." On `prof.key_averages()` entries (`FunctionEventAvg`) only
    `cuda_time` still exists; `cuda_time_total`, `self_cuda_time_total` and
    `self_cuda_memory_usage` raise AttributeError (verified on 2.13), so such
    code is already broken. `FunctionEvent.metadata_json`
    is newly deprecated in 2.12 in favour of `event_metadata`.
    `torch.profiler.profile(use_cuda=...)` warns "`use_cuda` is deprecated, use
    `activities` argument instead"; `torch.autograd.profiler.profile(use_cuda=True)`
    warns to use `use_device='cuda'`.

    Example:
        prof.key_averages()[0].cuda_time_total
        # becomes
        prof.key_averages()[0].device_time_total

    Fix safety: safe for the `cuda_*` -> `device_*` renames (same values) and for
    `torch.autograd.profiler.profile(use_cuda=True)` -> `use_device="cuda"`.
    `metadata_json` -> `event_metadata` is not rewritten: the new attribute is a
    NamedTuple, not a JSON string. `torch.profiler.profile(use_cuda=...)` needs an
    `activities=` list and is reported only.

    Validation: `profiler_events` checks the new fields exist and the old ones warn.
    """

    code = "ADV601"
    name = "deprecated-profiler-attributes"
    message = "`{old}` is deprecated on profiler events (FutureWarning) and already gone from `key_averages()` entries (AttributeError on 2.13); use `{new}`"
    severity = Severity.WARNING
    since = "2.4"
    fix = Applicability.SAFE
    validation = "profiler_events"
    triggers = tuple(RENAMES) + ("metadata_json", "use_cuda")
    targets = (*AUTOGRAD_PROFILE, *PROFILER_PROFILE)
    attribute_targets = (*RENAMES, "metadata_json")

    valid = [
        "import torch\nt = evt.device_time_total",
        "import torch\nwith torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):\n    pass",
        "x = evt.cuda_time_total",  # no torch in this file
        "import torch\nwith torch.autograd.profiler.profile(use_device='cuda'):\n    pass",
    ]
    invalid = [
        Example(
            "import torch\nrows = [e.self_cuda_time_total for e in prof.key_averages()]\n",
            fixed="import torch\nrows = [e.self_device_time_total for e in prof.key_averages()]\n",
        ),
        Example("import torch\nmeta = json.loads(evt.metadata_json)\n"),
        Example(
            "import torch\nwith torch.autograd.profiler.profile(use_cuda=True) as p:\n    pass\n",
            fixed="import torch\nwith torch.autograd.profiler.profile(use_device=\"cuda\") as p:\n    pass\n",
        ),
        Example("from torch.profiler import profile\nwith profile(use_cuda=True):\n    pass\n"),
        Example(
            "import torch\nprint(e.cuda_time, e.cuda_time_total)\n",
            fixed="import torch\nprint(e.device_time, e.device_time_total)\n",
            count=2,
        ),
    ]

    def visit_Attribute(self, node) -> None:
        attr = node.attr.value
        if attr in RENAMES and self.imports_torch():
            new = RENAMES[attr]
            message = self.message.format(old=attr, new=new)
            if attr == "cuda_time":
                message = "`cuda_time` is deprecated (FutureWarning); use `device_time`"
            self.report(node, message, replacement=node.attr.with_changes(value=new), fix_node=node.attr)
        elif attr == "metadata_json" and self.imports_torch():
            self.report(
                node,
                "`metadata_json` is deprecated in torch 2.12 (FutureWarning); use `event_metadata` (a NamedTuple, not a JSON string)",
            )

    def visit_Call(self, node) -> None:
        arg = get_arg(node, "use_cuda")
        if arg is None:
            return
        if self.match(node.func, AUTOGRAD_PROFILE):
            value = bool_value(arg.value)
            replacement = None
            if value is True:
                replacement = arg.with_changes(keyword=cst.Name("use_device"), value=cst.SimpleString('"cuda"'))
            self.report(
                node,
                "`use_cuda=` on `torch.autograd.profiler.profile` is deprecated (FutureWarning); use `use_device=\"cuda\"`",
                replacement=replacement,
                fix_node=arg,
            )
        elif self.match(node.func, PROFILER_PROFILE):
            self.report(
                node,
                "`use_cuda=` on `torch.profiler.profile` is deprecated (FutureWarning); pass `activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]`",
            )
