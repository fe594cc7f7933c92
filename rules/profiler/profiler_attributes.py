from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, Window, bool_value, cst, expr, get_arg

RENAMES = {
    "cuda_time": "device_time",
    "cuda_time_total": "device_time_total",
    "self_cuda_time_total": "self_device_time_total",
    "self_cuda_memory_usage": "self_device_memory_usage",
}
AUTOGRAD_PROFILE = {
    "torch.autograd.profiler.profile",
    "torch.autograd.profile",
}  # not profiler_legacy: it keeps use_cuda
PROFILER_PROFILE = {"torch.profiler.profile", "torch.profiler.profiler.profile"}
# Windows per attribute / keyword (truth: R14-3, R14-4, D15-1, R15-1).
CUDA_WINDOW = Window(since="2.4", deprecated_in="2.4")
METADATA_JSON = Window(since="2.14", deprecated_in="2.12", removed_in="2.15")
EVENT_METADATA = Window(since="2.14", deprecated_in="2.15")
# `use_device=` (the fix) first exists in 2.1: the 2.0.0 wheel's autograd/profiler.py has no `use_device`.
USE_CUDA = Window(since="2.1", deprecated_in="2.4", removed_in="2.14")
_METADATA_JSON = (
    "`metadata_json` is deprecated since 2.12 (FutureWarning) and removed in 2.15 (AttributeError); use `metadata` "
    "(2.14+, a dict keyed by Kineto field names, not a JSON string; `event_metadata` is itself deprecated in 2.15)"
)
_EVENT_METADATA = (
    "`event_metadata` is deprecated since 2.15 (FutureWarning); use `metadata` (2.14+; a dict keyed by Kineto field "
    "names, not the `EventMetadata` NamedTuple)"
)
_AUTOGRAD_USE_CUDA = (
    "`use_cuda=` on `torch.autograd.profiler.profile` is deprecated (FutureWarning) and removed in 2.14 (TypeError: "
    'unexpected keyword argument); use `use_device="cuda"` (or drop `use_cuda=False`)'
)
_PROFILER_USE_CUDA = (
    "`use_cuda=` on `torch.profiler.profile` is deprecated (FutureWarning), has no effect, and is removed in 2.14 "
    "(TypeError); delete it (activities default to every available one; pass `activities=[...]` to choose)"
)


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
    code is already broken. `FunctionEvent.metadata_json` (deprecated 2.12) is
    removed in 2.15 (AttributeError); `event_metadata` is deprecated in 2.15
    (FutureWarning "`event_metadata` is deprecated. Use `metadata` instead.");
    `metadata` (2.14+, a dict) is the replacement.
    `torch.profiler.profile(use_cuda=...)` warned "`use_cuda` is deprecated, use
    `activities` argument instead"; `torch.autograd.profiler.profile(use_cuda=True)`
    warned to use `use_device='cuda'`. `use_cuda=` is removed from both profilers
    in 2.14 (TypeError; PR #192543); in `torch.profiler.profile` it was already
    inert (verified on 2.13: the same activities with and without it).
    `torch.autograd.profiler_legacy.profile(use_cuda=...)` keeps the parameter and
    is not flagged. Verified on the 2.13.0, 2.14.1 and 2.15.0 wheels: tests/truth
    (R14-3/*, R14-4/*, D15-1/*, R15-1/*). `use_device=` itself first appears in
    2.1 (absent from the 2.0.0 wheel's `torch/autograd/profiler.py`), so on a
    project that supports 2.0 the rewrite is unsafe.

    Example:
        prof.key_averages()[0].cuda_time_total
        # becomes
        prof.key_averages()[0].device_time_total

    Fix safety: safe for the `cuda_*` -> `device_*` renames (same values), for
    `torch.autograd.profiler.profile(use_cuda=True)` -> `use_device="cuda"`,
    `use_cuda=False` -> deleted, `use_cuda=x` -> `use_device="cuda" if x else None`,
    and for deleting `use_cuda=` from `torch.profiler.profile` (it had no effect).
    `metadata_json` / `event_metadata` -> `metadata` is not rewritten: a JSON
    string / NamedTuple becomes a dict keyed by Kineto field names.

    Validation: `profiler_events` checks the new fields exist and the old ones warn.
    """

    code = "ADV601"
    name = "deprecated-profiler-attributes"
    message = "`{old}` is deprecated on profiler events (FutureWarning) and already gone from `key_averages()` entries (AttributeError on 2.13); use `{new}`"
    severity = Severity.WARNING
    since = "2.4"
    fix = Applicability.SAFE
    validation = "profiler_events"
    triggers = tuple(RENAMES) + ("metadata_json", "event_metadata", "use_cuda")
    targets = (*AUTOGRAD_PROFILE, *PROFILER_PROFILE)
    attribute_targets = (*RENAMES, "metadata_json", "event_metadata")

    valid = [
        "import torch\nt = evt.device_time_total",
        "import torch\nwith torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]):\n    pass",
        "x = evt.cuda_time_total",  # no torch in this file
        "import torch\nwith torch.autograd.profiler.profile(use_device='cuda'):\n    pass",
        "import torch\nwith torch.autograd.profiler_legacy.profile(use_cuda=False):\n    pass",
        "import torch\nm = evt.metadata",
    ]
    invalid = [
        Example(
            "import torch\nrows = [e.self_cuda_time_total for e in prof.key_averages()]\n",
            fixed="import torch\nrows = [e.self_device_time_total for e in prof.key_averages()]\n",
        ),
        Example("import torch\nmeta = json.loads(evt.metadata_json)\n", message="removed in 2.15"),
        Example("import torch\nseq = evt.event_metadata\n", message="deprecated since 2.15", target="2.15"),
        Example(
            "import torch\nwith torch.autograd.profiler.profile(use_cuda=False) as p:\n    pass\n",
            fixed="import torch\nwith torch.autograd.profiler.profile() as p:\n    pass\n",
        ),
        Example(
            "import torch\nwith torch.autograd.profiler.profile(record_shapes=True, use_cuda=flag) as p:\n    pass\n",
            fixed='import torch\nwith torch.autograd.profiler.profile(record_shapes=True, use_device="cuda" if flag else None) as p:\n    pass\n',
        ),
        Example(
            "import torch\nwith torch.autograd.profiler.profile(use_cuda=True) as p:\n    pass\n",
            fixed='import torch\nwith torch.autograd.profiler.profile(use_device="cuda") as p:\n    pass\n',
        ),
        Example(
            "from torch.profiler import profile\nwith profile(use_cuda=True):\n    pass\n",
            fixed="from torch.profiler import profile\nwith profile():\n    pass\n",
            message="removed in 2.14",
        ),
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
            self.report(
                node, message, replacement=node.attr.with_changes(value=new), fix_node=node.attr, window=CUDA_WINDOW
            )
        elif attr == "metadata_json" and self.imports_torch():
            self.report(node, _METADATA_JSON, window=METADATA_JSON)
        elif attr == "event_metadata" and self.imports_torch():
            self.report(node, _EVENT_METADATA, window=EVENT_METADATA)

    def visit_Call(self, node) -> None:
        arg = get_arg(node, "use_cuda")
        if arg is None:
            return
        if self.match(node.func, AUTOGRAD_PROFILE):
            value = bool_value(arg.value)
            if value is True:
                new = arg.with_changes(keyword=cst.Name("use_device"), value=cst.SimpleString('"cuda"'))
                self.report(node, _AUTOGRAD_USE_CUDA, replacement=new, fix_node=arg, window=USE_CUDA)
            elif value is False:
                self.report(node, _AUTOGRAD_USE_CUDA, replacement=_without(node, arg), window=USE_CUDA)
            else:
                value_code = self.ctx.code_for(arg.value)
                new = arg.with_changes(keyword=cst.Name("use_device"), value=expr(f'"cuda" if {value_code} else None'))
                self.report(node, _AUTOGRAD_USE_CUDA, replacement=new, fix_node=arg, window=USE_CUDA)
        elif self.match(node.func, PROFILER_PROFILE):
            self.report(node, _PROFILER_USE_CUDA, replacement=_without(node, arg), window=USE_CUDA)


def _without(call, arg):
    """`call` without the argument `arg` (the separator before it goes with it)."""
    args = list(call.args)
    index = args.index(arg)
    del args[index]
    if index == len(args) and args:  # it was last: the new last argument takes its comma
        args[-1] = args[-1].with_changes(comma=arg.comma)
    return call.with_changes(args=args)
