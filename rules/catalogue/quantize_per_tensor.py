from __future__ import annotations

from advisor.rule import Example, ReferenceRule, Severity

NAMES = {"torch.quantize_per_tensor", "torch.quantize_per_channel", "torch.quantize_per_tensor_dynamic"}


class QuantizePerTensor(ReferenceRule):
    """`torch.quantize_per_tensor` / `quantize_per_channel`: quantized tensor creation is deprecated from 2.13.

    What it finds: calls of (and references to) `torch.quantize_per_tensor`,
    `torch.quantize_per_channel` and `torch.quantize_per_tensor_dynamic`, through
    aliases and imports.

    Why: UserWarning from C++, new in 2.13 (once per process): "torch.quantize_per_tensor,
    torch.quantize_per_channel and other quantized tensor creation functions that
    produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are
    deprecated and will be removed in a future PyTorch release. Please see
    https://github.com/pytorch/pytorch/issues/184982 for more information." The
    quantized dtypes go with them; torchao's quantization keeps plain integer tensors
    with their scales.

    Example:
        q = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)

    Fix safety: no automatic fix: there is no drop-in replacement in torch; the code
    that consumes the quantized tensor changes too.

    Verified: the text is in `libtorch_cpu` of the 2.13.0 and 2.15.0 wheels and not in
    2.12.0's (strings of the binary); runtime on 2.13. Truth: K-794/quantize_per_tensor.

    Validation: none.

    Window: a C++ warning: C++ text "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized
    tensor creation functions" (libtorch_cpu, 2.13.0-2.15.0; docs/evidence/torch-cxx-texts.json).
    """

    code = "ADV794"
    statement_local = True  # reported at the reference; nothing else read
    name = "quantize-per-tensor"
    message = (
        "`{old}` is deprecated since 2.13 (UserWarning: the quantized tensor dtypes quint8 / qint8 / qint32 "
        "are going away, pytorch/pytorch#184982); move to torchao's quantization"
    )
    severity = Severity.WARNING
    deprecated_in = "2.13"
    window_exceptions = {
        "deprecated_in": 'a C++ warning: C++ text "torch.quantize_per_tensor, torch.quantize_per_channel and other quantized\ntensor creation functions" (libtorch_cpu, 2.13.0-2.15.0; docs/evidence/torch-cxx-texts.json).',
    }
    triggers = tuple(sorted(n.rpartition(".")[2] for n in NAMES))
    names = NAMES

    valid = [
        "import torch\nq = torch.ao.quantization.fake_quantize.FakeQuantize()\n",
        "import tensorflow as tf\nq = tf.quantization.quantize(x, 0, 1, tf.quint8)\n",
        "def f(torch):\n    return torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n",
    ]
    invalid = [
        Example(
            "import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n",
            message="`torch.quantize_per_tensor` is deprecated since 2.13",
            line=2,
            column=5,
        ),
        Example("from torch import quantize_per_channel as qpc\nq = qpc(x, s, z, 0, torch.qint8)\n"),
        Example("import torch\nq = torch.quantize_per_tensor(x, 0.1, 0, torch.quint8)\n", target="2.12", count=0),
    ]

    def on_reference(self, node, qualname) -> None:
        self.report(node, self.message.format(old=qualname))
