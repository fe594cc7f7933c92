from __future__ import annotations

import re

from advisor.rule import CODE_ONLY, TEXT_GAP, TEXT_GAPS, Applicability, Example, Rule, Severity, cst

ORDER = (
    "destination",
    "prefix",
    "keep_vars",
)  # `Module.state_dict(*args, destination=None, prefix="", keep_vars=False)`
# Receivers that are data pipelines, not modules (a stateful dataset or loader has its own `state_dict`).
_DATA = re.compile(r"(data|dataset|loader|sampler|iterator|datamodule|pipe)s?$", re.I)


class StateDictPositional(Rule):
    """`module.state_dict(destination, prefix, keep_vars)` passed positionally is deprecated: pass them by name.

    What it finds: calls of a `.state_dict(...)` method with positional arguments
    (one to three, no `*args`) in files that import torch, unless the receiver is a
    module or an imported object. Optimizers and schedulers take no arguments, so a
    positional one means `nn.Module.state_dict`. Not reported: positional forwarding
    inside an override (`def state_dict(self, destination, prefix, keep_vars)` calling
    `self.inner.state_dict(destination, prefix, keep_vars)`: the callee overrides it
    too, and nothing warns; `super().state_dict(...)` there is still reported, it is
    `nn.Module`'s), and receivers named like data pipelines (`dataset`, `train_loader`,
    `sampler`, ...), whose `state_dict` is their own.

    Why: `nn.Module.state_dict` warns when given positional arguments: "Positional args
    are being deprecated, use kwargs instead. Refer to
    https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict
    for details." (a UserWarning in 2.0-2.3, `2.0.0 nn/modules/module.py:1802`; a
    FutureWarning from 2.4, `2.4.0 nn/modules/module.py:1912-1916`), and reads them as
    `destination, prefix, keep_vars`.

    Example:
        sd = model.state_dict(None, "encoder.")
        # becomes (with --unsafe-fixes)
        sd = model.state_dict(destination=None, prefix="encoder.")

    Fix safety: unsafe: for an `nn.Module` the keywords are exactly what the positions
    meant (`destination`, `prefix`, `keep_vars`, keyword-only in every 2.x), but the
    receiver's type cannot be known statically and another class's `state_dict` may
    take other parameters.

    Verified: torch/nn/modules/module.py of the 2.0.0, 2.5.0, 2.13.0 and 2.15.0 wheels.
    Truth: K-796/state_dict-positional.

    Validation: none.
    """

    code = "ADV796"
    name = "state-dict-positional"
    message = (
        "positional arguments to `Module.state_dict` are deprecated (UserWarning in 2.0-2.3, FutureWarning from "
        "2.4); pass `destination=`, "
        "`prefix=`, `keep_vars=` by name"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.UNSAFE
    triggers = ("state_dict",)
    attribute_targets = ("state_dict",)

    valid = [
        "import torch\nsd = model.state_dict(prefix='a.')\n",
        "import torch\nsd = opt.state_dict()\n",
        "sd = model.state_dict(None, 'a.')\n",  # no torch here
        "import torch\nimport flax.serialization as fs\nsd = fs.state_dict(None, 'a.')\n",
        # forwarding inside an override, to a submodule that overrides it too
        "import torch\nclass Wrapper(torch.nn.Module):\n"
        "    def state_dict(self, destination=None, prefix='', keep_vars=False):\n"
        "        return self.inner.state_dict(destination, prefix, keep_vars)\n",
        "import torch\nstate = self.train_dataset.state_dict(epoch)\n",  # a stateful dataset's own method
    ]
    invalid = [
        Example(
            "import torch\nsd = model.state_dict(None, 'enc.')\n",
            fixed="import torch\nsd = model.state_dict(destination=None, prefix='enc.')\n",
            message="positional arguments to `Module.state_dict`",
            line=2,
            column=6,
        ),
        Example(
            "import torch\nsd = self.encoder.state_dict(dest, 'enc.', True)\n",
            fixed="import torch\nsd = self.encoder.state_dict(destination=dest, prefix='enc.', keep_vars=True)\n",
        ),
        Example(  # `nn.Module.state_dict` itself, from an override: it warns
            "import torch\nclass M(torch.nn.Module):\n    def state_dict(self, destination=None, prefix='', keep_vars=False):\n"
            "        return super().state_dict(destination, prefix, keep_vars)\n",
            message="positional arguments",
        ),
    ]

    whole_module = False  # `visit_Module` only resets the counter below: each statement is judged alone

    @classmethod
    def text_gate(cls):
        # `.state_dict(` given something (a comment after the parenthesis counts as something): `calls` has it by
        # the attribute's name, comments may come between the dot, the name and the parenthesis
        gap = TEXT_GAPS
        return (), (), (rf"{CODE_ONLY}\.{gap}state_dict{gap}\({TEXT_GAP}*[^)\s\\]",), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # `.state_dict()` is everywhere; one given one to three positional arguments is rare.
        return any(
            type(c.func).__name__ == "Attribute"
            and 1 <= len(c.args) <= len(ORDER)
            and not any(type(a).__name__ == "Starred" for a in c.args)
            and all(k.arg is not None for k in c.keywords)
            for c in refs.calls.get("state_dict", ())
        )

    def visit_Module(self, node) -> None:
        self._overrides = 0  # inside `def state_dict(...)`

    def visit_FunctionDef(self, node) -> None:
        self._overrides += node.name.value == "state_dict"

    def leave_FunctionDef(self, node) -> None:
        self._overrides -= node.name.value == "state_dict"

    def visit_Call(self, node) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "state_dict"):
            return
        positional = [a for a in node.args if a.keyword is None]
        if not positional or len(positional) > len(ORDER) or any(a.star for a in node.args):
            return
        receiver = func.value
        is_super = isinstance(receiver, cst.Call) and getattr(receiver.func, "value", None) == "super"
        if self._overrides and not is_super:
            return  # forwarding to a callee that overrides `state_dict` too
        last = (
            receiver.value if isinstance(receiver, cst.Name) else getattr(getattr(receiver, "attr", None), "value", "")
        )
        if _DATA.search(last or ""):
            return
        if isinstance(receiver, (cst.Name, cst.Attribute)) and any(
            not q.startswith("<") for q in self.qualnames(receiver)
        ):
            return  # a module or an imported object: not a torch Module instance
        if not self.imports_torch():
            return
        args = list(node.args)
        for i, arg in enumerate(positional):
            args[args.index(arg)] = arg.with_changes(
                keyword=cst.Name(ORDER[i]),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            )
        self.report(node, replacement=node.with_changes(args=args))
