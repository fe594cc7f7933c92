from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_V2 = "torchvision.transforms.v2"


class TorchvisionV2ToTensor(CompanionRefs):
    """`transforms.v2.ToTensor`, `v2.functional.to_tensor`, `v2.functional.get_image_size` (deprecated).

    What it finds: references to the three v2 APIs that warn "is deprecated and will be
    removed in a future release" in every torchvision from 0.15 to 0.29.2
    (`torchvision/transforms/v2/_deprecated.py:42`, `v2/functional/_deprecated.py:12,20`).
    The v1 `torchvision.transforms.ToTensor` / `functional.to_tensor` are not deprecated and are
    not flagged.

    Why: torchvision's own replacement text. `get_size` returns `[h, w]` where
    `get_image_size` returned `[w, h]`: a plain rename swaps width and height.

    Fix safety: no automatic fix. `ToTensor()` → `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32,
    scale=True)])` is "equivalent up to float precision" (torchvision's words), not identical;
    `get_image_size(x)` → `get_size(x)[::-1]` keeps the order. Both replacements exist from 0.16.
    This covers TorchFix's TOR202 (which sees only `v2.ToTensor`).
    """

    code = "ADV911"
    name = "torchvision-v2-to-tensor"
    message = "deprecated in torchvision.transforms.v2"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.16"
    deprecated_in = "0.15"
    triggers = ("ToTensor", "to_tensor", "get_image_size")
    apis = {
        f"{_V2}.ToTensor": "`v2.ToTensor` is deprecated: use `v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, "
        "scale=True)])` (equivalent up to float precision)",
        f"{_V2}.functional.to_tensor": "`v2.functional.to_tensor` is deprecated: use `to_dtype(to_image(x), "
        "dtype=torch.float32, scale=True)` from `torchvision.transforms.v2.functional`",
        f"{_V2}.functional.get_image_size": "`v2.functional.get_image_size` is deprecated: `get_size(x)` returns "
        "[h, w], not [w, h]; `get_size(x)[::-1]` keeps the old order",
    }
    valid = [
        "import torchvision.transforms as T\nt = T.ToTensor()\n",
        "from torchvision.transforms.functional import to_tensor\nto_tensor(img)\n",
        "from torchvision.transforms import v2\nt = v2.Compose([v2.ToImage(), v2.ToDtype(torch.float32, scale=True)])\n",
    ]
    invalid = [
        Example("from torchvision.transforms import v2\nt = v2.ToTensor()\n", message="v2.ToImage()", line=2, column=5),
        Example("from torchvision.transforms.v2 import ToTensor\n", line=1, column=39),
        Example("import torchvision.transforms.v2.functional as F\nw, h = F.get_image_size(img)\n", message="[h, w]"),
        Example("from torchvision.transforms.v2 import functional as F\nx = F.to_tensor(img)\n", message="to_image"),
    ]
