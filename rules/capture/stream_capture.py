from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    expr,
    get_arg,
    rewrite_reference,
    simple_name,
    string_value,
)

_TARGETS = {
    "torch.cuda.is_current_stream_capturing": "torch.cuda",
    "torch.cuda.graphs.is_current_stream_capturing": "torch.cuda",
    "torch.xpu.is_current_stream_capturing": "torch.xpu",
    "torch.xpu.graphs.is_current_stream_capturing": "torch.xpu",
}
_MODULES = {t.rpartition(".")[0] for t in _TARGETS}
_PATCHERS = ("patch", "setattr", "object")  # mock.patch, patch.object, monkeypatch.setattr, mocker.patch


class StreamCaptureQuery(ReferenceRule):
    """`torch.cuda.is_current_stream_capturing()` is superseded by `Stream.is_capturing()` (2.12).

    What it finds: calls of and references to `torch.cuda.is_current_stream_capturing`
    and `torch.xpu.is_current_stream_capturing` (also through `torch.cuda.graphs`,
    aliases and `from` imports), and mocks that patch it by name
    (`mock.patch("torch.cuda.is_current_stream_capturing")`,
    `mock.patch.object(torch.cuda, "is_current_stream_capturing")`,
    `monkeypatch.setattr(...)`).

    Why: 2.12 gives every stream one `is_capturing()` method, and torch itself
    moved to `torch.accelerator.current_stream().is_capturing()` in 2.13. The old
    function is *not* deprecated (no warning in 2.12 or 2.13), so this is a
    modernisation. A mock of the old name silently stops applying once call
    sites move to the new form: tests then pass without testing anything.

    Example:
        torch.cuda.is_current_stream_capturing()
        # becomes
        torch.cuda.current_stream().is_capturing()

    Fix safety: unsafe. The old call returns False without initialising the
    CUDA context when none exists (its docstring, torch/cuda/graphs.py);
    `torch.cuda.current_stream()` calls `torch.cuda._lazy_init()` first
    (torch/cuda/__init__.py in 2.13, read in the wheel; `torch.xpu` likewise), so
    the rewritten call initialises CUDA where the old one did not (a forked
    worker can then no longer use CUDA) and raises where no device exists. Guard with `torch.cuda.is_available()` if the code relied on
    that. Mocks and non-call references are reported without a fix. On a
    project whose lowest supported torch is older than 2.12 the message says
    that the replacement does not exist there (the policy adds it to the
    unsafe fix), and the rule is not reported for targets before 2.12.

    Release window: `Stream.is_capturing()` exists from 2.12 (checked: `def
    is_capturing(self) -> _bool` of `class Stream` in `torch/_C/__init__.pyi` of
    the 2.12.0 wheel, absent from 2.11.0 and older).

    Window: `since` is when `Stream.is_capturing()` appears, a method of the C++ `torch._C.Stream`:
    `2.12.0 torch/_C/__init__.pyi:150` (absent from 2.11.0); the API index records no methods of C++
    classes, and the modules `torch.cuda` / `torch.xpu` the fix calls through exist from 2.0.

    Validation: `stream_capture` checks, inside and outside a capture, that both
    forms agree on your GPU.

    References: PyTorch PR #171443; torch/cuda/graphs.py.
    """

    code = "ADV101"
    name = "stream-capture-query"
    message = (
        "`{old}()` is superseded in torch 2.12 by `{mod}.current_stream().is_capturing()` "
        "(not deprecated; no warning is emitted); the new call initialises the device context, "
        "which the old one never does, and raises where no device is available"
    )
    severity = Severity.INFO
    since = "2.12"
    fix = Applicability.UNSAFE
    validation = "stream_capture"
    triggers = ("is_current_stream_capturing",)
    names = _TARGETS
    reports_at_references = False  # also `patch.object(torch.cuda, "is_current_stream_capturing")`
    window_exceptions = {"since": "`2.12.0 torch/_C/__init__.pyi:150` (absent from 2.11.0)"}

    @classmethod
    def may_match(cls, refs) -> bool:
        # A reference, or a patcher's call (mock.patch, patch.object, setattr) with the API's name as a string.
        if refs.refers_to_any(_TARGETS, strings=False):
            return True
        if not any(p in refs.calls for p in _PATCHERS):  # torch's trace_rules.py names it in a set, patched nowhere
            return False
        if refs.refers_to_any(_TARGETS):
            return True
        return "is_current_stream_capturing" in refs.qualnames and not refs.attributes.isdisjoint({"object", "setattr"})

    valid = [
        "import torch\ntorch.cuda.current_stream().is_capturing()",
        "def is_current_stream_capturing():\n    return False\nis_current_stream_capturing()",
        "from habana_frameworks.torch.hpu.graphs import is_current_stream_capturing\nis_current_stream_capturing()",
        "import habana_frameworks.torch.hpu as hthpu\nhthpu.graphs.is_current_stream_capturing()",
        "def f(torch):\n    return torch.cuda.is_current_stream_capturing()",
        "import torch\nclass S:\n    def is_current_stream_capturing(self): ...\nS().is_current_stream_capturing()",
        "from unittest import mock\nmock.patch('mylib.is_current_stream_capturing')",
    ]
    invalid = [
        Example(
            "import torch\nif torch.cuda.is_current_stream_capturing():\n    pass\n",
            fixed="import torch\nif torch.cuda.current_stream().is_capturing():\n    pass\n",
            message="superseded in torch 2.12 by `torch.cuda.current_stream().is_capturing()`",
            line=2,
            column=4,
        ),
        Example(
            "import torch.cuda as tc\nx = tc.is_current_stream_capturing()\n",
            fixed="import torch.cuda as tc\nx = tc.current_stream().is_capturing()\n",
        ),
        Example(
            "from torch.cuda import is_current_stream_capturing as cap\nok = not cap()\n",
            fixed="import torch\n\nok = not torch.cuda.current_stream().is_capturing()\n",
        ),
        Example(
            "import torch\nx = torch.cuda.graphs.is_current_stream_capturing()\n",
            fixed="import torch\nx = torch.cuda.current_stream().is_capturing()\n",
        ),
        Example(
            "import torch\ny = torch.xpu.is_current_stream_capturing()\n",
            fixed="import torch\ny = torch.xpu.current_stream().is_capturing()\n",
        ),
        Example(
            "import torch\ncheck = torch.cuda.is_current_stream_capturing\n",
            message="this reference is not rewritten",
            line=2,
            column=9,
        ),
        Example(
            "from unittest import mock\nwith mock.patch('torch.cuda.is_current_stream_capturing', return_value=True):\n    pass\n",
            message="mock of `torch.cuda.is_current_stream_capturing` stops applying",
            line=2,
            column=6,
        ),
        Example(
            "import torch\nfrom unittest import mock\nmock.patch.object(torch.cuda, 'is_current_stream_capturing')\n"
        ),
        Example(
            "import torch\ndef test(monkeypatch):\n    monkeypatch.setattr(torch.cuda, 'is_current_stream_capturing', lambda: True)\n"
        ),
        Example("import torch\nimport torch.cuda.graphs as g\ng.is_current_stream_capturing()\n"),
    ]

    def _msg(self, old: str) -> str:
        return self.message.format(old=old, mod=_TARGETS[old])

    def visit_Call(self, node) -> None:
        super().visit_Call(node)
        if node.func not in self._seen:
            self._check_patch(node)

    def on_call(self, node, old: str) -> None:
        if node.args:  # takes no arguments; don't guess what the caller meant
            self.report(node, self._msg(old))
            return
        module_ref, imports = rewrite_reference(self.ctx.resolver, node.func, f"{_TARGETS[old]}.current_stream")
        new = expr(f"{self.ctx.code_for(module_ref)}().is_capturing()").with_changes(lpar=node.lpar, rpar=node.rpar)
        self.report(node, self._msg(old), replacement=new, add_imports=imports)

    def _check_patch(self, node) -> None:
        func = node.func
        if simple_name(func) not in _PATCHERS:
            return
        first = get_arg(node, "target", 0)
        text = string_value(first.value) if first is not None else None
        if text in _TARGETS:
            self.report(
                node, f"mock of `{text}` stops applying once call sites use `Stream.is_capturing()` (torch 2.12)"
            )
            return
        second = get_arg(node, "attribute", 1) or get_arg(node, "name", 1)
        if first is not None and second is not None and string_value(second.value) == "is_current_stream_capturing":
            if any(q in _MODULES for q in self.qualnames(first.value)):
                self.report(
                    node,
                    "mock of `is_current_stream_capturing` stops applying once call sites use `Stream.is_capturing()` (torch 2.12)",
                )

    def on_reference(self, node, old: str) -> None:
        self.report(node, self._msg(old).replace("()`", "`", 1) + "; this reference is not rewritten")
