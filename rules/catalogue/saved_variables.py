from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst

# The bases that make a class a custom autograd function (`Function` is re-exported by torch.autograd).
_FUNCTIONS = ("torch.autograd.Function", "torch.autograd.function.Function", "torch.autograd.function.InplaceFunction")


class SavedVariables(Rule):
    """`ctx.saved_variables` in a custom autograd function is deprecated: use `ctx.saved_tensors`.

    What it finds: `<ctx>.saved_variables`, where `<ctx>` is the first parameter of a method
    defined directly in a subclass of `torch.autograd.Function` (however imported). The same
    attribute on anything else, such as another library's context object, is not matched.

    Why: reading it warns DeprecationWarning "'saved_variables' is deprecated; use
    'saved_tensors'" (torch/csrc/autograd/python_function.cpp, in every release from 2.0 to
    2.15); `saved_tensors` returns the same tuple and exists in every 2.x release.

    Example:
        class Double(torch.autograd.Function):
            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_variables
        # becomes
                (x,) = ctx.saved_tensors

    Fix safety: safe: the same tuple, from every torch this catalogue covers.
    Verified: torch 2.13.0 CPU at run time, and the message in libtorch_python of the 2.0.0 and
    2.15.0 wheels. Truth: K-797/saved-variables.
    Validation: none.
    """

    code = "ADV797"
    name = "saved-variables"
    message = "`ctx.saved_variables` is deprecated (DeprecationWarning); use `ctx.saved_tensors`"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = ("saved_variables",)

    valid = [
        "import torch\nclass F(torch.autograd.Function):\n"
        "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n",
        # another library's context object with the same attribute name
        "import torch\nclass Step:\n    def backward(self, ctx):\n        return ctx.saved_variables\n",
        # not the method's own context parameter
        "import torch\nclass F(torch.autograd.Function):\n"
        "    @staticmethod\n    def backward(ctx, g):\n        return other.saved_variables\n",
        # a plain class: no autograd Function
        "import torch\nclass F(torch.nn.Module):\n    def forward(ctx, g):\n        return ctx.saved_variables\n",
    ]
    invalid = [
        Example(
            "import torch\nclass F(torch.autograd.Function):\n"
            "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_variables\n        return g * x\n",
            fixed="import torch\nclass F(torch.autograd.Function):\n"
            "    @staticmethod\n    def backward(ctx, g):\n        (x,) = ctx.saved_tensors\n        return g * x\n",
            message="saved_tensors",
            line=5,
            column=16,
        ),
        Example(
            "from torch.autograd import Function as AF\nclass F(AF):\n"
            "    @staticmethod\n    def backward(c, g):\n        return c.saved_variables[0] * g\n",
            fixed="from torch.autograd import Function as AF\nclass F(AF):\n"
            "    @staticmethod\n    def backward(c, g):\n        return c.saved_tensors[0] * g\n",
        ),
        # a Function defined inside a function (a factory)
        Example(
            "import torch\ndef make():\n    class F(torch.autograd.function.Function):\n"
            "        @staticmethod\n        def backward(ctx, g):\n            return ctx.saved_variables\n    return F\n"
        ),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Enclosing scopes, innermost last: ("class", is an autograd Function) or ("def", its ctx parameter or None).
        self._scopes: list[tuple[str, object]] = []

    def visit_ClassDef(self, node) -> None:
        self._scopes.append(("class", any(self.match(b.value, _FUNCTIONS) for b in node.bases)))

    def leave_ClassDef(self, node) -> None:
        self._scopes.pop()

    def visit_FunctionDef(self, node) -> None:
        params = node.params.params
        in_function_class = bool(self._scopes) and self._scopes[-1] == ("class", True)  # a method, not a nested def
        self._scopes.append(("def", params[0].name.value if in_function_class and params else None))

    def leave_FunctionDef(self, node) -> None:
        self._scopes.pop()

    def visit_Attribute(self, node) -> None:
        if node.attr.value != "saved_variables" or not isinstance(node.value, cst.Name):
            return
        ctx = next((value for kind, value in reversed(self._scopes) if kind == "def"), None)
        if ctx is not None and node.value.value == ctx:
            self.report(node, replacement=node.attr.with_changes(value="saved_tensors"), fix_node=node.attr)
