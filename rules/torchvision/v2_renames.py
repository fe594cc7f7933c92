from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule

from ._v2_renames import all_renames


def _symbols() -> dict:
    table = {}
    for old, (new, exact) in all_renames().items():
        short_old, short_new = old.rsplit(".", 1)[1], new.rsplit(".", 1)[1]
        if exact:
            table[old] = Symbol(
                f"`{short_old}` was renamed `{short_new}` in torchvision 0.16 (the 0.15 beta name is gone)",
                replacement=new,
            )
        elif short_new.startswith(("to_dtype", "ToDtype")):
            table[old] = Symbol(
                f"`{short_old}` was removed in torchvision 0.16: use `{short_new}(..., scale=True)` "
                "(without `scale=True` values are not rescaled)"
            )
        else:
            table[old] = Symbol(
                f"`{short_old}` was removed in torchvision 0.16 (the PIL kernel is private now): "
                f"call the dispatcher `{short_new}`, which accepts PIL images"
            )
    return table


class TorchvisionV2Renames(SymbolRule):
    """transforms.v2 names of the 0.15 beta that torchvision 0.16 renamed (89 names).

    What it finds: the five v2 classes (`ClampBoundingBox`, `SanitizeBoundingBox`,
    `ToImageTensor`, `ToImagePIL`, `ConvertDtype`) and the 84 `v2.functional` kernels
    (`*_image_tensor`, `*_image_pil`, `*_bounding_box`, `get_spatial_size*`, `convert_dtype*`,
    `to_image_tensor`, `to_image_pil`, `is_simple_tensor`) that 0.16.0 renamed.

    Why: the beta names raise ImportError / AttributeError from 0.16 on; every replacement
    exists from 0.16.0 to 0.29.2 (tests/truth/test_companion_truth.py checks both sides in the wheels).

    Fix safety: safe for the pure renames (`resize_image_tensor` → `resize_image`,
    `ClampBoundingBox` → `ClampBoundingBoxes`, ...), written the way the file imports things.
    `ConvertDtype` / `convert_dtype*` → `ToDtype` / `to_dtype*` need `scale=True` to keep the
    old rescaling, and the `*_image_pil` kernels became private (the dispatcher takes PIL
    images): those are reported with the replacement, not rewritten.
    """

    code = "ADV913"
    name = "torchvision-v2-renames"
    message = "renamed in torchvision 0.16"
    library = "torchvision"
    severity = Severity.ERROR
    since = "0.16"
    removed_in = "0.16"
    fix = Applicability.SAFE
    triggers = ("v2",)
    names = _symbols()
    valid = [
        "from torchvision.transforms.v2 import functional as F\ny = F.resize_image(x, [2, 2])\n",
        "from torchvision.transforms import v2\nt = v2.ClampBoundingBoxes()\n",
    ]
    invalid = [
        Example(
            "from torchvision.transforms.v2 import functional as F\ny = F.resize_image_tensor(x, [2, 2])\n",
            fixed="from torchvision.transforms.v2 import functional as F\ny = F.resize_image(x, [2, 2])\n",
            message="renamed `resize_image`",
            line=2,
            column=5,
        ),
        Example(
            "from torchvision.transforms import v2\nt = v2.ClampBoundingBox()\n",
            fixed="from torchvision.transforms import v2\nt = v2.ClampBoundingBoxes()\n",
        ),
        Example("from torchvision.transforms import v2\nt = v2.ConvertDtype(torch.float32)\n", message="scale=True"),
        Example(
            "import torchvision.transforms.v2.functional as F\ny = F.resize_image_pil(img, [2, 2])\n",
            message="dispatcher `resize`",
        ),
    ]
