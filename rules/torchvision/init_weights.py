from typing import Any

from advisor.rule import Applicability, Example, ReferenceRule, Severity, append_args, get_arg, kwarg

NAMES = {
    "torchvision.models.googlenet": "GoogLeNet",
    "torchvision.models.googlenet.googlenet": "GoogLeNet",
    "torchvision.models.GoogLeNet": "GoogLeNet",
    "torchvision.models.googlenet.GoogLeNet": "GoogLeNet",
    "torchvision.models.inception_v3": "Inception3",
    "torchvision.models.inception.inception_v3": "Inception3",
    "torchvision.models.Inception3": "Inception3",
    "torchvision.models.inception.Inception3": "Inception3",
}

INIT_POSITION = {"GoogLeNet": 3, "Inception3": 4}


class TorchvisionInitWeights(ReferenceRule):
    """`googlenet()` / `inception_v3()` without `init_weights`: a FutureWarning about the default init.

    What it finds: calls of `torchvision.models.googlenet`, `inception_v3`, `GoogLeNet` and
    `Inception3` that pass no `init_weights` and no weights (no `weights=` / `pretrained=` other
    than `None` / `False`, no positional argument to a builder, fewer than 4 / 5 positional
    arguments to the classes).

    Why: every torchvision from 0.15 to 0.29.2 warns (FutureWarning) "The default weight
    initialization of GoogleNet will be changed in future releases of torchvision. If you wish
    to keep the old behavior (which leads to long initialization times due to scipy/scipy#11299),
    please set init_weights=True." (`torchvision/models/googlenet.py:47`, `inception.py:43`).

    Fix safety: safe: `init_weights=True` is what the model does today when it is left out, so
    adding it keeps the behaviour and silences the warning.
    """

    code = "ADV920"
    name = "torchvision-init-weights"
    message = "the default weight initialization of {m} will change: pass `init_weights=True` to keep it"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.15"
    deprecated_in = "0.15"  # present in 0.15.2, the oldest wheel read
    fix = Applicability.SAFE
    triggers = ("googlenet", "inception_v3", "GoogLeNet", "Inception3")
    names = NAMES
    valid = [
        "import torchvision\nm = torchvision.models.googlenet(init_weights=False)\n",
        "from torchvision.models import inception_v3, Inception_V3_Weights\n"
        "m = inception_v3(weights=Inception_V3_Weights.IMAGENET1K_V1)\n",
        "import torchvision\nm = torchvision.models.googlenet(pretrained=True)\n",
        "import torchvision\nm = torchvision.models.GoogLeNet(10, True, False, False)\n",
    ]
    invalid = [
        Example(
            "import torchvision\nm = torchvision.models.googlenet()\n",
            fixed="import torchvision\nm = torchvision.models.googlenet(init_weights=True)\n",
            message="GoogLeNet will change",
            line=2,
            column=5,
        ),
        Example(
            "from torchvision.models import Inception3\nm = Inception3(10, aux_logits=False)\n",
            fixed="from torchvision.models import Inception3\nm = Inception3(10, aux_logits=False, init_weights=True)\n",
        ),
    ]

    def on_call(self, node: Any, qualname: str) -> None:
        cls = NAMES[qualname]
        # the classes take `init_weights` at position 3 (GoogLeNet) / 4 (Inception3); a builder's
        # first positional argument is `weights`
        position = INIT_POSITION[cls] if qualname.endswith(cls) else None
        positional = [a for a in node.args if a.keyword is None]
        if any(a.star for a in node.args) or get_arg(node, "init_weights", position) is not None:
            return
        if positional and position is None:
            return
        for kw in ("weights", "pretrained"):
            arg = get_arg(node, kw)
            if arg is not None and not (hasattr(arg.value, "value") and arg.value.value in ("None", "False")):
                return  # weights are loaded: the builder sets init_weights=False itself
        self.report(node, self.message.format(m=cls), replacement=append_args(node, [kwarg("init_weights", "True")]))

    def on_reference(self, node: Any, qualname: str) -> None:
        pass  # only calls build a model
