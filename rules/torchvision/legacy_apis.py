from advisor.rule import Example, Severity

from .._companion import CompanionRefs

# Modules whose `model_urls` dict is absent from 0.15.1 on (the oldest wheel read); only
# `models.video.resnet.model_urls` survives, as a deprecated wrapper.
ARCHS = (
    "alexnet",
    "densenet",
    "googlenet",
    "inception",
    "mnasnet",
    "mobilenetv2",
    "mobilenetv3",
    "resnet",
    "shufflenetv2",
    "squeezenet",
    "vgg",
    "segmentation.deeplabv3",
    "segmentation.fcn",
    "detection.faster_rcnn",
    "detection.mask_rcnn",
    "detection.keypoint_rcnn",
    "detection.retinanet",
)
_V2 = "torchvision.transforms.v2"


def _apis() -> dict[str, str]:
    out = {
        f"torchvision.models.{a}.model_urls": "`{name}` is gone (by torchvision 0.15): use the weights enum's `.url`, "
        "e.g. `ResNet50_Weights.IMAGENET1K_V1.url` (the V1 weights are what `pretrained=True` loaded)"
        for a in ARCHS
    }
    out["torchvision.models.video.resnet.model_urls"] = (
        "`model_urls` is deprecated since torchvision 0.13: use `R3D_18_Weights.KINETICS400_V1.url` "
        "(`MC3_18_Weights`, `R2Plus1D_18_Weights` for the other keys)"
    )
    for m in ("_functional_video", "_transforms_video"):
        out[f"torchvision.transforms.{m}"] = (
            f"`torchvision.transforms.{m}` is deprecated since torchvision 0.12: use `torchvision.transforms.v2`, "
            "which handles `tv_tensors.Video` and 4-D tensors (the `*Video` classes have no 1:1 names)"
        )
    out[f"{_V2}.ConvertImageDtype"] = (
        "`v2.ConvertImageDtype` is deprecated in the docs (no warning, 0.16+): use `v2.ToDtype(dtype, scale=True)`"
    )
    out[f"{_V2}.functional.convert_image_dtype"] = (
        "`v2.functional.convert_image_dtype` is deprecated in the docs "
        "(no warning, 0.16+): use `to_dtype(x, dtype, scale=True)`"
    )
    return out


class TorchvisionLegacyApis(CompanionRefs):
    """Older torchvision leftovers: `model_urls`, `_functional_video` / `_transforms_video`, v2 `ConvertImageDtype`.

    What it finds: `torchvision.models.<arch>.model_urls` (gone from every wheel from 0.15 on;
    the per-architecture V1 equivalence is inferred from the `pretrained=True` mapping, so the
    message names the enum, not a key); `torchvision.models.video.resnet.model_urls`
    (deprecated since 0.13: "Accessing the model URLs via the internal dictionary of the module
    is deprecated since 0.13", `models/_utils.py:251` in 0.29.2); the private
    `torchvision.transforms._functional_video` / `_transforms_video` (warn on import since 0.12:
    `_functional_video.py:6`, `_transforms_video.py:22`); and v2 `ConvertImageDtype` /
    `functional.convert_image_dtype`, deprecated in their docstrings since 0.16 without a warning
    (`v2/_misc.py:325-326` in 0.29.2). The v1 `torchvision.transforms.ConvertImageDtype` is not flagged.

    Why: each either fails already or is scheduled to go; the messages give the replacement.

    Fix safety: no automatic fix: a `model_urls[key]` rewrite needs the key's enum, and the
    video transforms have no 1:1 names.
    """

    code = "ADV921"
    name = "torchvision-legacy-api"
    message = "legacy torchvision API"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.15"
    deprecated_in = "0.13"
    triggers = ("model_urls", "_functional_video", "_transforms_video", "ConvertImageDtype", "convert_image_dtype")
    apis = _apis()
    entry_windows = {
        **{f"torchvision.models.{a}.model_urls": {"deprecated_in": None, "removed_in": "0.15"} for a in ARCHS},
        "torchvision.transforms._functional_video": {"deprecated_in": "0.12"},
        "torchvision.transforms._transforms_video": {"deprecated_in": "0.12"},
        f"{_V2}.ConvertImageDtype": {"deprecated_in": None},  # docs only: advice
        f"{_V2}.functional.convert_image_dtype": {"deprecated_in": None},
    }
    valid = [
        "import torchvision.transforms as T\nt = T.ConvertImageDtype(torch.float32)\n",
        "from torchvision.models import ResNet50_Weights\nurl = ResNet50_Weights.IMAGENET1K_V1.url\n",
    ]
    invalid = [
        Example(
            "from torchvision.models.resnet import model_urls\nurl = model_urls['resnet50']\n",
            message="ResNet50_Weights.IMAGENET1K_V1.url",
            line=1,
            column=39,
        ),
        Example(
            "import torchvision\nurl = torchvision.models.video.resnet.model_urls['r3d_18']\n", message="KINETICS400_V1"
        ),
        Example("import torchvision.transforms._transforms_video as tv\n", message="transforms.v2"),
        Example(
            "from torchvision.transforms import v2\nt = v2.ConvertImageDtype(torch.float32)\n", message="scale=True"
        ),
    ]
