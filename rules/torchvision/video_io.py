from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_GONE = "removed in torchvision 0.26 (deprecated in 0.22): "
_PORT = "port to TorchCodec (`torchcodec.decoders.VideoDecoder` / `AudioDecoder`; frames come NCHW, indexing and timestamps differ)"


class TorchvisionVideoIO(CompanionRefs):
    """torchvision's video decoding/encoding (`read_video`, `write_video`, `VideoReader`) is gone in 0.26.

    What it finds: `torchvision.io.read_video`, `read_video_timestamps`, `write_video`,
    `VideoReader`, the modules `torchvision.io.video` / `video_reader`, their private helpers
    (`_read_video_from_file`, `_probe_video_from_file`, `VideoMetaData`, ...), and the
    `torchvision.datasets.video_utils` re-exports (`read_video`, `read_video_timestamps`,
    `pts_convert`).

    Why: deprecated in 0.22 (torch 2.7: "The video decoding and encoding capabilities of
    torchvision are deprecated from version 0.22 ..."), removed from the PyPI wheels in 0.26
    (torch 2.11): `from torchvision.io import read_video` raises ImportError
    (`torchvision/io/__init__.py` in 0.26.0 imports them only from Meta's internal build).
    In 0.28+ `import torchvision.io.video` raises `No module named 'pytorch'`.

    Fix safety: no automatic fix: TorchCodec's API has no 1:1 mapping (layout, seeking,
    timestamps). Add the `torchcodec` dependency and port.
    """

    code = "ADV912"
    name = "torchvision-video-io"
    message = "removed in torchvision 0.26"
    library = "torchvision"
    severity = Severity.ERROR
    since = "0.15"  # nothing in torchvision replaces it (the oldest version in scope)
    deprecated_in = "0.22"
    removed_in = "0.26"
    triggers = ("torchvision",)
    apis = {
        **{
            f"torchvision.io.{n}": f"`{{name}}` was {_GONE}{_PORT}"
            for n in (
                "read_video",
                "read_video_timestamps",
                "write_video",
                "VideoReader",
                "video",
                "video_reader",
                "_read_video_from_file",
                "_read_video_timestamps_from_file",
                "_probe_video_from_file",
                "_read_video_from_memory",
                "_read_video_timestamps_from_memory",
                "_probe_video_from_memory",
                "_HAS_VIDEO_OPT",
                "VideoMetaData",
                "Timebase",
            )
        },
        **{
            f"torchvision.datasets.video_utils.{n}": f"`{{name}}` was {_GONE}{_PORT}"
            for n in (
                "read_video",
                "read_video_timestamps",
                "pts_convert",
            )
        },
    }
    valid = [
        "from torchcodec.decoders import VideoDecoder\nd = VideoDecoder('a.mp4')\n",
        "import torchvision.io as io\nimg = io.decode_image(data)\n",
        "import av\nav.io.read_video('a.mp4')\n",
    ]
    invalid = [
        Example(
            "from torchvision.io import read_video\nv, a, info = read_video('a.mp4')\n",
            message="TorchCodec",
            line=1,
            column=28,
        ),
        Example("import torchvision\nr = torchvision.io.VideoReader('a.mp4', 'video')\n", line=2, column=5),
        Example("import torchvision.io.video as tv_video\n", message="torchvision.io.video"),
        Example("from torchvision.datasets.video_utils import read_video\n"),
    ]
