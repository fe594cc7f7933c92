from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst

GRAPH = {"torch.accelerator.Graph", "torch.accelerator.graphs.Graph"}


class AcceleratorGraphAsTarget(Rule):
    """`with torch.accelerator.Graph(...) as g:` binds `g = None`.

    What it finds: a `with` item that constructs `torch.accelerator.Graph` and
    binds it with `as`.

    Why: `torch.accelerator.Graph.__enter__` (2.12, torch/accelerator/graphs.py)
    synchronizes, empties caches and calls `capture_begin()`, but returns None.
    So `g` is None, and the later `g.replay()` raises AttributeError. Unlike
    `torch.cuda.graph(g)`, the Graph object is itself the context manager, and
    capture happens on the current stream.

    Example:
        with torch.accelerator.Graph() as g:
            y = model(x)
        # becomes
        g = torch.accelerator.Graph()
        with g:
            y = model(x)

    Fix safety: safe. The object is created just before the `with` instead of
    inside it; `__enter__` runs at the same point as before.

    Validation: `graph_capture`.
    """

    code = "ADV302"
    name = "accelerator-graph-as-target"
    message = "`torch.accelerator.Graph.__enter__` returns None, so `{name}` is None here; create the graph first and use it as the context manager"
    severity = Severity.ERROR
    since = "2.12"
    fix = Applicability.SAFE
    validation = "graph_capture"
    triggers = ("accelerator",)
    targets = tuple(GRAPH)

    valid = [
        "import torch\ng = torch.accelerator.Graph()\nwith torch.Stream(), g:\n    pass",
        "import torch\nwith torch.cuda.graph(g) as ctx:\n    pass",
        "import torch\nwith torch.accelerator.Graph():\n    pass",
    ]
    invalid = [
        Example(
            "import torch\n\n# capture\nwith torch.accelerator.Graph(keep_graph=True) as g:\n    y = model(x)\ng.replay()\n",
            fixed="import torch\n\n# capture\ng = torch.accelerator.Graph(keep_graph=True)\nwith g:\n    y = model(x)\ng.replay()\n",
        ),
        Example(
            "from torch.accelerator import Graph\ndef f(s):\n    with s, Graph() as graph:\n        pass\n",
            fixed="from torch.accelerator import Graph\ndef f(s):\n    graph = Graph()\n    with s, graph:\n        pass\n",
        ),
    ]

    def visit_With(self, node) -> None:
        for item in node.items:
            call = item.item
            if item.asname is None or not isinstance(call, cst.Call) or self.match(call.func, GRAPH) is None:
                continue
            target = item.asname.name
            name = self.ctx.code_for(target)
            replacement = None
            if isinstance(target, cst.Name):
                assign = cst.SimpleStatementLine(
                    body=[cst.Assign(targets=[cst.AssignTarget(target=target)], value=call)],
                    leading_lines=node.leading_lines,
                )
                items = [
                    it.with_changes(item=cst.Name(target.value), asname=None) if it is item else it for it in node.items
                ]
                new_with = node.with_changes(items=items, leading_lines=[])
                replacement = cst.FlattenSentinel([assign, new_with])
            self.report(item, self.message.format(name=name), replacement=replacement, fix_node=node)
