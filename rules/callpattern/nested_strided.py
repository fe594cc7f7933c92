from __future__ import annotations

from advisor.rule import Example, Rule, Severity, get_arg

from ._shapes import arg

# function -> where `layout` sits positionally (None: keyword-only)
FACTORIES = {"torch.nested.nested_tensor": None, "torch.nested.as_nested_tensor": 3}
JAGGED = ("torch.jagged",)


def _none_or_strided(node) -> bool:
    kind = type(node).__name__
    return (kind == "Constant" and node.value is None) or (kind in ("Name", "Attribute") and "strided" in _last(node))


def _last(node) -> str:
    return node.attr if type(node).__name__ == "Attribute" else node.id


class NestedStrided(Rule):
    """`torch.nested.nested_tensor([...])` without `layout=torch.jagged`: torch warns the strided nested API
    is a prototype that will change.

    What it finds: calls of `torch.nested.nested_tensor` and `torch.nested.as_nested_tensor`
    (through aliases and imports) that pass no `layout=`, `layout=None` or any layout other than
    `torch.jagged` (a layout held in a name is left alone, as are `**kwargs`). Not
    `torch.nested.nested_tensor_from_jagged` (always jagged, silent).

    Why: UserWarning from C++ (NestedTensorImpl.cpp) each time a strided nested tensor is built:
    "The PyTorch API of nested tensors is in prototype stage and will change in the near future.
    We recommend specifying layout=torch.jagged when constructing a nested tensor, as this layout
    receives active development, has better operator coverage, and works with torch.compile."
    (2.6 on; 2.0 to 2.5 said only the first sentence, for every nested tensor).

    Example:
        nt = torch.nested.nested_tensor([a, b])
        # becomes
        nt = torch.nested.nested_tensor([a, b], layout=torch.jagged)

    Fix safety: no automatic fix: a jagged nested tensor may have one ragged dimension only and
    supports another set of operators, so the change must be tested. `layout=torch.jagged`
    needs torch 2.2 or newer (`torch/nested/__init__.py` first handles it in the 2.2.0 wheel, not
    in 2.1.0's).

    Verified: runtime on 2.13: no layout, `layout=None` and `layout=torch.strided` warn,
    `layout=torch.jagged` is silent; the 2.6.0 to 2.15.0 wheels carry the text (strings of the
    binaries), 2.0.0 to 2.5.0 the shorter one. Truth: K-138/*.

    Validation: none.
    """

    code = "ADV138"
    name = "nested-tensor-strided"
    message = (
        "`{name}` without `layout=torch.jagged` warns (UserWarning from C++) that the strided nested tensor API "
        "is a prototype that will change; torch recommends `layout=torch.jagged`"
    )
    severity = Severity.WARNING
    deprecated_in = "2.6"
    triggers = ("nested_tensor", "as_nested_tensor")
    targets = tuple(FACTORIES)
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\nnt = torch.nested.nested_tensor([a, b], layout=torch.jagged)\n",
        "import torch\nnt = torch.nested.as_nested_tensor([a, b], None, None, torch.jagged)\n",
        "import torch\nnt = torch.nested.nested_tensor([a, b], layout=layout)\n",
        "import torch\nnt = torch.nested.nested_tensor_from_jagged(v, offsets)\n",
        "import torch\nnt = torch.nested.nested_tensor(ts, **kw)\n",
    ]
    invalid = [
        Example(
            "import torch\nnt = torch.nested.nested_tensor([a, b])\n", message="`torch.nested.nested_tensor`", line=2
        ),
        Example(
            "import torch\nfrom torch.nested import as_nested_tensor\nnt = as_nested_tensor(ts, layout=torch.strided)\n"
        ),
        Example("import torch\nnt = torch.nested.nested_tensor([a, b], layout=None)\n"),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where a call of that name passes no layout, `None` or a `strided` one."""
        if not super().may_match(refs):
            return False
        if not refs.renamed.isdisjoint(FACTORIES):
            return True
        for name, position in FACTORIES.items():
            for call in refs.calls.get(name.rpartition(".")[2], ()):
                if any(k.arg is None for k in call.keywords):
                    continue
                layout = arg(call, "layout", position)
                if layout is None or _none_or_strided(layout):
                    return True
        return False

    def visit_Call(self, node) -> None:
        name = self.match(node.func, FACTORIES)
        if name is None or any(a.star == "**" for a in node.args):
            return
        layout = get_arg(node, "layout", FACTORIES[name])
        if layout is not None:
            value = layout.value
            if self.match(value, JAGGED) is not None:
                return
            if not (self.match(value, ("torch.strided",)) or getattr(value, "value", None) == "None"):
                return  # a layout held in a name: unknown
        self.report(node, self.message.format(name=name))
