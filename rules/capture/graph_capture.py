from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule

GRAPH_TRIGGERS = ("CUDAGraph", "make_graphed_callables", "graph_pool_handle", "graph")

_MSG = (
    "`{old}` is CUDA-specific capture; torch 2.12 adds the device-agnostic `torch.accelerator.Graph` "
    "for XPU and out-of-tree backends, but its CUDA support is unverified: keep this on CUDA"
)
_NO_EQUIV = (
    "`{old}` has no `torch.accelerator` equivalent in 2.12; keep it on CUDA "
    "(`torch.accelerator.Graph` is for XPU and out-of-tree backends, CUDA support unverified)"
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

    Example (for XPU or out-of-tree backends on >= 2.12):
        g = torch.accelerator.Graph(pool=..., capture_error_mode=...)
        with torch.Stream(), g:
            ...

    Fix safety: no automatic fix, by design.

    Validation: `graph_capture` checks whether `torch.accelerator.Graph()` can be
    constructed on your device and compares capture/replay with eager.
    """

    code = "ADV301"
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
        Example("from torch.cuda.graphs import graph as capture\nwith capture(g):\n    pass\n"),
    ]
