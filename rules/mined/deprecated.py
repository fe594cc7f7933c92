from __future__ import annotations

from advisor.rule import Example, Severity

from advisor.rules.mined._catalogue import MinedNames, how, quote, symbols


def _message(api: str, entry: dict) -> str:
    if entry.get("silent_from"):
        where = entry["evidence"].replace(":torch/", " ", 1)  # "2.15.0 autograd/profiler_legacy.py:33"
        return (
            f"`{api}` is documented as deprecated, but never warns (`@deprecated(..., category=None)`, "
            f"{where}){quote(entry)}"
        )
    return f"`{api}` is deprecated ({how(entry)}){quote(entry)}"


class MinedDeprecated(MinedNames):
    """A user-facing torch API that warns on every use, or is decorated deprecated (mined from the wheels).

    What it finds: references to the APIs of `rules/mined/catalogue.json` ("deprecated"), through
    aliases and `from` imports. Each is decorated with a deprecation decorator (`@deprecated`,
    `_make_deprecate(...)`) or warns outside any condition and names itself in the warning; a
    warning under a condition (an argument's value, an environment variable) is not reported.
    The catalogue is generated from the wheels' API index and the coverage ledger
    (docs/coverage.md), never typed by hand; APIs a hand rule reports are left to it. Only
    user-facing names (no `_`-prefixed part).

    Why: the message quotes the wheel's own warning, which names the replacement where there is one;
    kind and severity follow the API's window for the target (`deprecated_in`, and `removed_in` or
    `undeprecated_in` where the wheels show one). An API decorated `@deprecated(..., category=None)`
    (`autograd.profiler_legacy.profile`, `onnx.select_model_mode_for_export`, ...) never warns at run
    time: it is advice, "documented as deprecated, but never warns", never "warns from".

    Fix safety: no automatic fix (the hand rules have the fixes). Ignore the family with
    `--ignore ADV0`.
    """

    code = "ADV002"
    name = "mined-deprecated-api"
    message = "deprecated torch API"
    severity = Severity.WARNING
    names = symbols("deprecated", _message)
    valid = [
        "import torch\ntorch.distributed.all_reduce(t)\n",
        "def f(torch):\n    torch.distributed.all_reduce_coalesced(ts)\n",
    ]
    # (the `nn.init` aliases without `_` have a hand rule now, ADV772, which takes them.)
    invalid = [
        Example(
            "import torch\ntorch.distributed.all_reduce_coalesced(ts)\n",
            message="`torch.distributed.all_reduce_coalesced` is deprecated",
            line=2,
            column=1,
            target="2.15",
        ),
        Example(
            "from torch.distributed import all_reduce_coalesced as arc\narc(ts)\n",
            message="is deprecated",
            target="2.15",
        ),
        Example(
            "import torch\nwith torch.autograd.profiler_legacy.profile() as p:\n    pass\n",
            message="documented as deprecated, but never warns",
            target="2.15",
        ),
    ]
