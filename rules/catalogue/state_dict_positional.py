from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, cst

ORDER = (
    "destination",
    "prefix",
    "keep_vars",
)  # `Module.state_dict(*args, destination=None, prefix="", keep_vars=False)`


class StateDictPositional(Rule):
    """`module.state_dict(destination, prefix, keep_vars)` passed positionally is deprecated: pass them by name.

    What it finds: calls of a `.state_dict(...)` method with positional arguments
    (one to three, no `*args`) in files that import torch, unless the receiver is a
    module or an imported object. Optimizers and schedulers take no arguments, so a
    positional one means `nn.Module.state_dict`.

    Why: `nn.Module.state_dict` warns when given positional arguments: "Positional args
    are being deprecated, use kwargs instead. Refer to
    https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict
    for details." (UserWarning in 2.0, FutureWarning in 2.5 and later), and reads them
    as `destination, prefix, keep_vars`.

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
        "positional arguments to `Module.state_dict` are deprecated (FutureWarning); pass `destination=`, "
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
    ]

    def visit_Call(self, node) -> None:
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "state_dict"):
            return
        positional = [a for a in node.args if a.keyword is None]
        if not positional or len(positional) > len(ORDER) or any(a.star for a in node.args):
            return
        receiver = func.value
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
