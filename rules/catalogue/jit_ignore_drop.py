from __future__ import annotations

from typing import Any

from advisor.rule import (
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    calls_to,
    cst,
    get_arg,
    keyword_calls,
)

_IGNORE = ("torch.jit.ignore", "torch._jit_internal.ignore")


def _falsy(value: Any) -> bool:
    if isinstance(value, cst.Name):
        return value.value in ("False", "None")
    return isinstance(value, cst.Integer) and value.value == "0"


def _may_drop(call: Any) -> bool:
    """Could this `ast` call be `ignore(True)` / `ignore(drop=...)` / `ignore(drop_on_export=...)`?"""
    first = call.args[0] if call.args else None
    if first is not None and type(first).__name__ == "Constant" and first.value is True:
        return True
    return any(k.arg in (None, "drop", "drop_on_export") for k in call.keywords)


class JitIgnoreDrop(Rule):
    """`torch.jit.ignore(True)` / `ignore(drop=True)` / `ignore(drop_on_export=True)` are deprecated: use `torch.jit.unused`.

    What it finds: calls of `torch.jit.ignore` (however imported, decorators included) given a literal
    `True` as first argument, or `drop=` / `drop_on_export=` with anything but a literal
    `False` / `None` / `0`. `@torch.jit.ignore`, `@torch.jit.ignore()` and `torch.jit.ignore(fn)`
    are not reported.

    Why: FutureWarning in every 2.x release: "ignore(True) has been deprecated. TorchScript will now
    drop the function call on compilation. Use torch.jit.unused now." (and "ignore(drop_on_export=True)
    has been deprecated ...", `2.0.0 torch/_jit_internal.py:716-730`, `2.15.0 torch/_jit_internal.py:882-897`).
    With a true `drop`, `ignore` marks the function exactly as `@torch.jit.unused` does
    (`FunctionModifiers.UNUSED`).

    Example:
        @torch.jit.ignore(drop=True)
        def debug(self, x): ...
        # becomes
        @torch.jit.unused
        def debug(self, x): ...

    Fix safety: no automatic fix (the decorator is rewritten by hand; `torch.jit.unused` exists in every
    2.x release and sets the same modifier).
    Verified: torch 2.13.0 CPU and 2.15.0 at run time. Truth: K-161/jit-ignore-drop.
    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV161"
    statement_local = True  # the call's own arguments
    name = "jit-ignore-drop"
    message = "`torch.jit.ignore({arg})` is deprecated (FutureWarning); decorate with `@torch.jit.unused` instead"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.NONE
    triggers = ("ignore",)
    targets = _IGNORE
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\n\n@torch.jit.ignore\ndef f(x):\n    return x\n",
        "import torch\n\n@torch.jit.ignore()\ndef f(x):\n    return x\n",
        "import torch\n\n@torch.jit.ignore(drop=False)\ndef f(x):\n    return x\n",
        "import torch\ng = torch.jit.ignore(f)\n",
        "import warnings\nwarnings.filterwarnings('ignore', True)\n",
        "from mylib import jit\n\n@jit.ignore(True)\ndef f(x):\n    return x\n",
    ]
    invalid = [
        Example(
            "import torch\n\n@torch.jit.ignore(True)\ndef f(x):\n    return x\n",
            message="`torch.jit.ignore(True)` is deprecated",
            line=3,
            column=2,
        ),
        Example(
            "import torch\n\nclass M(torch.nn.Module):\n    @torch.jit.ignore(drop=True)\n    def f(self):\n        pass\n"
        ),
        Example(
            "from torch.jit import ignore\n\n@ignore(drop_on_export=True)\ndef f(x):\n    return x\n",
            message="`torch.jit.ignore(drop_on_export=True)`",
        ),
    ]

    @classmethod
    def text_gate(cls) -> Any:
        # A reference (Rule.may_match), and, besides, an `ignore(` call that may be `_may_drop`'s: `True` first, a
        # `drop=`/`drop_on_export=` keyword or `**` (read two brackets deep; what the text cannot read counts), a
        # getattr's `"ignore")(`, `ignore as`. `ignore` is in most files (warnings filters): asked before the reference.
        g = TEXT_GAPS
        first = CODE_ONLY + rf"ignore(?<=\bignore){g}\((?:{g}\()*{g}True\b"
        starred = CODE_ONLY + rf"ignore(?<=\bignore){g}\((?:[^()\"'#]|\([^()]*\))*?\*\*"
        return cls.text_gate_with(first, starred, *keyword_calls("ignore", "drop(?:_on_export)?", True))

    @classmethod
    def may_match(cls, refs: Any) -> bool:
        # `ignore` is a common word (warnings filters): only a call of that name with `True` or `drop...=`.
        calls = calls_to(refs, _IGNORE)
        return super().may_match(refs) and any(_may_drop(c) for c in calls)

    def visit_Call(self, node: Any) -> None:
        if self.match(node.func, _IGNORE) is None:
            return
        first = get_arg(node, None, 0)
        if first is not None and isinstance(first.value, cst.Name) and first.value.value == "True":
            self.report(node, self.message.format(arg="True"))
            return
        for keyword in ("drop", "drop_on_export"):
            arg = get_arg(node, keyword)
            if arg is not None and not _falsy(arg.value):
                self.report(node, self.message.format(arg=f"{keyword}={self.ctx.code_for(arg.value)[:20]}"))
                return
