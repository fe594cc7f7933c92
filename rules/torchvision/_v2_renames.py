"""The transforms.v2 names torchvision 0.16.0 removed (0.15 beta API), and what replaces each.

The old names are the miner's `removed` items between 0.15.1 and 0.16.0; the replacement
rules are those of the facts file (TV-R11, TV-R12). tests/truth/test_companion_truth.py checks
that every old name is bound in 0.15.1 and not in 0.16.0, and every new one in 0.16.0 and 0.29.2.
"""

V2 = "torchvision.transforms.v2"
F = f"{V2}.functional"

CLASSES = {  # old -> (new, exact rename?)
    "ClampBoundingBox": ("ClampBoundingBoxes", True),
    "SanitizeBoundingBox": ("SanitizeBoundingBoxes", True),
    "ToImageTensor": ("ToImage", True),
    "ToImagePIL": ("ToPILImage", True),
    "ConvertDtype": ("ToDtype", False),  # ToDtype(dtype, scale=True) keeps the old scaling
}

_OPS = (
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "adjust_sharpness",
    "affine",
    "autocontrast",
    "center_crop",
    "crop",
    "elastic",
    "equalize",
    "erase",
    "five_crop",
    "gaussian_blur",
    "get_dimensions",
    "get_num_channels",
    "horizontal_flip",
    "invert",
    "pad",
    "perspective",
    "posterize",
    "resize",
    "resized_crop",
    "rgb_to_grayscale",
    "rotate",
    "solarize",
    "ten_crop",
    "vertical_flip",
)
_BOXES = (
    "affine",
    "center_crop",
    "crop",
    "elastic",
    "horizontal_flip",
    "pad",
    "perspective",
    "resize",
    "resized_crop",
    "rotate",
    "vertical_flip",
)


def functional_renames() -> dict[str, tuple[str, bool]]:
    """old functional name -> (replacement, exact rename?); inexact: advice only."""
    table: dict[str, tuple[str, bool]] = {}
    for op in _OPS:
        table[f"{op}_image_tensor"] = (f"{op}_image", True)
        table[f"{op}_image_pil"] = (op, False)  # the PIL kernel went private: the dispatcher takes PIL images
    for op in _BOXES:
        table[f"{op}_bounding_box"] = (f"{op}_bounding_boxes", True)
    table.update(
        {
            "normalize_image_tensor": ("normalize_image", True),
            "convert_format_bounding_box": ("convert_bounding_box_format", True),
            "clamp_bounding_box": ("clamp_bounding_boxes", True),
            "get_spatial_size": ("get_size", True),
            "get_spatial_size_bounding_box": ("get_size_bounding_boxes", True),
            "get_spatial_size_image_tensor": ("get_size_image", True),
            "get_spatial_size_image_pil": ("get_size", False),
            "get_spatial_size_mask": ("get_size_mask", True),
            "get_spatial_size_video": ("get_size_video", True),
            "convert_dtype": ("to_dtype", False),  # to_dtype(x, dtype, scale=True) keeps the old scaling
            "convert_dtype_image_tensor": ("to_dtype_image", False),
            "convert_dtype_video": ("to_dtype_video", False),
            "to_image_tensor": ("to_image", True),
            "to_image_pil": ("to_pil_image", True),
            "is_simple_tensor": ("is_pure_tensor", True),
        }
    )
    return table


def all_renames() -> dict[str, tuple[str, bool]]:
    """Qualified old name -> (qualified new name, exact rename?)."""
    out = {f"{V2}.{old}": (f"{V2}.{new}", exact) for old, (new, exact) in CLASSES.items()}
    out.update({f"{F}.{old}": (f"{F}.{new}", exact) for old, (new, exact) in functional_renames().items()})
    return out
