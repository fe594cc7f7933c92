from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Window

from ._config_keys import ConfigKeys, Key


class DynamoFaithfulGeneratorFlag(ConfigKeys):
    """`torch._dynamo.config.enable_faithful_generator_behavior` is a deprecated no-op from 2.14.

    What it finds: the flag read or assigned (through any alias), in
    `torch._dynamo.config.patch(enable_faithful_generator_behavior=...)` and
    in `patch("enable_faithful_generator_behavior", ...)`.

    Why: from 2.14 generators are always traced lazily; the flag does nothing
    and warns FutureWarning. On 2.13 `= False` still changed tracing. Verified
    on the wheels: tests/truth D14-8/enable_faithful_generator_behavior.

    Example:
        torch._dynamo.config.enable_faithful_generator_behavior = False
        # becomes: (delete the line)

    Fix safety: no automatic fix: deleting the setting changes tracing on 2.13.

    Validation: none.
    """

    code = "ADV752"
    name = "dynamo-faithful-generator-flag"
    message = (
        "`torch._dynamo.config.enable_faithful_generator_behavior` is deprecated since 2.14 and does nothing "
        "(generators are always traced lazily; FutureWarning); delete the setting"
    )
    severity = Severity.WARNING
    deprecated_in = "2.14"
    fix = Applicability.NONE
    module = "torch._dynamo.config"
    keys = {"enable_faithful_generator_behavior": Key(Window(deprecated_in="2.14"), message)}
    triggers = ("enable_faithful_generator_behavior",)
    targets = ("torch._dynamo.config",)
    valid = ["import torch\ntorch._dynamo.config.inline_inbuilt_nn_modules = True\n"]
    invalid = [
        Example(
            "import torch\ntorch._dynamo.config.enable_faithful_generator_behavior = False\n",
            message="deprecated since 2.14",
            line=2,
            column=1,
            target="2.14",
        ),
        Example(
            "import torch\n@torch._dynamo.config.patch(enable_faithful_generator_behavior=False)\ndef f(): ...\n",
            target="2.14",
        ),
        Example(
            'import torch._dynamo\nwith torch._dynamo.config.patch("enable_faithful_generator_behavior", True):\n'
            "    pass\n",
            target="2.14",
        ),
    ]
