from __future__ import annotations

from advisor.rule import (
    Applicability,
    Example,
    ReferenceRule,
    Severity,
    has_star_args,
    positional,
    prepend_args,
    rewrite_reference,
)

# old torch.* function -> (new torch.* function, device_type): the 14 texts of the 2.4 binary.
_DEVICES = {"gpu": "cuda", "cpu": "cpu", "xla": "xla", "ipu": "ipu"}
OLD: dict[str, tuple[str, str]] = {}
for _short, _device in _DEVICES.items():
    OLD[f"torch.get_autocast_{_short}_dtype"] = ("torch.get_autocast_dtype", _device)
    OLD[f"torch.set_autocast_{_short}_dtype"] = ("torch.set_autocast_dtype", _device)
    if _short != "gpu":  # the CUDA ones are the device-less `is_autocast_enabled()` / `set_autocast_enabled(b)`
        OLD[f"torch.is_autocast_{_short}_enabled"] = ("torch.is_autocast_enabled", _device)
        OLD[f"torch.set_autocast_{_short}_enabled"] = ("torch.set_autocast_enabled", _device)


class AutocastDeviceType(ReferenceRule):
    """`torch.get_autocast_gpu_dtype()`, `is_autocast_cpu_enabled()`, ... -> the `device_type` forms (2.4).

    What it finds: calls of (and references to) the per-device autocast
    queries and setters: `torch.get_autocast_{gpu,cpu,xla,ipu}_dtype`,
    `set_autocast_{gpu,cpu,xla,ipu}_dtype`, `is_autocast_{cpu,xla,ipu}_enabled`
    and `set_autocast_{cpu,xla,ipu}_enabled`, through aliases and imports.

    Why: from 2.4 each warns DeprecationWarning from C++ (`TORCH_WARN_DEPRECATION`, so
    the Python sources never show it): "torch.get_autocast_gpu_dtype() is deprecated.
    Please use torch.get_autocast_dtype('cuda') instead." (likewise for the others,
    `gpu` meaning 'cuda'). The device-less `torch.is_autocast_enabled()` and
    `torch.set_autocast_enabled(bool)` still mean CUDA and do not warn (2.13 runtime).

    Example:
        dtype = torch.get_autocast_gpu_dtype()
        # becomes
        dtype = torch.get_autocast_dtype("cuda")

    Fix safety: safe where the lowest supported torch is 2.4 or newer (the `device_type`
    forms are new in 2.4; below that the fix is unsafe and the message says so). The
    old function is the new one with its device fixed: the device string is put first
    and the other arguments are kept. Calls with `*args` and bare references are
    reported without a fix.

    Verified: the 14 warning texts are in `libtorch_python` of the 2.4.0 to 2.15.0
    wheels and in none before (strings of the binary); `get_autocast_dtype(device_type)`,
    `set_autocast_dtype(device_type, dtype)`, `is_autocast_enabled(device_type)` and
    `set_autocast_enabled(device_type, enabled)` first appear in `torch/_C/__init__.pyi`
    of the 2.4.0 wheel. Truth (runtime, `warnings.simplefilter("always")`): K-776/*, the
    warning and that the new form returns the same value.

    Validation: none.

    Window: C++ warnings: C++ text "torch.get_autocast_gpu_dtype() is deprecated." and its siblings
    (libtorch_python, 2.4.0-2.15.0; docs/evidence/torch-cxx-texts.json), one per function.
    """

    code = "ADV776"
    statement_local = True  # a reference or a call's own arguments
    name = "autocast-device-type"
    message = '`{old}` is deprecated since 2.4 (DeprecationWarning); use `{new}("{device}"{rest})`'
    severity = Severity.WARNING
    since = "2.4"
    deprecated_in = "2.4"
    window_exceptions = {
        "deprecated_in": 'C++ warnings: C++ text "torch.get_autocast_gpu_dtype() is deprecated." and its siblings\n(libtorch_python, 2.4.0-2.15.0; docs/evidence/torch-cxx-texts.json), one per function.',
    }
    fix = Applicability.SAFE
    triggers = tuple(sorted(o.rpartition(".")[2] for o in OLD))
    names = OLD

    valid = [
        "import torch\ndtype = torch.get_autocast_dtype('cuda')\n",
        "import torch\non = torch.is_autocast_enabled()\n",  # the CUDA query without a device: not deprecated
        "import torch\ntorch.set_autocast_enabled(False)\n",
        "import intel_extension_for_pytorch as ipex\nd = ipex.get_autocast_cpu_dtype()\n",
        "def f(torch):\n    return torch.get_autocast_gpu_dtype()\n",
    ]
    invalid = [
        Example(
            "import torch\ndtype = torch.get_autocast_gpu_dtype()\n",
            fixed='import torch\ndtype = torch.get_autocast_dtype("cuda")\n',
            message="`torch.get_autocast_gpu_dtype` is deprecated since 2.4",
            line=2,
            column=9,
        ),
        Example(
            "import torch\ntorch.set_autocast_gpu_dtype(torch.bfloat16)\n",
            fixed='import torch\ntorch.set_autocast_dtype("cuda", torch.bfloat16)\n',
        ),
        Example(
            "from torch import is_autocast_cpu_enabled as on\nif on():\n    pass\n",
            fixed='import torch\n\nif torch.is_autocast_enabled("cpu"):\n    pass\n',
        ),
        Example(
            "import torch as th\nth.set_autocast_cpu_enabled(True)\n",
            fixed='import torch as th\nth.set_autocast_enabled("cpu", True)\n',
        ),
        Example("import torch\nquery = torch.get_autocast_cpu_dtype\n"),
        Example(
            "import torch\nif not hasattr(torch, 'get_autocast_dtype'):\n    d = torch.get_autocast_gpu_dtype()\n",
            message="compat fallback",
            line=3,
        ),
    ]

    def on_call(self, node, old) -> None:
        new, device = OLD[old]
        message = _message(old)
        if has_star_args(node):
            self.report(node, message)
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, new)
        replacement = prepend_args(node.with_changes(func=func), [positional(f'"{device}"')])
        self.report(node, message, replacement=replacement, add_imports=imports)

    def on_reference(self, node, old) -> None:
        self.report(node, _message(old))


def _message(old: str) -> str:
    new, device = OLD[old]
    return AutocastDeviceType.message.format(old=old, new=new, device=device, rest=", ..." if ".set_" in old else "")
