from __future__ import annotations

import re

from advisor.rule import Applicability, Example, Kind, Severity, Symbol, SymbolRule, cst, dotted_name, nodes_of

GRAPH_TRIGGERS = ("CUDAGraph", "make_graphed_callables", "graph_pool_handle", "graph")

_MSG = (
    "`{old}` is CUDA-specific capture; torch 2.12 adds the device-agnostic `torch.accelerator.Graph` "
    "for XPU and out-of-tree backends, but its CUDA support is unverified: keep this on CUDA"
)
# What makes a file device-generic or multi-accelerator: where the advice can be acted on.
_GENERIC_APIS = (
    "torch.accelerator",
    "torch.xpu",
    "torch.mps",
    "torch.get_device_module",
    "torch.Stream",
    "torch.Event",
)
_OTHER_DEVICES = re.compile(r"""^[rRbBuU]?["'](xpu|mps|hpu|npu|xla|privateuseone)(:\d+)?["']$""")
_DEVICE_STRING = r"""["'](?:xpu|mps|hpu|npu|xla|privateuseone)(?::\d+)?["']"""  # `_OTHER_DEVICES`, anywhere in a text
_CUDA_ONLY = " (advice: this file targets CUDA only, so there is nothing to change here)"
_NO_EQUIV = (
    "`{old}` has no `torch.accelerator` equivalent in 2.12; keep it on CUDA "
    "(`torch.accelerator.Graph` is for XPU and out-of-tree backends, CUDA support unverified)"
)


def _may_be_generic(refs) -> bool:
    """Can the module hold a marker of `_generic_marker` at all?"""
    return any(q.startswith(_GENERIC_APIS) for q in refs.qualnames) or any(
        _OTHER_DEVICES.match(repr(q)) for q in refs.qualnames if len(q) < 20
    )


class DeviceSpecificGraphCapture(SymbolRule):
    """CUDA-specific graph capture, where 2.12 adds the device-agnostic `torch.accelerator.Graph`.

    What it finds: `torch.cuda.CUDAGraph`, `torch.cuda.graph`,
    `torch.cuda.make_graphed_callables` and `torch.cuda.graph_pool_handle`
    (also through `torch.cuda.graphs`). Same-named functions of other libraries,
    such as TransformerEngine's `make_graphed_callables`, are not flagged.

    Why: 2.12 introduces `torch.accelerator.Graph` to unify capture across
    devices. This is advice only: the CUDA implementation (PR #171313) was still
    open, CUDA's graph class does not implement the new interface in the 2.12
    headers, and on a CUDA build `torch.accelerator.Graph()` probably raises
    "Graph is not supported on device type". The semantics differ too: capture
    runs on the *current* stream (CUDA cannot capture the default stream), the
    default capture mode is "default" rather than "global", pool and mode go to
    the constructor, `__enter__` returns None, and there is no
    `make_graphed_callables` or `graph_pool_handle` equivalent.

    Where it can be acted on: in a file that also targets another accelerator
    (an "xpu", "mps", "hpu", "npu" or "xla" device string, `torch.xpu`, `torch.mps`)
    or is written device-generically (`torch.accelerator`, `torch.get_device_module`,
    `torch.Stream` / `torch.Event`), the finding names what made the file so. Elsewhere
    the message says the file targets CUDA only. Either way it is advice (kind
    `advice`): nothing warns or breaks, and a default run does not fail on it.

    Example (for XPU or out-of-tree backends on >= 2.12):
        g = torch.accelerator.Graph(pool=..., capture_error_mode=...)
        with torch.Stream(), g:
            ...

    Fix safety: no automatic fix, by design.

    Validation: `graph_capture` checks whether `torch.accelerator.Graph()` can be
    constructed on your device and compares capture/replay with eager.
    """

    code = "ADV301"
    # Its one look beyond the statement, the generic marker, finds nothing where `needs_whole_module` is False (no
    # generic API, no other device named in the file): the fragments never run otherwise.
    statement_local = True
    name = "device-specific-graph-capture"
    message = _MSG
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "graph_capture"
    triggers = GRAPH_TRIGGERS
    names = {
        "torch.cuda.CUDAGraph": Symbol(_MSG),
        "torch.cuda.graphs.CUDAGraph": Symbol(_MSG),
        "torch.cuda.graph": Symbol(_MSG),
        "torch.cuda.graphs.graph": Symbol(_MSG),
        "torch.cuda.make_graphed_callables": Symbol(_NO_EQUIV),
        "torch.cuda.graphs.make_graphed_callables": Symbol(_NO_EQUIV),
        "torch.cuda.graph_pool_handle": Symbol(_NO_EQUIV),
        "torch.cuda.graphs.graph_pool_handle": Symbol(_NO_EQUIV),
    }

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # The marker is searched in the whole module: where one can be there at all and the text is not known, the
        # module is parsed whole; where it is, every slice keeps each line that may hold one (`kept_lines`).
        return refs.text is None and _may_be_generic(refs)

    @classmethod
    def kept_lines(cls, refs) -> tuple[int, ...]:
        """Every line that may hold a marker, so that the first `_generic_marker` finds in a slice is the one it finds
        in the whole module: a device string, or a word of a generic API or of a name an import binds to one."""
        return refs.lines_naming(_GENERIC_APIS, also=_DEVICE_STRING) if _may_be_generic(refs) else ()

    def _generic_marker(self) -> str | None:
        """What in this file makes it device-generic or multi-accelerator (computed once), or None."""
        if not hasattr(self, "_marker"):
            self._marker = None
            for node in nodes_of(self.ctx.module, cst.SimpleString, cst.Attribute):
                if isinstance(node, cst.SimpleString):
                    if _OTHER_DEVICES.match(node.value):
                        self._marker = node.value
                        break
                elif any(q == api or q.startswith(api + ".") for q in self.qualnames(node) for api in _GENERIC_APIS):
                    self._marker = dotted_name(node)
                    break
        return self._marker

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        message = symbol.message.format(old=qualname)
        marker = self._generic_marker()
        if marker is None:
            message += _CUDA_ONLY
        else:
            message += f" (this file is not CUDA-only: `{marker}`; where it runs on those devices, capture there with `torch.accelerator.Graph`)"
        self.report(node, message, kind=Kind.ADVICE, data={"actionable": marker is not None, "generic_marker": marker})

    valid = [
        "from transformer_engine.pytorch.graph import make_graphed_callables\nm = make_graphed_callables(m, args)",
        "import transformer_engine.pytorch as te\nm = te.make_graphed_callables(m, args)",
        "import torch\ng = torch.accelerator.Graph()",
        "import torch\ngraph = model.graph",
        "def f(torch):\n    return torch.cuda.CUDAGraph()",
    ]
    invalid = [
        Example("import torch\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    y = model(x)\n", count=2),
        Example("from torch.cuda import make_graphed_callables\nm = make_graphed_callables(m, (x,))\n"),
        Example("import torch.cuda as tc\npool = tc.graph_pool_handle()\n"),
        Example(
            "from torch.cuda.graphs import graph as capture\nwith capture(g):\n    pass\n", message="targets CUDA only"
        ),
        Example(
            "import torch\ndev = 'xpu' if torch.xpu.is_available() else 'cuda'\ng = torch.cuda.CUDAGraph()\n",
            message="this file is not CUDA-only",
            line=3,
        ),
    ]
