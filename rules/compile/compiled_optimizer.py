from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, calls_to, cst, simple_name

from ._compiled import COMPILE, CompiledFunctions

FMA_OPS = {
    "addcdiv",
    "addcdiv_",
    "_foreach_addcdiv",
    "_foreach_addcdiv_",
    "addcmul",
    "addcmul_",
    "_foreach_addcmul",
    "_foreach_addcmul_",
}


def _names_function(arg) -> bool:
    """A compile call's argument that `CompiledFunctions.note_compile_call` records, or `opt.step` (starred too)."""
    kind = type(arg).__name__
    if kind == "Starred":
        return _names_function(arg.value)
    return kind == "Name" or (kind == "Attribute" and arg.attr == "step")


def _compiles(decorator) -> bool:
    """May the decorator (or the call it is) be torch.compile? Its last name is `compile`."""
    func = decorator.func if type(decorator).__name__ == "Call" else decorator
    return getattr(func, "attr", getattr(func, "id", None)) == "compile"


class CompiledOptimizerNumerics(CompiledFunctions):
    """Compiled optimizer math whose last bits change with 2.12's FMA lowering of addcdiv.

    What it finds: `torch.compile(opt.step)`, and functions compiled with
    `torch.compile` (decorated, or passed by name) that call `addcdiv`,
    `addcdiv_`, `_foreach_addcdiv`, `addcmul`, `addcmul_`, `_foreach_addcmul`
    or an optimizer's `.step()`.

    Why: 2.12 adds an Inductor lowering for `addcdiv` that uses a fused
    multiply-add on CUDA/XPU (`div_rn` then `fma`; PR #175310), meant to match
    eager CUDA bit for bit, and excludes these ops from decomposition.
    Compiled Adam/AdamW/Adagrad results can therefore change in the last bits
    against 2.11. Tests that compare compiled and eager results, or results
    across versions, with exact equality can start failing. (Verified on CPU:
    Dynamo still decomposes `torch.addcdiv(..., value=v)`; the FMA path is
    reached for `value=1`, `Tensor.addcdiv_` and `_foreach_addcdiv`. GPU
    bitwise parity is unverified.)

    Example:
        opt_step = torch.compile(opt.step)
        # compare results with a tolerance, not torch.equal:
        torch.testing.assert_close(compiled_params, eager_params)

    Fix safety: no automatic fix; nothing to rewrite, only expectations to relax.

    Validation: `compiled_numerics` reports the max ULP difference between eager
    and compiled Adam/AdamW steps on your hardware.
    """

    code = "ADV501"
    name = "compiled-optimizer-numerics"
    message = "compiled optimizer math (`{what}`): torch 2.12 lowers addcdiv with FMA on CUDA/XPU, so results may change in the last bits; compare with tolerances"
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.NONE
    validation = "compiled_numerics"
    triggers = ("compile",)
    targets = tuple(COMPILE)
    may_match_refers = True  # it asks for a reference to torch.compile first

    @classmethod
    def may_match(cls, refs) -> bool:
        # Calls, by the names they call: a string naming an op calls nothing.
        if not refs.refers_to_any(COMPILE, strings=False):
            return False
        wanted = FMA_OPS | {"step"}
        if refs.attributes.isdisjoint(wanted) and not any(q.rpartition(".")[2] in FMA_OPS for q in refs.referenced):
            return False
        # Where a report can be: `torch.compile(opt.step)`, or a call in a function the file compiles (decorated, or
        # named by a compile call). torch.compile referred to otherwise (`torch.compile(model)`, an `isinstance`) is
        # none of this rule's.
        if not refs.renamed.isdisjoint(COMPILE):
            return True  # a decorator under another name: the text of a decorator cannot tell
        for call in calls_to(refs, COMPILE):
            if any(_names_function(a) for a in (*call.args, *(k.value for k in call.keywords))):
                return True
        return any(_compiles(d) for defs in refs.defs.values() for f in defs for d in f.decorator_list)

    valid = [
        "import torch\nopt.step()",
        "import torch\n@torch.compile\ndef f(x):\n    return x * 2\n",
        "import torch\ndef f(p, a, b):\n    p.addcdiv_(a, b)\n",
        "import torch\nfast = torch.compile(net.forward)\ndef f(opt):\n    opt.step()\n",
    ]
    invalid = [
        Example("import torch\nstep = torch.compile(opt.step)\n"),
        Example("import torch\nstep = torch.compile(model=opt.step)\n"),
        Example(
            "import torch\n@torch.compile(fullgraph=True)\ndef update(p, m, v):\n    p.addcdiv_(m, v.sqrt(), value=-0.1)\n"
        ),
        Example("import torch\ndef train_step(opt):\n    opt.step()\nfast = torch.compile(train_step)\n"),
        Example("import torch\n@torch.compile\ndef f(ps, ms, vs):\n    torch._foreach_addcdiv_(ps, ms, vs)\n"),
    ]

    def visit_FunctionDef(self, node) -> None:
        self.enter_function(node)

    def leave_FunctionDef(self, node) -> None:
        self.leave_function()

    def visit_Call(self, node) -> None:
        self.note_compile_call(node)
        func = node.func
        if self.match(func, COMPILE) and node.args:
            first = node.args[0].value
            if isinstance(first, cst.Attribute) and first.attr.value == "step":
                self.report(node, self.message.format(what=self.ctx.code_for(node)))
            return
        name = simple_name(func)
        if name in FMA_OPS or (name == "step" and isinstance(func, cst.Attribute)):
            self.defer(node, f"{name}()")

    def leave_Module(self, node) -> None:
        for call, what in self.deferred_in_compiled():
            self.report(call, self.message.format(what=what))
