from __future__ import annotations

from advisor.rule import (
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAPS,
    Example,
    Rule,
    Severity,
    cst,
    get_arg,
    simple_name,
    string_value,
)

STAGE_KEYS = ("num_stages", "fwd_num_stages")
OVERWRITTEN_KEYS = ("kpack", "matrix_instr_nonkdim", "waves_per_eu")


class RocmFlexAttentionKernelOptions(Rule):
    """`flex_attention` `kernel_options` that pin the stage count or set ROCm keys the lowering overwrites.

    What it finds, in ROCm-targeted code that uses `flex_attention` (directly or
    through a `torch.compile`d wrapper): a `kernel_options=` argument, given as
    a dict literal, `dict(...)`, `FlexKernelOptions(...)` or a name assigned one
    of those in the same file, that sets
    - `num_stages` or `fwd_num_stages`: your value overrides the default, and
      2.12 changed the ROCm forward default for fp16/bf16 from 1 to 2 stages on
      every ROCm GPU (PR #176676, benchmarked on MI350X only; 2.13 makes it
      per-architecture again);
    - `kpack`, `matrix_instr_nonkdim` or `waves_per_eu`: on ROCm the Triton flex
      lowering assigns these from the selected config, so your values have no
      effect (read in the 2.11 and 2.12 sources; not checked at runtime).

    Why: `"num_stages": 1` pins often date from 2024 (#139883), when Triton 3.2
    ran out of shared memory with more stages. They keep you on the old
    behaviour; an untuned stage-2 default on MI300X/MI250X/RDNA may also be
    slower. Either way, measure rather than guess.

    Example:
        out = flex_attention(q, k, v, kernel_options={"num_stages": 1})

    Fix safety: no fix: keep or drop the pin after benchmarking both.

    Validation: `rocm_runtime` (times the forward with the default,
    `{"num_stages": 1}` and `{"num_stages": 2}` for bf16 and fp16, and
    compares the outputs).
    """

    code = "ADV806"
    name = "rocm-flex-attention-options"
    message = (
        "`kernel_options` pins `{key}`: torch 2.12 changed the ROCm FlexAttention forward default for fp16/bf16 "
        "from 1 to 2 stages and your value overrides it; benchmark both with the `rocm_runtime` validation script"
    )
    severity = Severity.INFO
    since = "2.12"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = ("kernel_options",)

    valid = [
        "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\nout = flex_attention(q, k, v)",
        "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\n"
        "out = flex_attention(q, k, v, kernel_options={'BLOCK_M': 64})",
        # CUDA-only code: no ROCm marker, silent.
        "from torch.nn.attention.flex_attention import flex_attention\nout = flex_attention(q, k, v, kernel_options={'num_stages': 3})",
        # A parameter of that name, passed on in no call's `kernel_options=`.
        "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\nIS_ROCM = torch.version.hip\n"
        "def f(q, k, v, kernel_options):\n    return flex_attention(q, k, v, None, None, False, kernel_options)",
        # Not FlexAttention.
        "import torch\nIS_ROCM = torch.version.hip\nlaunch(kernel_options={'num_stages': 1})",
    ]
    invalid = [
        Example(
            "import torch\nfrom torch.nn.attention.flex_attention import flex_attention\n"
            "opts = {'num_stages': 1} if torch.version.hip else {}\nout = flex_attention(q, k, v, kernel_options={'num_stages': 1})"
        ),
        Example(
            "import torch\nfrom torch.nn.attention import flex_attention as fa\nIS_ROCM = True\n"
            "OPTS = dict(fwd_num_stages=1, kpack=2)\ncompiled = torch.compile(fa.flex_attention)\n"
            "out = compiled(q, k, v, kernel_options=OPTS)",
            count=2,
        ),
        Example(
            "import torch\nfrom torch.nn.attention.flex_attention import flex_attention, FlexKernelOptions\n"
            "if torch.version.hip:\n    out = flex_attention(q, k, v, kernel_options=FlexKernelOptions(waves_per_eu=2))"
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A `kernel_options=` keyword in code (may_match reads the calls that pass one), and besides the name
        # `flex_attention` or `FlexKernelOptions` in code (an identifier: a name, an attribute, an import's).
        keyword = CODE_ONLY + rf"kernel_options(?<![\w.]kernel_options){TEXT_GAPS}=(?!=)"
        names = ("flex_attention", "FlexKernelOptions")
        named = tuple(ALSO_NEEDED + CODE_ONLY + rf"{n}(?<!\w{n})\b" for n in names)  # a whole word, first a literal
        return (), (), (keyword, *named), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # Only a call's `kernel_options=` is read (a parameter of that name in torch's own code is not one).
        idents = refs.identifiers()
        return (
            "kernel_options" in refs.names
            and ("flex_attention" in idents or "FlexKernelOptions" in idents)
            and any(True for _ in _given(refs))
        )

    reads_identifiers = True

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # `kernel_options=opts` reads what `opts` was assigned anywhere in the file; a literal needs nothing more.
        return any(type(value).__name__ == "Name" for value in _given(refs))

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._flex = "flex_attention" in ctx.identifiers or "FlexKernelOptions" in ctx.identifiers
        self._bound: dict[str, object] = {}  # name -> the dict/call last assigned to it
        self._calls: list[object] = []

    def visit_Assign(self, node) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            self._bound[node.targets[0].target.value] = node.value

    def visit_Call(self, node) -> None:
        if get_arg(node, "kernel_options") is not None:
            self._calls.append(node)

    def leave_Module(self, node) -> None:
        if not self._flex:
            return
        for call in self._calls:
            value = get_arg(call, "kernel_options").value
            if isinstance(value, cst.Name):
                value = self._bound.get(value.value, value)
            for key, key_node in _keys(value):
                if key in STAGE_KEYS:
                    self.report(key_node, self.message.format(key=key), data={"key": key})
                elif key in OVERWRITTEN_KEYS:
                    self.report(
                        key_node,
                        f"`kernel_options` sets `{key}`, which the ROCm Triton FlexAttention lowering overwrites from its "
                        "selected config (torch 2.11 and 2.12 sources), so it has no effect; remove it or measure with the "
                        "`rocm_runtime` validation script",
                        data={"key": key},
                    )


def _given(refs):
    """The values of the `kernel_options=` keywords of the module's calls (`ast` nodes)."""
    return (k.value for calls in refs.calls.values() for c in calls for k in c.keywords if k.arg == "kernel_options")


def _keys(value):
    """(key, node to report) pairs of a dict literal or a dict(...)/FlexKernelOptions(...) call."""
    if isinstance(value, cst.Dict):
        for el in value.elements:
            if isinstance(el, cst.DictElement):
                key = string_value(el.key)
                if key is not None:
                    yield key, el
    elif isinstance(value, cst.Call):
        func = value.func
        name = simple_name(func)
        if name in ("dict", "FlexKernelOptions"):
            for arg in value.args:
                if arg.keyword is not None:
                    yield arg.keyword.value, arg
