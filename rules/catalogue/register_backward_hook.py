from __future__ import annotations

from advisor.rule import Applicability, Example, Kind, Rule, Severity, cst, rewrite_reference

GLOBAL = {
    "torch.nn.modules.module.register_module_backward_hook": "torch.nn.modules.module.register_module_full_backward_hook"
}


class RegisterBackwardHook(Rule):
    """`Module.register_backward_hook(hook)` is deprecated: `register_full_backward_hook` (semantics differ).

    What it finds: calls of a `.register_backward_hook(...)` method in files that
    import torch (unless the receiver is a module or an imported object), and the
    global `torch.nn.modules.module.register_module_backward_hook`.

    Why: documented as "deprecated in favor of register_full_backward_hook ... the
    behavior of this function will change in future versions". Registering does not
    warn; the forward pass does (a UserWarning in 2.0-2.3, `2.0.0 nn/modules/module.py:1309-1344`,
    no category; a FutureWarning from 2.4), when the hook would be wrong: "Using a
    non-full backward hook when the forward contains multiple autograd Nodes is
    deprecated and will be removed in future versions. This hook will be missing some
    grad_input. Please use register_full_backward_hook to get the documented behavior."
    (likewise for outputs nested in Python structures, or made by different Nodes).
    So this is advice: whether it warns depends on the module's forward.

    Example:
        handle = model.register_backward_hook(hook)
        # becomes (with --unsafe-fixes)
        handle = model.register_full_backward_hook(hook)

    Fix safety: unsafe. The old hook sees the `grad_input` of the module's *last*
    autograd Node, the full hook the gradients with respect to the module's inputs;
    a hook that reads or replaces `grad_input` can see other tensors. A module cannot
    mix both kinds ("Cannot use both regular backward hooks and full backward hooks on
    a single Module"), and full hooks reject in-place changes of the inputs or outputs
    in the forward. `register_full_backward_hook` exists in every 2.x.

    Verified: torch/nn/modules/module.py of the 2.0.0, 2.13.0 and 2.15.0 wheels (the
    docstring, the three FutureWarnings in `_maybe_warn_non_full_backward_hook`, and
    `register_full_backward_hook`). Truth: K-778/multi-node-forward, K-778/full-hook-silent.

    Validation: none.
    """

    code = "ADV778"
    name = "register-backward-hook"
    message = (
        "`{what}` is deprecated: the hook misses part of `grad_input` when the forward has several autograd "
        "Nodes (at forward: UserWarning in 2.0-2.3, FutureWarning from 2.4); use `{new}`, whose `grad_input` is the gradient of the inputs"
    )
    severity = Severity.INFO
    kind = Kind.ADVICE
    fix = Applicability.UNSAFE
    triggers = ("register_backward_hook", "register_module_backward_hook")
    targets = tuple(GLOBAL)
    attribute_targets = ("register_backward_hook",)

    valid = [
        "import torch\nh = model.register_full_backward_hook(hook)\n",
        "import torch\nh = t.register_hook(fn)\n",
        "h = model.register_backward_hook(hook)\n",  # no torch in this file
        "import torch\nimport paddle\nh = paddle.register_backward_hook(hook)\n",
        "import torch\nh = torch.nn.modules.module.register_module_full_backward_hook(hook)\n",
    ]
    invalid = [
        Example(
            "import torch\nhandle = model.register_backward_hook(hook)\n",
            fixed="import torch\nhandle = model.register_full_backward_hook(hook)\n",
            message="`Module.register_backward_hook` is deprecated",
            line=2,
            column=10,
        ),
        Example(
            "import torch.nn as nn\nfor m in net.modules():\n    m.register_backward_hook(lambda *a: None)\n",
            fixed="import torch.nn as nn\nfor m in net.modules():\n    m.register_full_backward_hook(lambda *a: None)\n",
        ),
        Example(
            "from torch.nn.modules.module import register_module_backward_hook\nh = register_module_backward_hook(f)\n",
            message="use `torch.nn.modules.module.register_module_full_backward_hook`",
        ),
        Example(
            "import torch\nif torch.__version__ < '1.8':\n    h = model.register_backward_hook(hook)\n",
            message="compat fallback",
            line=3,
        ),
    ]

    def visit_Call(self, node) -> None:
        func = node.func
        old = self.match(func, GLOBAL)
        if old is not None:
            new, imports = rewrite_reference(self.ctx.resolver, func, GLOBAL[old])
            self.report(
                node,
                self.message.format(what=old, new=GLOBAL[old]),
                replacement=node.with_changes(func=new),
                add_imports=imports,
            )
            return
        if not (isinstance(func, cst.Attribute) and func.attr.value == "register_backward_hook"):
            return
        receiver = func.value
        if isinstance(receiver, (cst.Name, cst.Attribute)) and any(
            not q.startswith("<") for q in self.qualnames(receiver)
        ):
            return  # a module or an imported object: another library's function
        if not self.imports_torch():
            return
        new = node.with_changes(func=func.with_changes(attr=cst.Name("register_full_backward_hook")))
        self.report(
            node,
            self.message.format(what="Module.register_backward_hook", new="register_full_backward_hook"),
            replacement=new,
        )
