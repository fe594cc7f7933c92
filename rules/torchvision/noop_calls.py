from advisor.rule import Applicability, Example, Severity

from .._companion import NoopCalls


class TorchvisionNoopCalls(NoopCalls):
    """`torchvision.disable_beta_transforms_warning()` and `set_video_backend(...)` do nothing.

    What it finds: calls of `torchvision.disable_beta_transforms_warning` (a no-op since 0.16:
    "Noop, only exists to avoid breaking existing code", `torchvision/__init__.py:79-82` in
    0.29.2) and `torchvision.set_video_backend` (its body is `pass` from 0.26.0 on,
    `[tv 0.26.0] torchvision/__init__.py:43-52`; `get_video_backend()` always returns "pyav").

    Why: dead calls; `set_video_backend("video_reader")` no longer selects anything, so code
    that relied on it reads video through TorchCodec now (ADV912).

    Fix safety: safe: a call that is a statement of its own is deleted (`pass` when it is
    alone in its block or carries comments). Deleting `set_video_backend` is unsafe: it is
    only behaviour-preserving when the project's lowest torchvision is >= 0.26 (before, the
    call selected a backend or raised for a missing one).
    """

    code = "ADV917"
    name = "torchvision-noop-call"
    message = "no-op call: delete it"
    library = "torchvision"
    severity = Severity.INFO
    since = "0.16"
    fix = Applicability.SAFE
    triggers = ("disable_beta_transforms_warning", "set_video_backend")
    noops = {
        "torchvision.disable_beta_transforms_warning": "`disable_beta_transforms_warning()` is a no-op since "
        "torchvision 0.16: delete the call",
        "torchvision.set_video_backend": "`set_video_backend` is a no-op since torchvision 0.26 (video decoding moved "
        "to TorchCodec): delete the call",
    }
    unsafe_noops = frozenset({"torchvision.set_video_backend"})
    valid = ["import torchvision\nb = torchvision.get_image_backend()\n"]
    invalid = [
        Example(
            "import torchvision\ntorchvision.disable_beta_transforms_warning()\nfrom torchvision.transforms import v2\n",
            fixed="import torchvision\nfrom torchvision.transforms import v2\n",
            line=2,
            column=1,
        ),
        Example(
            "import torchvision\nif ok:\n    torchvision.set_video_backend('video_reader')  # fast\n",
            fixed="import torchvision\nif ok:\n    pass  # fast\n",
            message="0.26",
        ),
    ]
