from __future__ import annotations

from advisor.rule import (
    CODE_ONLY,
    TEXT_GAP,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    calls_to,
    cst,
    get_arg,
)

# torch.optim.__all__'s Optimizer subclasses on 2.15.0 (checked with issubclass on the wheel).
OPTIMIZERS = (
    "Adafactor",
    "Adadelta",
    "Adagrad",
    "Adam",
    "Adamax",
    "AdamW",
    "ASGD",
    "LBFGS",
    "Muon",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "SGD",
    "SparseAdam",
)
MODULES = {
    "Adadelta": "adadelta",
    "Adagrad": "adagrad",
    "Adam": "adam",
    "Adamax": "adamax",
    "AdamW": "adamw",
    "ASGD": "asgd",
    "LBFGS": "lbfgs",
    "NAdam": "nadam",
    "Optimizer": "optimizer",
    "RAdam": "radam",
    "RMSprop": "rmsprop",
    "Rprop": "rprop",
    "SGD": "sgd",
    "SparseAdam": "sparse_adam",
}
TARGETS = tuple(f"torch.optim.{n}" for n in OPTIMIZERS) + tuple(f"torch.optim.{m}.{n}" for n, m in MODULES.items())


def _set_params(call) -> bool:
    """Could this `ast` call pass a set as its first argument or `params=`, where the rule looks (`get_arg`: the
    first positional argument before any `*args`, or `params=`; not inside `**kwargs`)?"""
    first = call.args[:1] if call.args and type(call.args[0]).__name__ != "Starred" else []
    for v in first + [k.value for k in call.keywords if k.arg == "params"]:
        kind = type(v).__name__
        if kind in ("Set", "SetComp"):
            return True
        if kind == "Call" and type(v.func).__name__ == "Name" and v.func.id in ("set", "frozenset"):
            return True
    return False


class OptimizerParamSet(Rule):
    """Optimizer parameters given as a set: their order changes between runs.

    What it finds: a `torch.optim` optimizer (`SGD`, `Adam`, `AdamW`, ... and
    `Optimizer` itself, through any alias) constructed with a set literal
    `{w, b}`, a set comprehension, or a call of the builtin `set(...)` /
    `frozenset(...)` (not a shadowed name) as its first argument or `params=`.

    Why: the iteration order of a set of tensors differs from run to run, so the
    optimizer's per-parameter state is matched to different parameters when a
    `state_dict` is loaded. From 2.15 the constructor warns FutureWarning:
    "optimizer parameters need to be organized in ordered collections, but the
    ordering of tensors in sets will change between runs. Please use a list
    instead. This will be an error in a future release." (verified on the 2.15.0
    wheel for SGD and Adam; no warning on 2.13 / 2.14: tests/truth
    D15-5/optimizer-set).

    Example:
        opt = torch.optim.SGD({w, b}, lr=0.1)
        # becomes
        opt = torch.optim.SGD([w, b], lr=0.1)

    Fix safety: no automatic fix. `list(s)` silences the warning but keeps the
    random order; pass the parameters in a deterministic order (e.g.
    `model.parameters()`).

    Validation: none.
    """

    code = "ADV766"
    name = "optimizer-param-set"
    message = (
        "optimizer parameters given as a set: their order changes between runs (breaks optimizer state_dict "
        "resume); since 2.15 this warns (FutureWarning) and is announced to become an error; pass a list, e.g. "
        "`model.parameters()`"
    )
    severity = Severity.WARNING
    deprecated_in = "2.15"
    fix = Applicability.NONE
    triggers = OPTIMIZERS
    targets = TARGETS
    may_match_refers = True  # its may_match asks Rule.may_match first
    valid = [
        "import torch\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n",
        "import torch\nopt = torch.optim.SGD(list(params), lr=0.1)\n",
        "import optax\nopt = optax.sgd({0.1})\n",
        "import torch\ndef set(x):\n    return x\nopt = torch.optim.SGD(set(ps))\n",
    ]
    invalid = [
        Example("import torch\nopt = torch.optim.SGD({w, b}, lr=0.1)\n", message="given as a set", line=2, column=7),
        Example("import torch\nopt = torch.optim.Adam(set(model.parameters()))\n"),
        Example("from torch.optim import Adam\nopt = Adam(params={p for p in ps})\n"),
        Example("import torch.optim.sgd as s\nopt = s.SGD(frozenset(ps))\n"),
        Example("from torch.optim import SGD as Opt\nopt = Opt({w, b})\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A reference to an optimizer (Rule.may_match), and a set where a call's first argument or `params=` starts.
        gap = rf"(?:{TEXT_GAP}|\(|#[^\r\n]*+)*+"  # parentheses may wrap it: `Adam(({w, b}))`
        a_set = rf"(?:\{{|(?:frozen)?set{TEXT_GAPS}\()"
        first = CODE_ONLY + rf"\({gap}{a_set}"
        keyword = CODE_ONLY + rf"\bparams{TEXT_GAPS}={gap}{a_set}"
        return cls.text_gate_with(first, keyword)

    @classmethod
    def may_match(cls, refs) -> bool:
        # Only an optimizer given a set display, a set comprehension or `set(...)`/`frozenset(...)`.
        calls = calls_to(refs, TARGETS)
        return super().may_match(refs) and any(_set_params(c) for c in calls)

    def visit_Call(self, node) -> None:
        if self.match(node.func, TARGETS) is None:
            return
        arg = get_arg(node, "params", 0)
        if arg is not None and self._is_set(arg.value):
            self.report(node)

    def _is_set(self, value) -> bool:
        if isinstance(value, (cst.Set, cst.SetComp)):
            return True
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("set", "frozenset")
        ):
            return not self.qualnames(value.func) and self.ctx.resolver.scope_of(value.func) is not None  # the builtin
        return False
