from typing import Any

from advisor.rule import Example, ReferenceRule, Severity, bool_value, get_arg

VIDEO = ("Kinetics", "HMDB51", "UCF101")
NAMES = {
    **{f"torchvision.datasets.{n}": n for n in VIDEO},
    "torchvision.datasets.video_utils.VideoClips": "VideoClips",
    "torchvision.datasets.LFWPeople": "LFWPeople",
    "torchvision.datasets.LFWPairs": "LFWPairs",
}


class TorchvisionDatasets(ReferenceRule):
    """Video datasets need TorchCodec from torchvision 0.26; `LFWPeople/LFWPairs(download=True)` raises from 0.23.

    What it finds: calls of `torchvision.datasets.Kinetics`, `HMDB51`, `UCF101` and
    `datasets.video_utils.VideoClips`; and `LFWPeople` / `LFWPairs` with `download=True`
    (keyword, or the 6th positional argument).

    Why: from 0.26.0 the video datasets decode through TorchCodec and raise "ImportError: Video
    decoding capabilities were removed from torchvision and migrated to TorchCodec" without it
    (`[tv 0.26.0] torchvision/datasets/video_utils.py:13-21`); from 0.23.0 LFW's `download=True`
    raises "ValueError: LFW dataset is no longer available for automatic download"
    (`[tv 0.29.2] torchvision/datasets/lfw.py:53-59`).

    Fix safety: no automatic fix: add the `torchcodec` dependency; download LFW by hand (the
    error message names a mirror).
    """

    code = "ADV922"
    statement_local = True  # the call's own arguments
    name = "torchvision-dataset-change"
    message = "torchvision dataset behaviour change"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.15"
    triggers = ("Kinetics", "HMDB51", "UCF101", "VideoClips", "LFWPeople", "LFWPairs")
    names = NAMES
    valid = [
        "from torchvision.datasets import LFWPeople\nds = LFWPeople('data', download=False)\n",
        "from torchvision.datasets import CIFAR10\nds = CIFAR10('data', download=True)\n",
    ]
    invalid = [
        Example(
            "from torchvision.datasets import Kinetics\nds = Kinetics('data', frames_per_clip=8)\n",
            message="torchcodec",
            line=2,
            column=6,
        ),
        Example(
            "import torchvision\nds = torchvision.datasets.LFWPairs('data', download=True)\n",
            message="no longer available for automatic download",
        ),
        Example(
            "from torchvision.datasets import LFWPeople\nds = LFWPeople('d', '10fold', 'funneled', None, None, True)\n"
        ),
    ]

    def on_call(self, node: Any, qualname: str) -> None:
        short = NAMES[qualname]
        if short.startswith("LFW"):
            arg = get_arg(node, "download", 5)
            if arg is not None and bool_value(arg.value) is not False:
                self.report(
                    node,
                    f'`{short}(download=...)`: from torchvision 0.23 `download=True` raises "LFW dataset '
                    'is no longer available for automatic download": download it by hand',
                    data={"library": self.library, "api": qualname, "window": {"removed_in": "0.23"}},
                )
            return
        self.report(
            node,
            f"`{short}` decodes video through TorchCodec from torchvision 0.26 and raises ImportError "
            "without it: add the `torchcodec` package",
            data={"library": self.library, "api": qualname},
        )

    def on_reference(self, node: Any, qualname: str) -> None:
        pass  # only constructing the dataset decodes or downloads
