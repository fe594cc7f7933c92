from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, cst

from ..compile._compiled import CompiledFunctions
from .graph_capture import GRAPH_TRIGGERS

CAPTURE = {"torch.cuda.graph", "torch.cuda.graphs.graph"}
SYNC_METHODS = ("item", "tolist", "cpu", "numpy")


class HostSyncInCapture(CompiledFunctions):
    """A host sync decides Python control flow inside a captured region; `torch.cond` can keep it on the GPU.

    What it finds: `.item()`, `.tolist()`, `.cpu()`, `.numpy()` or `bool(t)` in
    the condition of an `if`, `while` or conditional expression, inside a
    `with torch.cuda.graph(...)` block or inside a function compiled with
    `torch.compile(mode="reduce-overhead")` (decorated, or passed to
    `torch.compile` by name in the same module).

    Why: a host sync cannot be captured in a CUDA graph, and a Python branch is
    frozen at capture time. torch 2.12 can capture `torch.cond` as CUDA graph
    conditional nodes (CUDA >= 12.4) under `torch.compile(mode="reduce-overhead")`
    (cudagraph trees), so the branch can stay on the GPU. `torch.cond` is still
    a prototype; the predicate must be a CUDA bool tensor; plain eager capture
    support is unverified, and inductor support was not claimed by the PR.

    Example:
        if (x.sum() > 0).item():
            y = f(x)
        else:
            y = g(x)
        # becomes
        y = torch.cond(x.sum() > 0, f, g, (x,))

    Fix safety: no automatic fix: both branches must return matching
    tensors, and side effects are not allowed in `torch.cond` branches.

    Validation: `cond_capture` compares `torch.cond` under reduce-overhead with
    eager for both predicate values (CUDA >= 12.4).
    """

    code = "ADV303"
    name = "host-sync-in-capture"
    message = "host sync `{sync}` decides Python control flow in a captured region; in torch 2.12 (CUDA >= 12.4) `torch.cond` can keep the branch on the GPU"
    severity = Severity.WARNING
    since = "2.12"
    fix = Applicability.NONE
    validation = "cond_capture"
    triggers = GRAPH_TRIGGERS + ("reduce-overhead",)
    targets = (*CAPTURE, "torch.compile")
    may_match_refers = True  # a capture or torch.compile, referred to: Rule.may_match

    @classmethod
    def text_gate(cls):
        # Rule.may_match's gate (a capture or torch.compile referred to), and, besides, the string "reduce-overhead"
        # (which a torch.compile needs here) or the word `graph` (which a capture's reference holds, a getattr's in
        # quotes)
        overhead = r"reduce-overhead(?<=[\"']reduce-overhead)[\"']"
        return cls.text_gate_with(overhead, r"graph(?<=\bgraph)\b")

    @classmethod
    def may_match(cls, refs) -> bool:
        # Capture blocks (named, not in a string), or compiled code that asks for CUDA graphs; and a host sync in
        # some test (asked last: the tests' identifiers are gathered by walking them).
        if not refs.refers_to_any(CAPTURE, strings=False) and not (
            refs.refers_to_any(("torch.compile",)) and "reduce-overhead" in refs.strings
        ):
            return False
        return not refs.guard_identifiers.isdisjoint((*SYNC_METHODS, "bool"))

    valid = [
        "import torch\nif x.item() > 0:\n    pass",
        "import torch\nwith torch.cuda.graph(g):\n    y = x * 2\n",
        "import torch\n@torch.compile\ndef f(x):\n    if x.item():\n        return x\n",
        "import torch\n@torch.compile(mode='reduce-overhead')\ndef f(x):\n    n = len(x)\n    return x\n",
    ]
    invalid = [
        Example("import torch\nwith torch.cuda.graph(g):\n    if x.sum().item() > 0:\n        y = x\n"),
        Example(
            "import torch\n@torch.compile(mode='reduce-overhead')\ndef step(x):\n    while bool(x.max() > 1):\n        x = x / 2\n    return x\n"
        ),
        Example(
            "import torch\ndef step(x):\n    return x if x.cpu().numpy().any() else -x\nfast = torch.compile(step, mode='reduce-overhead')\n"
        ),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._capture = 0
        self._in_test = 0

    def visit_FunctionDef(self, node) -> None:
        self.enter_function(node)

    def leave_FunctionDef(self, node) -> None:
        self.leave_function()

    def _is_capture(self, node) -> bool:
        return any(isinstance(it.item, cst.Call) and self.match(it.item.func, CAPTURE) for it in node.items)

    def visit_With(self, node) -> None:
        if self._is_capture(node):
            self._capture += 1

    def leave_With(self, node) -> None:
        if self._is_capture(node):
            self._capture -= 1

    def _enter_test(self, node) -> None:
        self._in_test += 1

    def _leave_test(self, node) -> None:
        self._in_test -= 1

    visit_If_test = visit_While_test = visit_IfExp_test = _enter_test
    leave_If_test = leave_While_test = leave_IfExp_test = _leave_test

    def _sync_name(self, node) -> str | None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in SYNC_METHODS and not node.args:
            return f".{func.attr.value}()"
        if isinstance(func, cst.Name) and func.value == "bool" and not self.qualnames(func) and len(node.args) == 1:
            return "bool(...)"
        return None

    def visit_Call(self, node) -> None:
        self.note_compile_call(node)
        if not self._in_test:
            return
        sync = self._sync_name(node)
        if sync is None:
            return
        if self._capture:
            self.report(node, self.message.format(sync=sync))
        else:
            self.defer(node, sync)

    def leave_Module(self, node) -> None:
        for call, sync in self.deferred_in_compiled("reduce-overhead"):
            self.report(call, self.message.format(sync=sync))
