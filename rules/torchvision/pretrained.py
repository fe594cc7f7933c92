from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, bool_value, cst, rewrite_reference, string_value

from ._weights import BY_MODULE

PACKAGES = ("models", "detection", "optical_flow", "quantization", "segmentation", "video")


def _aliases() -> dict[str, dict]:
    """Every qualified name of a builder: its defining module's and its package's (star import)."""
    table = dict(BY_MODULE)
    for name, params in BY_MODULE.items():
        module, builder = name.rsplit(".", 1)
        package = module.rsplit(".", 1)[0]
        if not module.endswith("backbone_utils"):  # no package star-imports backbone_utils
            table[f"{package}.{builder}"] = params
        if module.endswith((".mobilenetv2", ".mobilenetv3")):  # `models.mobilenet` star-imports both
            table[f"{package}.mobilenet.{builder}"] = params
    return table


BUILDERS = _aliases()


class TorchvisionPretrained(Rule):
    """`pretrained=` / `pretrained_backbone=` (and bool `weights=`) on torchvision model builders.

    What it finds: calls of the 123 builders decorated with `handle_legacy_interface`
    (classification, detection, segmentation, video, optical flow, quantization and
    `detection.backbone_utils`) that pass `pretrained=` / `pretrained_backbone=`, a bool as
    `weights=` / `weights_backbone=`, or positional arguments.

    Why: deprecated since torchvision 0.13 (UserWarning "The parameter 'pretrained' is deprecated
    since 0.13 and may be removed in the future, please use 'weights' instead.",
    `torchvision/models/_utils.py:207` in 0.29.2). The replacement that keeps behaviour is the
    value in each builder's decorator, usually `<Builder>_Weights.IMAGENET1K_V1`, never
    `.DEFAULT`: for 42 (builder, parameter) pairs, such as resnet50, DEFAULT is a newer
    checkpoint (`IMAGENET1K_V2`) with other outputs. The map in `_weights.py` is generated from
    the decorators (tools/tv_legacy_weights.py) and identical in 0.19.0 and 0.29.2.

    Compared with TorchFix's TOR201: quantization builders pick `*_QuantizedWeights` when
    `quantize=True`; `keypointrcnn_resnet50_fpn` and `backbone_utils` are covered; the second
    positional argument is `progress` (TOR201 took it for `pretrained_backbone` and dropped the
    ImageNet backbone); calls with more positional arguments are reported, not rewritten into
    invalid code.

    Fix safety: safe for the literals `True` / `False` (and `"legacy"` for keypointrcnn): the
    fix writes exactly what the decorator would pass; positional arguments 0 and 1 become
    `weights=` and `progress=`. A non-literal value, a `quantize=` that is not a literal, a
    builder whose legacy weights depend on `backbone_name`, or a third positional argument:
    reported with the exact replacement, no fix. `vit_h_14` and `regnet_y_128gf` had no legacy
    weights (`pretrained=True` raises ValueError): only `False` is rewritten. A call that passes
    both `pretrained=` and `weights=` is reported without a fix.

    Validation: `vision_weights` compares the `*_V1` weights with `pretrained=True`.
    """

    code = "ADV910"
    name = "torchvision-pretrained"
    message = "`pretrained=` is deprecated since torchvision 0.13"
    library = "torchvision"
    severity = Severity.WARNING
    since = "0.13"
    deprecated_in = "0.13"
    fix = Applicability.SAFE
    validation = "vision_weights"
    triggers = ("torchvision",)
    targets = tuple(BUILDERS)
    valid = [
        "from torchvision.models import resnet50, ResNet50_Weights\nm = resnet50(weights=ResNet50_Weights.IMAGENET1K_V1)\n",
        "import timm\nm = timm.create_model('resnet50', pretrained=True)\n",
        "import torchvision\nm = torchvision.models.resnet50(weights=None, progress=False)\n",
    ]
    invalid = [
        Example(
            "import torchvision\nm = torchvision.models.resnet50(pretrained=True)\n",
            fixed="import torchvision\nm = torchvision.models.resnet50(weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V1)\n",
            message="IMAGENET1K_V1",
            line=2,
            column=5,
        ),
        Example(
            "from torchvision.models import resnet18\nm = resnet18(pretrained=False)\n",
            fixed="from torchvision.models import resnet18\nm = resnet18(weights=None)\n",
        ),
        Example(
            "from torchvision.models import detection\nm = detection.fasterrcnn_resnet50_fpn(False, False)\n",
            fixed="from torchvision.models import detection\nm = detection.fasterrcnn_resnet50_fpn(weights=None, progress=False)\n",
        ),
        Example(
            "import torchvision.models as models\nm = models.resnet50(False, True)\n",
            fixed="import torchvision.models as models\nm = models.resnet50(weights=None, progress=True)\n",
        ),
        Example(
            "import torchvision.models.quantization as q\nm = q.resnet50(pretrained=True, quantize=True)\n",
            fixed="import torchvision.models.quantization as q\n"
            "m = q.resnet50(weights=q.ResNet50_QuantizedWeights.IMAGENET1K_FBGEMM_V1, quantize=True)\n",
        ),
        Example(
            "from torchvision.models.detection import keypointrcnn_resnet50_fpn as k\n"
            "m = k(pretrained=True, pretrained_backbone=False)\n",
            fixed="import torchvision\nfrom torchvision.models.detection import keypointrcnn_resnet50_fpn as k\n\n"
            "m = k(weights=torchvision.models.detection.KeypointRCNN_ResNet50_FPN_Weights.COCO_V1, weights_backbone=None)\n",
        ),
        Example(
            "import torchvision\nm = torchvision.models.resnet18(weights=True)\n",
            fixed="import torchvision\nm = torchvision.models.resnet18(weights=torchvision.models.ResNet18_Weights.IMAGENET1K_V1)\n",
        ),
        Example(
            "import torchvision\nm = torchvision.models.resnet50(pretrained=flag)\n",
            message="`weights=torchvision.models.ResNet50_Weights.IMAGENET1K_V1 if flag else None`",
        ),
        Example("import torchvision\nm = torchvision.models.resnet50(True, True, 10)\n", message="positional"),
        Example(
            "import torchvision\nm = torchvision.models.resnet50(pretrained=True, weights=w)\n",
            fixed="import torchvision\nm = torchvision.models.resnet50(pretrained=True, weights=w)\n",
        ),
        Example("import torchvision\nm = torchvision.models.vit_h_14(pretrained=True)\n", message="no legacy weights"),
        Example(
            "from torchvision.models.mobilenet import mobilenet_v2\nm = mobilenet_v2(pretrained=False)\n",
            fixed="from torchvision.models.mobilenet import mobilenet_v2\nm = mobilenet_v2(weights=None)\n",
        ),
        Example(
            "from torchvision.models.detection.backbone_utils import resnet_fpn_backbone as r\nb = r('resnet50', True)\n",
            message="by keyword",
        ),
    ]

    def visit_Call(self, node: Any) -> None:
        qualname = self.match(node.func, BUILDERS)
        if qualname is None or any(a.star for a in node.args):
            return
        spec = BUILDERS[qualname]
        dynamic = any("dynamic" in extras for _, _, extras in spec.values())
        notes: list[str] = []
        new_args: list[Any] = []
        imports: list = []
        fixable = True
        positional = [a for a in node.args if a.keyword is None]
        if len(positional) > 2 and not dynamic:
            notes.append(
                "positional arguments are deprecated since 0.13; beyond the first two (`weights`, "
                "`progress`) their order depends on the builder: pass them by keyword"
            )
            fixable = False
        elif positional and dynamic:  # keyword-only since 0.13: `backbone_name`, `weights`, ...
            notes.append(
                "positional arguments are deprecated since 0.13: pass `backbone_name=`, `weights=` ... by keyword"
            )
            fixable = False
        for index, arg in enumerate(node.args):
            position = index if arg.keyword is None and not dynamic else None
            new, note, needs = self._convert(node, spec, arg, position)
            if note:
                notes.append(note)
            fixable = fixable and new is not None
            new_args.append(new or arg)
            imports += needs
        if not notes:
            return
        # For the `vision_weights` check: builders whose plain `pretrained=True` the fix reproduces.
        weights = spec.get("weights")
        data = {
            "library": self.library,
            "builder": qualname,
            "weights": [weights[1]] if weights and weights[1] and not weights[2] else [],
        }
        keywords = [a.keyword.value for a in new_args if a.keyword is not None]
        fixable = fixable and len(keywords) == len(set(keywords))  # `pretrained=` next to `weights=`: a person decides
        if fixable:
            self.report(
                node, "; ".join(notes), replacement=node.with_changes(args=new_args), add_imports=imports, data=data
            )
        else:
            self.report(node, "; ".join(notes), data=data)

    def _convert(self, call: Any, spec: dict, arg: Any, position: int | None) -> tuple[Any, str | None, list]:
        """(the Arg to write instead, None when it cannot be rewritten; a note when deprecated; imports)."""
        if position == 1:
            return arg.with_changes(keyword=cst.Name("progress"), equal=_equal()), None, []
        keyword = "weights" if position == 0 else (arg.keyword.value if arg.keyword else None)
        for new_param, (old, default, extras) in spec.items():  # noqa: B007 (used after the break)
            if keyword in (old, new_param):
                break
        else:
            return arg, None, []
        if keyword == new_param and position is None and bool_value(arg.value) is None:
            return arg, None, []  # an enum, None, or a string name: not deprecated
        shown = "a positional `weights`" if position == 0 else f"`{keyword}=`"
        head = f"{shown} is deprecated since torchvision 0.13"
        choice = self._choice(call, default, extras, arg.value)
        if "dynamic" in extras:
            return (
                None,
                f"{head}: the legacy weights depend on `backbone_name`; pass `{new_param}=<enum member>` or `None`",
                [],
            )
        if choice is _NO_WEIGHTS:
            return (
                None,
                f"{head}, and this builder has no legacy weights (`pretrained=True` raises ValueError): pass `{new_param}=None`",
                [],
            )
        if choice is _UNKNOWN:
            spelled = self._text(call, default) if default else "None"
            note = f"{head}: pass `{new_param}={spelled} if {self.ctx.code_for(arg.value)} else None` (what `pretrained=True` loads; `.DEFAULT` may be a newer checkpoint)"
            if "quantize" in extras:
                note += f"; with `quantize=True`: `{self._text(call, extras['quantize'])}`"
            return None, note, []
        value, imports = rewrite_reference(self.ctx.resolver, call.func, choice) if choice else (cst.Name("None"), [])
        new = arg.with_changes(keyword=cst.Name(new_param), value=value, equal=arg.equal if arg.keyword else _equal())
        text = self.ctx.module.code_for_node(value)
        return (
            new,
            f"{head}: use `{new_param}={text}` (what the old call loads; `.DEFAULT` may be a newer checkpoint)",
            imports,
        )

    def _text(self, call: Any, qualname: str) -> str:
        return self.ctx.module.code_for_node(rewrite_reference(self.ctx.resolver, call.func, qualname)[0])

    def _choice(self, call: Any, default: Any, extras: dict, value: Any) -> Any:
        flag = bool_value(value)
        if "legacy" in extras and string_value(value) == "legacy":
            return extras["legacy"]
        if flag is None:
            return _UNKNOWN
        if not flag:
            return None
        if default is None and "dynamic" not in extras:
            return _NO_WEIGHTS
        if "quantize" in extras:
            q = next((a for a in call.args if a.keyword and a.keyword.value == "quantize"), None)
            quantize = False if q is None else bool_value(q.value)
            if quantize is None:
                return _UNKNOWN
            return extras["quantize"] if quantize else default
        return default


_UNKNOWN, _NO_WEIGHTS = object(), object()


def _equal() -> Any:
    """`=` without spaces, as keyword arguments are written."""
    return cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace(""))
