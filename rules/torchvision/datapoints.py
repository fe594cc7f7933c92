from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_HEAD = "`{name}`: `torchvision.datapoints` became `torchvision.tv_tensors` in 0.16 (removed): "


class TorchvisionDatapoints(CompanionRefs):
    """`torchvision.datapoints` (0.15 beta) is `torchvision.tv_tensors` since 0.16.

    What it finds: imports of and references to `torchvision.datapoints` and its names.

    Why: `from torchvision import datapoints` raises ImportError from 0.16.0 on. The names
    changed too (wheel diff 0.15.2 → 0.16.0): `BoundingBox` → `BoundingBoxes` (its
    `spatial_size=` / `.spatial_size` → `canvas_size`), `Datapoint` → `TVTensor`; `Image`,
    `Video`, `Mask`, `BoundingBoxFormat` keep their names.

    Fix safety: no automatic fix yet: the module rename is mechanical for `Image`, `Video`,
    `Mask` and `BoundingBoxFormat`, but `BoundingBox(...)` also needs its keyword renamed, so
    each message gives the exact replacement.
    """

    code = "ADV916"
    name = "torchvision-datapoints"
    message = "renamed to torchvision.tv_tensors in 0.16"
    library = "torchvision"
    severity = Severity.ERROR
    since = "0.16"
    removed_in = "0.16"
    triggers = ("datapoints",)
    apis = {
        "torchvision.datapoints": _HEAD + "import from `torchvision.tv_tensors` (`Image`, `Video`, `Mask`, "
        "`BoundingBoxFormat` keep their names)",
        "torchvision.datapoints.BoundingBox": _HEAD + "use `torchvision.tv_tensors.BoundingBoxes` and rename "
        "`spatial_size=` to `canvas_size=`",
        "torchvision.datapoints.Datapoint": _HEAD + "use `torchvision.tv_tensors.TVTensor`",
    }
    valid = ["from torchvision import tv_tensors\nb = tv_tensors.BoundingBoxes(x, format='XYXY', canvas_size=(4, 4))\n"]
    invalid = [
        Example(
            "from torchvision import datapoints\nb = datapoints.BoundingBox(x, format='XYXY', spatial_size=(4, 4))\n",
            line=1,
            column=25,
            message="tv_tensors",
        ),
        Example(
            "import torchvision\nb = torchvision.datapoints.BoundingBox(x, format='XYXY', spatial_size=(4, 4))\n",
            message="canvas_size=",
        ),
        Example("from torchvision.datapoints import Image, BoundingBox\n", count=2),
    ]
