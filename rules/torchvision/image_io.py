from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_GUIDE = "https://meta-pytorch.org/torchcodec/0.16/generated_examples/migration/torchvision_migration.html"
_DECODERS = ("decode_image", "decode_jpeg", "decode_png")
_OTHERS = (
    "read_file",
    "write_file",
    "encode_png",
    "write_png",
    "encode_jpeg",
    "write_jpeg",
    "read_image",
    "decode_gif",
    "decode_webp",
    "decode_avif",
    "decode_heic",
)


def _apis() -> dict[str, str]:
    head = "`{name}` is deprecated since torchvision 0.29 (DeprecationWarning): "
    out = {}
    for module in ("torchvision.io", "torchvision.io.image"):
        for n in _DECODERS:
            out[f"{module}.{n}"] = (
                head + f"use `torchcodec.decoders.{n}` (TorchCodec >= 0.16, torch >= 2.11; check "
                "`mode=`, `apply_exif_orientation`, `device=`)"
            )
        for n in _OTHERS:
            out[f"{module}.{n}"] = head + f"TorchCodec >= 0.16 supersedes it, see {_GUIDE}"
        out[f"{module}.ImageReadMode"] = (
            '`{name}` is deprecated in torchvision 0.29 docs ("[DEPRECATED] Use '
            'TorchCodec instead.", no warning): decoders accept string modes (`mode="RGB"`) since 0.20'
        )
    return out


class TorchvisionImageIO(CompanionRefs):
    """torchvision's image decoding/encoding (`decode_image`, `read_image`, `encode_jpeg`, ...) is deprecated in 0.29.

    What it finds: the 14 functions of `torchvision.io` / `torchvision.io.image` (`read_file`,
    `write_file`, `decode_png`, `encode_png`, `write_png`, `decode_jpeg`, `encode_jpeg`,
    `write_jpeg`, `decode_image`, `read_image`, `decode_gif`, `decode_webp`, `decode_avif`,
    `decode_heic`) and `ImageReadMode` (deprecated in its docstring only).

    Why: torchvision 0.29 (torch 2.14) warns "The image decoding and encoding capabilities of
    TorchVision are deprecated since torchvision 0.29 and will be removed in a future release"
    (`torchvision/io/image.py:21-33`, absent in 0.28.0). The warning is a DeprecationWarning
    without stacklevel, hidden under default filters: users see it only under pytest or `-W`.

    Fix safety: no automatic fix: the replacement needs a new dependency (`torchcodec>=0.16`,
    which needs torch >= 2.11), and argument parity is not verified. TorchCodec's encoder names
    are not verified either, so only the decoders are named.
    """

    code = "ADV914"
    name = "torchvision-image-io"
    message = "deprecated since torchvision 0.29"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.15"  # the replacement is TorchCodec, not torchvision
    deprecated_in = "0.29"
    triggers = ("torchvision",)
    apis = _apis()
    entry_windows = {
        "torchvision.io.ImageReadMode": {"deprecated_in": None},
        "torchvision.io.image.ImageReadMode": {"deprecated_in": None},
    }  # docs only: advice
    valid = [
        "from torchcodec.decoders import decode_image\nimg = decode_image('a.jpg')\n",
        "from PIL import Image\nimg = Image.open('a.jpg')\n",
    ]
    invalid = [
        Example(
            "from torchvision.io import decode_image\nimg = decode_image('a.jpg')\n",
            message="torchcodec.decoders.decode_image",
            line=1,
            column=28,
        ),
        Example("import torchvision\nimg = torchvision.io.read_image('a.jpg')\n", message="TorchCodec >= 0.16"),
        Example("import torchvision.io as tio\nm = tio.ImageReadMode.RGB\n", message="string modes"),
    ]
