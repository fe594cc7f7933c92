from __future__ import annotations

from advisor.rule import Example, Rule, Severity, cst, get_arg, keyword_calls, string_value

from ._receivers import Receivers
from ._shapes import number

FUNCTIONS = ("torch.scatter",)
METHODS = ("scatter", "scatter_")
NEW = {"add": "sum", "multiply": "prod"}


def _number(node) -> bool:
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def _number_ast(node) -> bool:
    """`_number` on the `ast` node."""
    return number(node.operand if type(node).__name__ == "UnaryOp" else node)


class ScatterReduceArgument(Rule):
    """`x.scatter_(dim, index, src, reduce="add")` with a tensor `src`: the `reduce=` argument is deprecated.

    What it finds: `torch.scatter(input, dim, index, src, reduce=...)` (through aliases) and the
    methods `.scatter(dim, index, src, reduce=...)` / `.scatter_(...)` that pass `reduce=` with a
    source that is not a number literal (`src` positional or `src=`). Left alone: the scalar form
    (a number literal, or `value=`), which is not deprecated (silent on 2.13); calls without
    `reduce=`; `**kwargs`; functions of other modules (`torch_scatter.scatter(src, index, dim,
    reduce="sum")`).

    Why: UserWarning from C++ (TensorAdvancedIndexing.cpp, once per process): "The reduce argument
    of torch.scatter with Tensor src is deprecated and will be removed in a future PyTorch release.
    Use torch.scatter_reduce instead for more reduction options."

    Example:
        x.scatter_(0, index, src, reduce="add")
        # becomes
        x.scatter_reduce_(0, index, src, reduce="sum")   # "multiply" becomes "prod"

    Fix safety: no automatic fix: `scatter_reduce_(..., reduce="sum")` (include_self defaults to
    True) gives the same values on 2.13, but it may add the terms in another order (last-bit float
    differences) and has its own autograd, so the change is yours to test. A source held in a name
    may be a Python number (the scalar form, silent): such a call is reported; `scatter_reduce`
    exists in every torch 2.x.

    Verified: both pieces of the text are in `libtorch_cpu` of the 2.0.0 to 2.15.0 wheels (strings
    of the binaries); runtime on 2.13: the function and both methods warn with a tensor source, the
    scalar form is silent, and `scatter_reduce_(..., "sum")` gives the same values. Truth: K-135/*.

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV135"
    name = "scatter-reduce-argument"
    message = (
        '`{name}(..., reduce="{how}")` with a tensor source is deprecated (UserWarning from C++): '
        'use `{new}(..., reduce="{to}")`'
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    triggers = ("reduce",)
    targets = FUNCTIONS
    may_match_refers = True  # its may_match asks Rule.may_match first
    attribute_targets = METHODS

    valid = [
        "import torch\nx.scatter_(0, i, src)\n",
        "import torch\nx.scatter_(0, i, 1.0, reduce='add')\n",
        "import torch\ny = x.scatter(0, i, value=2, reduce='multiply')\n",
        "import torch\nx.scatter_reduce_(0, i, src, reduce='sum')\n",
        "import torch\nimport torch_scatter\ny = torch_scatter.scatter(src, i, 0, reduce='sum')\n",
        "import torch\nfrom torch_scatter import scatter\ny = scatter(src, i, dim=0, reduce='mean')\n",
        "import torch\ny = x.scatter(0, i, src, **kw)\n",
        "import torch\nF = torch\ny = F.scatter(x, 0, i, 2.0, reduce='add')\n",
    ]
    invalid = [
        Example(
            "import torch\nx.scatter_(0, i, src, reduce='add')\n",
            message='use `scatter_reduce_(..., reduce="sum")`',
            line=2,
            column=1,
        ),
        Example("import torch\ny = torch.scatter(x, 1, i, src=s, reduce='multiply')\n", message='reduce="prod"'),
        Example("import torch\ny = t.scatter(0, i, torch.ones(3), reduce=mode)\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A reference to `scatter` (Rule.may_match), and, besides, a `scatter(`/`scatter_(` call that may pass `reduce=`
        return cls.text_gate_with(*keyword_calls("scatter", "reduce", True, "_?"))

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where a call of that name passes `reduce=` and a source that may be a tensor (`reduce` is in
        most files of torch's own code)."""
        if not super().may_match(refs):
            return False
        calls = refs.calls_of(FUNCTIONS + tuple(f"torch.{m}" for m in METHODS))
        for call in calls:
            if not any(k.arg == "reduce" for k in call.keywords) or any(k.arg is None for k in call.keywords):
                continue
            sources = [k.value for k in call.keywords if k.arg == "src"] + call.args[2:4]
            if any(not _number_ast(s) for s in sources):
                return True
        return False

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._receivers = Receivers(self.qualnames)

    def visit_Assign(self, node) -> None:
        self._receivers.assign(node)

    def visit_Call(self, node) -> None:
        func = node.func
        reduce = get_arg(node, "reduce")
        if reduce is None or any(a.star == "**" for a in node.args):
            return
        if self.match(func, FUNCTIONS) is not None:
            name, source = "torch.scatter", get_arg(node, "src", 3)
        elif isinstance(func, cst.Attribute) and func.attr.value in METHODS:
            if self._receivers.is_module(func.value):
                return  # a module's function: `torch_scatter.scatter`
            name, source = func.attr.value, get_arg(node, "src", 2)
        else:
            return
        if source is None or _number(source.value):
            return
        how = string_value(reduce.value)
        new = "torch.scatter_reduce" if name == "torch.scatter" else name.replace("scatter", "scatter_reduce")
        to = NEW.get(how or "", 'sum"` for "add", `"prod')
        self.report(node, self.message.format(name=name, how=how or "...", new=new, to=to))
