from advisor.rule import Example, Severity

from .._companion import CompanionRefs


class TorchvisionPrototype(CompanionRefs):
    """`torchvision.prototype` is not in the torchvision wheels (it never was a stable API).

    What it finds: imports of and references to `torchvision.prototype` and anything under it.

    Why: the PyPI wheels shipped `torchvision/prototype/` only in 0.16.0 and 0.22.x; it is absent
    from 0.17–0.21 and from 0.23 on (directory listings of the wheels; checked by
    tests/truth/test_companion_truth.py), so `import torchvision.prototype` raises ModuleNotFoundError
    on every torchvision from 0.23 (torch 2.8) up to 0.29.

    Fix safety: no automatic fix: the prototype APIs have no stable replacement.
    """

    code = "ADV919"
    name = "torchvision-prototype"
    message = "`torchvision.prototype` is not in the torchvision wheels"
    library = "torchvision"
    severity = Severity.ERROR
    since = "0.15"
    removed_in = "0.17"  # back in 0.22.x only, gone again from 0.23
    triggers = ("prototype",)
    apis = {
        "torchvision.prototype": "`{name}`: `torchvision.prototype` shipped only in the 0.16.0 and 0.22.x "
        "wheels (never a stable API) and is absent from 0.23 on: vendor the code you need"
    }
    valid = ["from torchvision.transforms import v2\n"]
    invalid = [
        Example("from torchvision.prototype import datasets\n", line=1, column=6, message="0.16.0 and 0.22.x"),
        Example("import torchvision.prototype.models.depth.stereo as s\n"),
    ]
