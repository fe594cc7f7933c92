from __future__ import annotations

from advisor.rule import CODE_ONLY, TEXT_GAP, Applicability, Example, Rule, Severity, cst


class TorchFunctionPlainMethod(Rule):
    """A `__torch_function__` defined as a plain method (not a classmethod) is deprecated.

    What it finds: a `def __torch_function__` directly in the body of a Tensor
    subclass (a base that is `torch.Tensor` / `nn.Parameter` or named like a tensor or
    parameter class), with no `@classmethod` or `@staticmethod` decorator, in a file
    that imports torch. `TorchFunctionMode` subclasses are not matched: a mode's
    `__torch_function__` is an instance method by design.

    Why: `torch.overrides.handle_torch_function` warns DeprecationWarning when it
    finds one bound to the instance: "Defining your `__torch_function__ as a plain method
    is deprecated and will be an error in future, please define it as a classmethod."
    (in every wheel from 2.0.0 to 2.15.0). A real case: Megatron's `nn.Parameter`
    subclasses.

    Example:
        class MyTensor(torch.Tensor):
            def __torch_function__(self, func, types, args=(), kwargs=None): ...
        # becomes (with --unsafe-fixes)
        class MyTensor(torch.Tensor):
            @classmethod
            def __torch_function__(self, func, types, args=(), kwargs=None): ...

    Fix safety: unsafe: the method then receives the class, not the instance, as its
    first argument; a body that reads instance attributes through it changes
    behaviour (torch passes the instance among `args` anyway).

    Verified: torch/overrides.py of the 2.0.0, 2.13.0 and 2.15.0 wheels. Truth:
    K-795/plain-method.

    Validation: none.
    """

    code = "ADV795"
    name = "torch-function-plain-method"
    message = (
        '`__torch_function__` defined as a plain method is deprecated (DeprecationWarning: "will be an error '
        'in future"); make it a `@classmethod`'
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("__torch_function__",)

    @classmethod
    def text_gate(cls):
        # a `def __torch_function__`, not right below `@classmethod` or `@staticmethod` at a common indentation (each
        # a look back of its own width, after the literal `def`, which is looked for at C speed)
        behind = "".join(
            rf"(?<!@{name}{newline}{indent}def)"
            for name in ("classmethod", "staticmethod")
            for newline in (r"\n", r"\r\n")
            for indent in ("", " " * 4, " " * 8, " " * 12, r"\t", r"\t\t", r"\t\t\t")
        )
        return (), (), (rf"{CODE_ONLY}def{behind}{TEXT_GAP}+__torch_function__\b",), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # Most `__torch_function__` definitions are classmethods already, and torch's own plain ones are in modes
        # and nested helpers: a plain one directly in a class with a base named like a tensor or parameter class.
        if not any(_plain(f) for f in refs.defs.get("__torch_function__", ())):
            return False
        return any(any(_plain(s) for s in c.body) and any(_tensor_like(refs, b) for b in c.bases) for c in refs.classes)

    valid = [
        "import torch\nclass T(torch.Tensor):\n    @classmethod\n    def __torch_function__(cls, func, types, args=(), kwargs=None):\n        pass\n",
        "class T:\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n",  # no torch here
        "import torch\ndef __torch_function__(func, types, args=(), kwargs=None):\n    pass\n",
        "import torch\nfrom torch.overrides import TorchFunctionMode\nclass M(TorchFunctionMode):\n"
        "    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n",
        "import torch\ndef make():\n    class P(torch.nn.Parameter):\n        @staticmethod\n"
        "        def __torch_function__(func, types, args=(), kwargs=None):\n            pass\n",
    ]
    invalid = [
        Example(
            "import torch\nclass T(torch.Tensor):\n    @classmethod  # below: another\n    def f(cls):\n        pass\n\n"
            "    @deprecated('use U')\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n"
            "        pass\n"
        ),
        Example(
            "import torch\nclass T(torch.Tensor):\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n",
            fixed="import torch\nclass T(torch.Tensor):\n    @classmethod\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n",
            message="plain method",
            line=3,
            column=5,
        ),
        Example(
            "import torch.nn as nn\nclass P(nn.Parameter):\n    def __torch_function__(self, func, types, args=(), kwargs=None):\n        pass\n"
        ),
    ]

    def visit_ClassDef(self, node) -> None:
        if not self.imports_torch() or not self._tensor_subclass(node):
            return
        for stmt in node.body.body:
            if not (isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__torch_function__"):
                continue
            names = {d.decorator.value for d in stmt.decorators if isinstance(d.decorator, cst.Name)}
            if names & {"classmethod", "staticmethod"}:
                continue
            fixed = stmt.with_changes(decorators=[cst.Decorator(cst.Name("classmethod")), *stmt.decorators])
            self.report(stmt, replacement=fixed)

    def _tensor_subclass(self, node) -> bool:
        """A base is torch.Tensor / nn.Parameter, or named like a tensor class; never a mode
        (`TorchFunctionMode.__torch_function__` is an instance method by design)."""
        names = []
        for base in node.bases:
            value = base.value
            names += (
                [q.rpartition(".")[2] for q in self.qualnames(value)]
                if isinstance(value, (cst.Name, cst.Attribute))
                else []
            )
            if isinstance(value, (cst.Name, cst.Attribute)):
                names.append(value.value if isinstance(value, cst.Name) else value.attr.value)
        if any(n.endswith("Mode") for n in names):
            return False
        return any("Tensor" in n or "Parameter" in n for n in names)


def _plain(stmt) -> bool:
    """An `ast` statement: a `def __torch_function__` without `@classmethod` or `@staticmethod`."""
    return (
        type(stmt).__name__ in ("FunctionDef", "AsyncFunctionDef")
        and stmt.name == "__torch_function__"
        and not any(type(d).__name__ == "Name" and d.id in ("classmethod", "staticmethod") for d in stmt.decorator_list)
    )


def _tensor_like(refs, base) -> bool:
    """An `ast` base some name of which (as written, or what an import binds it to) names a tensor or parameter."""
    if type(base).__name__ == "Starred":  # `class T(*bases)`: the visitor reads the name after the star
        base = base.value
    bound = refs.resolve(base)
    if bound is None:  # not a dotted name: the visitor reads no name from it
        return False
    names = {q.rpartition(".")[2] for q in bound} | {getattr(base, "attr", None) or getattr(base, "id", "")}
    return any("Tensor" in n or "Parameter" in n for n in names)
