from __future__ import annotations

from advisor.rule import Example, Severity

from advisor.rules.mined._catalogue import MinedNames, quote, symbols


def _message(api: str, entry: dict) -> str:
    if entry.get("stub"):  # still defined in the newest wheel, only to raise
        return f"`{api}` raises from torch {entry['removed_in']} (kept in the wheel only to raise){quote(entry)}"
    return f"`{api}` is removed in torch {entry['removed_in']} (no longer in the wheel){quote(entry)}"


class MinedRemoved(MinedNames):
    """A user-facing torch API that a later release removes (mined from the wheels).

    What it finds: references to the APIs of `rules/mined/catalogue.json` ("removed"), through
    aliases and `from` imports, `import` of a removed module included: each is a name that some
    torch release from 2.0 on defines and a later one no longer does, or a function kept only to
    raise with removal wording. The catalogue is generated from the wheels' API index and the
    coverage ledger (docs/coverage.md), never typed by hand; APIs a hand rule reports are left to
    it. Only user-facing names (no `_`-prefixed part).

    Why: using the API fails (ImportError, AttributeError, or the stub's RuntimeError) from the
    release the message names; the message quotes the wheel's own warning or error text. A name the
    newest wheel still defines is a stub that raises (`torch.jit.quantized.QuantizedRNNCellBase`):
    the message says "raises", never "no longer in the wheel".

    Fix safety: no automatic fix (the hand rules have the fixes). Ignore the family with
    `--ignore ADV0`.
    """

    code = "ADV001"
    name = "mined-removed-api"
    message = "removed torch API"
    severity = Severity.ERROR
    names = symbols("removed", _message)
    report_imports = True
    valid = [
        "import torch\ny = torch.onnx.export\n",
        "def f(torch):\n    return torch.onnx.dynamo_export(m)\n",
    ]
    invalid = [
        # (torch.onnx.dynamo_export and torch.distributed.pipeline have hand rules now, ADV783/ADV787, which take them.)
        Example(
            "import torch\ny = torch.align_tensors(a, b)\n",
            message="`torch.align_tensors` is removed in torch 2.13",
            line=2,
            column=5,
            target="2.15",
        ),
        Example("import torch.distributed.pipeline\n", message="is removed in torch 2.4", target="2.15"),
        Example(  # in every wheel, raising RuntimeError from 2.3 (2.15.0 jit/quantized.py:26)
            "import torch\nclass C(torch.jit.quantized.QuantizedRNNCellBase):\n    pass\n",
            message="`torch.jit.quantized.QuantizedRNNCellBase` raises from torch 2.3 (kept in the wheel only to raise)",
            target="2.15",
        ),
        Example(  # it warned until 2.2; from 2.3 its __init__ calls super().__init__() and raises
            "import torch\nc = torch.jit.quantized.QuantizedGRUCell(m)\n",
            message="breaks in 2.3: `torch.jit.quantized.QuantizedGRUCell` raises from torch 2.3",
            target="2.15",
        ),
    ]
