from __future__ import annotations

from advisor.rule import ALSO_NEEDED, CODE_ONLY, TEXT_GAPS, Applicability, Example, Severity, cst

from .._tensors import FACTORIES, TENSOR_TYPES, KnownTensors

NEW = {"resize": "reshape", "resize_as": "reshape_as"}


class TensorResize(KnownTensors):
    """Non-inplace `x.resize(...)` / `x.resize_as(y)` on a tensor is deprecated: use `reshape` / `reshape_as`.

    What it finds: calls of `.resize(...)` and `.resize_as(...)` whose receiver is known to be
    a torch tensor (the result of a torch factory, a name bound to one in the same function, or
    a parameter annotated `torch.Tensor`; see `rules/_tensors.py`). `resize` on anything else,
    such as a PIL image (`img.resize((w, h))`) or an object of unknown type, is not matched;
    the in-place `resize_` / `resize_as_` are not deprecated and not matched either.

    Why: both warn UserWarning "non-inplace resize is deprecated" / "non-inplace resize_as is
    deprecated" in every 2.x release (torch/_tensor.py, `2.15.0 _tensor.py:1043,1051`). They
    go through `torch.autograd._functions.Resize`, which only changes the shape, keeps the
    number of elements (RuntimeError otherwise) and returns `contiguous().view(sizes)`: what
    `reshape` does.

    Example:
        y = torch.arange(6).resize(2, 3)
        # becomes
        y = torch.arange(6).reshape(2, 3)

    Fix safety: unsafe: `reshape` also accepts what `resize` rejected (a `-1`, one tuple of
    sizes), and code that meant to change the storage wants `resize_` instead. `reshape` and
    `reshape_as` exist in every 2.x release.
    Verified: torch 2.13.0 CPU at run time; torch/_tensor.py of the 2.0.0, 2.12.0 and 2.15.0 wheels.
    Truth: K-151/resize.
    Validation: none.
    """

    reports_at_references = True  # at calls of the methods (attribute targets)

    code = "ADV151"
    name = "tensor-resize"
    message = "non-inplace `Tensor.{old}()` is deprecated (UserWarning); use `{recv}.{new}(...)` (or `{old}_` in place)"
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.UNSAFE
    triggers = tuple(NEW)
    attribute_targets = tuple(NEW)
    window_apis = {"old": ("torch.Tensor.resize", "torch.Tensor.resize_as")}

    valid = [
        "import torch\ny = torch.arange(6).reshape(2, 3)\n",
        "import torch\nx = torch.zeros(4)\nx.resize_(2, 2)\nx.resize_as_(y)\n",  # in place: not deprecated
        # PIL and other libraries' resize
        "import torch\nfrom PIL import Image\nimg = Image.open(p)\nimg = img.resize((224, 224))\n",
        "import torch\ndef load(img):\n    return img.resize((32, 32))\n",  # receiver of unknown type
        "import torch\nimport numpy as np\na = np.zeros(4).resize(2, 2)\n",
        "x = torch.zeros(4)\ny = x.resize(2, 2)\n",  # no torch import
        "import torch\naten = torch.ops.aten\nLOWERINGS = {aten.resize: None, aten.resize_as: None}\n",  # not called
    ]
    invalid = [
        Example(
            "import torch\ny = torch.arange(6).resize(2, 3)\n",
            fixed="import torch\ny = torch.arange(6).reshape(2, 3)\n",
            message="non-inplace `Tensor.resize()` is deprecated",
            line=2,
            column=5,
        ),
        Example(
            "import torch\ndef f(x: torch.Tensor, y):\n    return x.resize_as(y)\n",
            fixed="import torch\ndef f(x: torch.Tensor, y):\n    return x.reshape_as(y)\n",
            message="use `x.reshape_as(...)`",
        ),
        Example(
            "import torch as T\nbuf = T.zeros(8)\nout = buf.resize(2, 4)\n",
            fixed="import torch as T\nbuf = T.zeros(8)\nout = buf.reshape(2, 4)\n",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A value that may be known a tensor (`may_know_tensors`: a factory or a tensor type referred to), and a method
        # call of one of those names in code (`x.resize(`: a getattr's call is no method call).
        call = ALSO_NEEDED + CODE_ONLY + rf"\.{TEXT_GAPS}(?:{'|'.join(sorted(NEW))}){TEXT_GAPS}\("
        return tuple(sorted({*FACTORIES, *TENSOR_TYPES})), (), (call,), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # Only a method call is reported: `aten.resize` named as an operator (torch's own lowerings) is not one.
        return cls.may_know_tensors(refs) and any(
            type(c.func).__name__ == "Attribute" for name in NEW for c in refs.calls.get(name, ())
        )

    def visit_Call(self, node) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in NEW or not self.is_tensor(func.value):
            return
        if not self.imports_torch() or self.in_probe():
            return
        old = func.attr.value
        recv = self.ctx.code_for(func.value)
        message = self.message.format(old=old, new=NEW[old], recv=recv if len(recv) <= 30 else "x")
        self.report(node, message, replacement=func.attr.with_changes(value=NEW[old]), fix_node=func.attr)
