from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_MSG = (
    "`{name}`: the module was removed in torchvision 0.17 (deprecated in 0.15): import from "
    "`torchvision.transforms.functional` (or `torchvision.transforms.v2.functional`); e.g. "
    "`from torchvision.transforms.functional import rgb_to_grayscale`"
)


class TorchvisionFunctionalTensor(CompanionRefs):
    """`torchvision.transforms.functional_tensor` / `functional_pil` were removed in 0.17.

    What it finds: imports of and references to the two modules.

    Why: deprecated in 0.15 ("The torchvision.transforms.functional_tensor module is deprecated
    in 0.15 and will be **removed in 0.17**", `[tv 0.16.0] torchvision/transforms/functional_tensor.py`),
    absent from 0.17.0 on: `from torchvision.transforms.functional_tensor import rgb_to_grayscale`
    raises ModuleNotFoundError, the classic failure of old super-resolution code (basicsr).

    Fix safety: no automatic fix: only names that `torchvision.transforms.functional` defines
    with the same signature move over (`rgb_to_grayscale` does); kernel helpers became private
    (`_functional_tensor`), which is not a supported import.
    """

    code = "ADV915"
    name = "torchvision-functional-tensor"
    message = "removed in torchvision 0.17"
    library = "torchvision"
    severity = Severity.ERROR
    since = "0.15"
    deprecated_in = "0.15"
    removed_in = "0.17"
    triggers = ("functional_tensor", "functional_pil")
    apis = {"torchvision.transforms.functional_tensor": _MSG, "torchvision.transforms.functional_pil": _MSG}
    valid = [
        "from torchvision.transforms.functional import rgb_to_grayscale\n",
        "from torchvision.transforms import _functional_tensor\n",
    ]
    invalid = [
        Example(
            "from torchvision.transforms.functional_tensor import rgb_to_grayscale\n",
            line=1,
            column=6,
            message="removed in torchvision 0.17",
        ),
        Example("import torchvision.transforms.functional_pil as F_pil\n"),
    ]
