from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst

GRAPHS = ("torch.cuda.CUDAGraph", "torch.cuda.graph", "torch.cuda.graphs")


class CudaGraphRegisterGeneratorState(Rule):
    """`CUDAGraph.register_generator_state()` is a deprecated no-op in 2.14 and 2.15.

    What it finds: `.register_generator_state(...)` calls in files that refer
    to `torch.cuda.CUDAGraph`, `torch.cuda.graph` or `torch.cuda.graphs`
    (through any alias). The method name is torch-specific.

    Why: the 2.14 and 2.15 CUDA builds carry the text "It is now a no-op and
    can be safely removed from your code" (binary and stub evidence, CUDA builds
    only: tests/truth D14-12/register_generator_state). The first release that
    carries it is unverified (no 2.13 CUDA wheel was examined), and whether the
    C++ warning reaches Python `warnings` needs a GPU to check.

    Example:
        g.register_generator_state(gen)
        # becomes: (delete the call)

    Fix safety: no automatic fix (on older torch the call may still matter).

    Validation: none.
    """

    code = "ADV756"
    name = "cudagraph-register-generator-state"
    message = (
        "`CUDAGraph.register_generator_state()` is deprecated and a no-op in 2.14 and 2.15 (torch: 'It is now a "
        "no-op and can be safely removed from your code'); delete the call"
    )
    severity = Severity.INFO
    deprecated_in = "2.14"
    fix = Applicability.NONE
    triggers = ("register_generator_state",)
    attribute_targets = ("register_generator_state",)
    valid = [
        "import torch\ng = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    pass\n",
        "sim.register_generator_state(gen)\n",
    ]
    invalid = [
        Example(
            "import torch\ng = torch.cuda.CUDAGraph()\ng.register_generator_state(gen)\n",
            line=3,
            column=1,
            target="2.14",
        ),
    ]

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # Whether the file refers to the graph API anywhere is read from the whole module; where the text is known,
        # every slice keeps each line that may (`kept_lines`) instead, so each slice finds it as the module does.
        return refs.text is None

    @classmethod
    def kept_lines(cls, refs) -> tuple[int, ...]:
        if not refs.refers_to_any(GRAPHS):  # `ast`'s superset: no such reference anywhere
            return ()
        return refs.lines_writing("CUDAGraph", "graph", "graphs")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._calls: list = []
        self._graphs = False

    def visit_Attribute(self, node) -> None:
        if not self._graphs and self.match(node, GRAPHS):
            self._graphs = True

    def visit_Call(self, node) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "register_generator_state":
            self._calls.append(node)

    def leave_Module(self, node) -> None:
        if self._graphs:
            for call in self._calls:
                self.report(call)
