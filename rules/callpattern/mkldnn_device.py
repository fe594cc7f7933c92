from __future__ import annotations

import ast
import re

from advisor.rule import (
    CODE_ONLY,
    TEXT_GAP,
    TEXT_GAPS,
    Example,
    Rule,
    Severity,
    cst,
    get_arg,
    getattr_called,
    string_value,
)

DEVICE = ("torch.device",)
_MKLDNN = re.compile(r"mkldnn(?::\d+)?")


def _mkldnn(arg) -> bool:
    return arg is not None and _MKLDNN.fullmatch(string_value(arg.value) or "") is not None


class MkldnnDevice(Rule):
    """`torch.device("mkldnn")` and `device="mkldnn"`: 'mkldnn' is no longer a device type.

    What it finds: the string `"mkldnn"` (or `"mkldnn:N"`) given as a device: the first argument
    of `torch.device(...)` (through aliases), the `device=` keyword of any call in a file that
    imports torch, and the first argument of a `.to(...)` method call. Not `x.to_mkldnn()`,
    `x.is_mkldnn` or `torch.backends.mkldnn` (the MKL-DNN layout and backend, still supported),
    and not other strings (`"MKLDNN"` is an error, not this warning).

    Why: UserWarning from C++ (c10/core/Device.cpp), from torch 2.6: "'mkldnn' is no longer used
    as device type. So torch.device('mkldnn') will be deprecated and removed in the future. Please
    use other valid device types instead." From 2.14 a tensor factory also says "The 'mkldnn'
    device type is deprecated and cannot be used to allocate dense tensors". On 2.13 a factory or
    `.to("mkldnn")` with that device already fails after the warning (an internal assert, or "not
    linked with support for mkldnn devices").

    Example:
        x = torch.empty(2, device="mkldnn")
        # becomes (a CPU tensor in the MKL-DNN layout, if that is what was meant)
        x = torch.empty(2).to_mkldnn()

    Fix safety: no automatic fix: what the code meant by the device (the CPU, or the MKL-DNN
    layout through `to_mkldnn()`) is the author's call.

    Verified: the first text is in `libc10` of the 2.6.0 to 2.15.0 wheels, the second in the
    2.14.0 to 2.15.0 wheels (strings of the binaries); runtime on 2.13: `torch.device("mkldnn")`,
    `"mkldnn:0"`, `device="mkldnn"` and `.to("mkldnn")` warn; `to_mkldnn()` is silent.
    Truth: K-137/*.

    Validation: none.
    """

    code = "ADV137"
    name = "mkldnn-device"
    message = (
        '"mkldnn" as a device type is deprecated (UserWarning from C++; a tensor can\'t be allocated on it): '
        "use the CPU, and `.to_mkldnn()` for the MKL-DNN layout"
    )
    severity = Severity.WARNING
    deprecated_in = "2.6"
    triggers = ("'mkldnn", '"mkldnn')

    valid = [
        "import torch\nd = torch.device('cpu')\n",
        "import torch\ny = x.to_mkldnn()\nok = torch.backends.mkldnn.is_available()\n",
        "import torch\nbackend = 'mkldnn'\n",
        "import torch\nif x.device.type == 'mkldnn':\n    pass\n",
        "import mylib\nd = mylib.device('mkldnn')\n",
        "c = make(device='mkldnn')\n",
    ]
    invalid = [
        Example("import torch\nd = torch.device('mkldnn')\n", message='"mkldnn" as a device type', line=2, column=5),
        Example("import torch\nx = torch.empty(2, device='mkldnn:0')\n"),
        Example("import torch\ny = x.to('mkldnn')\n"),
        Example('from torch import device\nd = device("mkldnn")\n'),
    ]

    @classmethod
    def text_gate(cls):
        # The string where may_match reads one, in code: the first argument of `device(`/`to(` (or of a getattr's
        # `"to")(`), a `device=` or `type=` keyword's value; or `device as` (renamed: any call's first argument).
        # Each pattern starts with its literal name, looked for at C speed.
        string = rf"(?:{TEXT_GAP}|\(|#[^\r\n]*+)*+[rRuU]?[\"']mkldnn"  # parentheses too: `device(("mkldnn"))`
        g = TEXT_GAPS
        first = (rf"{n}(?<=\b{n}){g}\({string}" for n in ("device", "to"))
        called = (getattr_called(n) + string for n in ("device", "to"))
        keywords = (rf"{n}(?<=\b{n}){g}=(?!=){string}" for n in ("device", "type"))
        renamed = rf"device(?<=\bdevice)(?=[ \t\f\\\r\n#]){g}as\b"
        patterns = (*(CODE_ONLY + p for p in (*first, *keywords, renamed)), *called)
        return (), (), patterns, (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where the string is a device: `device=` of any call, or the first argument (or `type=`) of a
        `device(...)` or `.to(...)` call. "mkldnn" in torch's own code is mostly the backend's name."""
        renamed = not refs.renamed.isdisjoint(DEVICE)  # `from torch import device as dev`: any call could be it
        for name, calls in refs.calls.items():
            first = renamed or name in ("device", "to")
            for call in calls:
                given = [k.value for k in call.keywords if k.arg == "device" or (first and k.arg == "type")]
                given += call.args[:1] if first else []
                if any(type(g) is ast.Constant and _MKLDNN.fullmatch(str(g.value)) for g in given):
                    return True
        return False

    def visit_Call(self, node) -> None:
        if self.match(node.func, DEVICE) is not None:
            found = _mkldnn(get_arg(node, "type", 0))
        elif _mkldnn(get_arg(node, "device")):
            found = self.imports_torch()
        else:
            method = isinstance(node.func, cst.Attribute) and node.func.attr.value == "to"
            found = method and _mkldnn(get_arg(node, None, 0)) and self.imports_torch()
        if found:
            self.report(node)
