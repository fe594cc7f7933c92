from __future__ import annotations

from advisor.rule import (
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Kind,
    Rule,
    Severity,
    calls_to,
    cst,
    dotted_name,
    get_arg,
    has_star_args,
    two_deep,
)

FUNCS = {  # qualified name -> position of `dim`
    "torch.nn.functional.softmax": 1,
    "torch.nn.functional.log_softmax": 1,
    "torch.nn.functional.softmin": 1,
    "torch.nn.Softmax": 0,
    "torch.nn.LogSoftmax": 0,
    "torch.nn.Softmin": 0,
}

CONTAINERS = {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"}
UNCALLED = " (built here, but this file never calls it: the warning comes only when it is called)"


def _may_lack_dim(call) -> bool:
    """Could this `ast` call of a softmax-like name pass no `dim`? (`F.softmax(x, 1)` passes it; `nn.Softmax(1)`
    too, but the name alone does not say which of the two a call is, so a constructor's one argument counts.) Not a
    method of a call's result (`torch.rand(3).log_softmax(2)`): no qualified name is that, unless a `getattr`'s."""
    func = call.func
    if type(func).__name__ == "Attribute" and type(func.value).__name__ == "Call":
        inner = func.value.func
        if type(inner).__name__ != "Name" or inner.id != "getattr":
            return False
    if any(k.arg is None or k.arg == "dim" for k in call.keywords):
        return any(k.arg is None for k in call.keywords)  # `**kwargs` may hold it or not
    return len(call.args) < 2 or any(type(a).__name__ == "Starred" for a in call.args)


class SoftmaxWithoutDim(Rule):
    """`F.softmax` / `log_softmax` / `softmin` (and the `nn` modules) without `dim`.

    What it finds: calls of `torch.nn.functional.softmax`, `log_softmax`,
    `softmin`, and constructions of `nn.Softmax`, `nn.LogSoftmax`, `nn.Softmin`,
    that pass no `dim`.

    Why: UserWarning: "Implicit dimension choice for softmax has been
    deprecated. Change the call to include dim=X as an argument." The implicit
    dim depends on the input's number of dimensions (0 for 0-D, 1-D and 3-D
    inputs, 1 otherwise), which is rarely what was meant.

    Example:
        p = F.softmax(logits)
        # becomes
        p = F.softmax(logits, dim=-1)

    The warning comes when the module is called, not built: a module built
    without `dim` is reported as deprecated where the file calls it (`nn.Softmax()(x)`,
    `self.sm = nn.Softmax()` and `self.sm(x)`, or inside `nn.Sequential`), else as
    advice (a placeholder never called warns nowhere).

    Fix safety: no automatic fix: only you know which dimension you meant.

    Validation: none.
    """

    code = "ADV717"
    name = "softmax-without-dim"
    message = "`{old}` without `dim` relies on a deprecated implicit dimension (UserWarning); pass `dim=` explicitly"
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.NONE
    triggers = ("softmax", "log_softmax", "softmin", "Softmax", "LogSoftmax", "Softmin")
    targets = tuple(FUNCS)
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch.nn.functional as F\np = F.softmax(x, dim=-1)",
        "import torch.nn.functional as F\np = F.softmax(x, 1)",
        "import torch\nm = torch.nn.Softmax(dim=1)",
        "import torch\np = torch.softmax(x, 0)",
    ]
    invalid = [
        Example("import torch.nn.functional as F\np = F.softmax(logits)\n"),
        Example("from torch.nn.functional import log_softmax\nlp = log_softmax(x, dtype=torch.float32)\n"),
        Example("import torch.nn as nn\nm = nn.Softmax()\n", message="never calls it"),
        Example(
            "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        self.sm = nn.Softmax()\n"
            "    def forward(self, x):\n        return self.sm(x)\n",
            line=4,
        ),
        Example("import torch.nn as nn\nhead = nn.Sequential(nn.Linear(2, 2), nn.LogSoftmax())\n"),
        Example("from torch.nn.functional import softmax as sm\np = sm(logits)\n"),
        Example("import torch.nn.functional as F\np = getattr(F, 'softmax')(logits)\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A reference (Rule.may_match), and a call of one of the names that may lack `dim` (`_may_lack_dim`: one
        # positional argument at most and no `dim=`), or one the text cannot read (a string, a star, a brace, deeper
        # brackets), a getattr's name called (`getattr(F, "softmax")(x)`) or renamed (`softmax as sm`).
        g = TEXT_GAPS
        name = r"oftm(?:(?<=\b[sS]oftm)|(?<=\blog_softm)|(?<=\bLogSoftm))(?:ax|in)\b"  # `oftm` first: a literal
        name += "".join(
            rf"(?<!{d} {n}oftmax)(?<!{d} {n}oftmin)"
            for d, n in (("def", "s"), ("def", "log_s"), ("class", "S"), ("class", "LogS"))
        )  # not where it is defined
        nested = two_deep("(") + "|" + two_deep("[")
        value = rf"(?:[=!<>:]=|[^(),\[\]{{}}\"'#*=]|{nested})++"
        keyword = rf"(?!dim\b)\w++{g}=(?!=){g}{value}"
        positional = rf"(?!\w++{g}=(?!=)){value}"
        lacking = rf"{name}{g}\({g}(?:(?:{positional}|{keyword}){g}(?:,{g}{keyword}{g})*)?(?:,{g})?\)"
        plain = r"[^()\"'*{]"
        unread = (
            rf"{name}{g}\((?:{plain}|\((?:{plain}|\({plain}*\))*\))*+(?:[\"'*{{]|\((?:{plain}|\({plain}*\))*[(\"'*{{])"
        )
        quoted, renamed = rf"{name}[\"']{g},?{g}\){g}\(", rf"{name}{g}as\b"  # `getattr(F, "softmax")(`
        return cls.text_gate_with(CODE_ONLY + lacking, CODE_ONLY + unread, quoted, CODE_ONLY + renamed)

    @classmethod
    def may_match(cls, refs) -> bool:
        # Only a call that passes no `dim` (by keyword or position) can be reported: most files pass one.
        calls = calls_to(refs, FUNCS)  # not `t.log_softmax(1)` on a local `t`
        return super().may_match(refs) and any(_may_lack_dim(c) for c in calls)

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # Only a module built without `dim` is judged by where the file calls it; functional calls by themselves.
        calls = refs.calls_of([q for q, position in FUNCS.items() if position == 0])
        return any(_may_lack_dim(c) for c in calls)

    def visit_Module(self, node) -> None:
        self._built: list = []  # (construction, qualified name)
        self._called: set[str] = set()  # source spelling of every called expression (`self.sm`, `sm`)
        self._used: set[int] = set()  # constructions that are called or handed to a container
        self._names: dict[int, str] = {}  # construction -> the name or attribute it is assigned to

    def visit_Assign(self, node) -> None:
        if len(node.targets) == 1 and isinstance(node.value, cst.Call):
            self._names[id(node.value)] = dotted_name(node.targets[0].target)

    def visit_Call(self, node) -> None:
        self._called.add(dotted_name(node.func))
        if isinstance(node.func, cst.Call):
            self._used.add(id(node.func))  # `nn.Softmax()(x)`
        if self.match(node.func, CONTAINERS):
            self._used.update(id(a.value) for a in node.args)  # `nn.Sequential(..., nn.Softmax())` is called with it
        old = self.match(node.func, FUNCS)
        if old is None or has_star_args(node) or any(a.star == "**" for a in node.args):
            return
        if get_arg(node, "dim", FUNCS[old]) is not None:
            return
        if old.startswith("torch.nn.functional."):
            self.report(node, self.message.format(old=old))
        else:
            self._built.append((node, old))

    def leave_Module(self, node) -> None:
        for call, old in self._built:
            name = self._names.get(id(call))
            if id(call) in self._used or (name and name in self._called):
                self.report(call, self.message.format(old=old))
            else:
                self.report(call, self.message.format(old=old) + UNCALLED, kind=Kind.ADVICE)
