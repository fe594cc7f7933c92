from __future__ import annotations

from typing import Any

from advisor.rule import Applicability, Example, Severity, cst, get_arg

from .._bound import BoundNames

_MODULES = ("torch.ao.quantization.quantize_fx", "torch.quantization.quantize_fx")
# Each FX entry point: the parameters that take a config object or (deprecated) a dict, and their positions.
_PARAMS = {
    "prepare_fx": {
        "qconfig_mapping": 1,
        "prepare_custom_config": 3,
        "_equalization_config": 4,
        "backend_config": 5,
    },
    "prepare_qat_fx": {"qconfig_mapping": 1, "prepare_custom_config": 3, "backend_config": 4},
    "convert_fx": {"convert_custom_config": 1, "qconfig_mapping": 3, "backend_config": 4},
    "convert_to_reference_fx": {"convert_custom_config": 1, "qconfig_mapping": 3, "backend_config": 4},
    "fuse_fx": {"fuse_custom_config": 1, "backend_config": 2},
}
_TARGETS = tuple(f"{m}.{f}" for m in _MODULES for f in _PARAMS)
# What each parameter takes instead of a dict (the `from_dict` of each class converts an old dict).
_CLASS = {
    "qconfig_mapping": "QConfigMapping",
    "_equalization_config": "QConfigMapping",
    "prepare_custom_config": "PrepareCustomConfig",
    "convert_custom_config": "ConvertCustomConfig",
    "fuse_custom_config": "FuseCustomConfig",
    "backend_config": "BackendConfig",
}


def _is_dict(value: Any) -> bool:
    if isinstance(value, (cst.Dict, cst.DictComp)):
        return True
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict"


class FxQuantDictConfig(BoundNames):
    """A dict passed as a config to the FX quantization entry points is deprecated: pass the config object.

    What it finds: `prepare_fx`, `prepare_qat_fx`, `convert_fx`, `convert_to_reference_fx` and
    `fuse_fx` (from `torch.ao.quantization.quantize_fx` or the old `torch.quantization.quantize_fx`,
    however imported) given a dict (a `{...}` display, a dict comprehension or a `dict(...)` call, at
    the call or bound to a name in the same function) as `qconfig_mapping`, `prepare_custom_config`,
    `_equalization_config`, `convert_custom_config`, `fuse_custom_config` or `backend_config`, by
    keyword or by position. A name bound to anything else, or of unknown origin, is not reported.

    Why: each of these converts a dict with `<Class>.from_dict` and warns "Passing a QConfig
    dictionary to prepare is deprecated and will not be supported in a future version. Please pass
    in a QConfigMapping instead." (and the same for the custom configs and the backend config),
    UserWarning in 2.0-2.3 and FutureWarning from 2.4 (`2.0.0 ao/quantization/fx/prepare.py`,
    `2.15.0 ao/quantization/fx/prepare.py:2004-2040`, `fx/convert.py:1074-1104`, `fx/fuse.py:42-58`,
    `quantize_fx.py:116,228,533`).

    Example:
        m = prepare_fx(model, {"": qconfig}, example_inputs)
        # becomes
        m = prepare_fx(model, QConfigMapping.from_dict({"": qconfig}), example_inputs)
        # or QConfigMapping().set_global(qconfig)

    Window: the warnings are raised inside `torch.ao.quantization.fx` (where the API index records
    them, on each parameter), not by the entry points that pass the dict on.

    Fix safety: none automatic: `<Class>.from_dict(d)` is what torch does with the dict, and exists
    in every 2.x release, but the class must be imported.
    Verified: torch 2.13.0 CPU and 2.15.0 at run time. Truth: K-160/fx-dict-config.
    Validation: none.
    """

    code = "ADV160"
    name = "fx-quant-dict-config"
    message = (
        "a dict as `{param}=` of `{func}` is deprecated (a warning in every 2.x); pass `{cls}.from_dict(...)` instead"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.NONE
    triggers = tuple(_PARAMS)
    targets = _TARGETS

    valid = [
        "from torch.ao.quantization import QConfigMapping\nfrom torch.ao.quantization.quantize_fx import prepare_fx\n"
        "m = prepare_fx(model, QConfigMapping().set_global(q), example_inputs)\n",
        "from torch.ao.quantization.quantize_fx import convert_fx\nm = convert_fx(prepared)\n",
        "from torch.ao.quantization.quantize_fx import prepare_fx\ndef f(model, qconfig_mapping, x):\n"
        "    return prepare_fx(model, qconfig_mapping, x)\n",
        "from torch.ao.quantization.quantize_fx import prepare_fx\nq = {'': qc}\nq = QConfigMapping.from_dict(q)\n"
        "m = prepare_fx(model, q, x)\n",
        # another library's prepare_fx
        "from mylib.quant import prepare_fx\nm = prepare_fx(model, {'': qc}, x)\n",
    ]
    invalid = [
        Example(
            "from torch.ao.quantization.quantize_fx import prepare_fx\nm = prepare_fx(model, {'': qconfig}, x)\n",
            message="a dict as `qconfig_mapping=` of `torch.ao.quantization.quantize_fx.prepare_fx` is deprecated",
            line=2,
            column=5,
        ),
        Example(
            "import torch.quantization.quantize_fx as qfx\n\ndef run(model, x):\n    qconfig_dict = {'': qc}\n"
            "    return qfx.prepare_qat_fx(model, qconfig_dict, x)\n",
            message="`qconfig_mapping=` of `torch.quantization.quantize_fx.prepare_qat_fx`",
        ),
        Example(
            "from torch.ao.quantization import quantize_fx\nq = quantize_fx.convert_fx(m, convert_custom_config=dict(a=1))\n",
            message="pass `ConvertCustomConfig.from_dict(...)` instead",
        ),
        Example(
            "from torch.ao.quantization.quantize_fx import fuse_fx\nm = fuse_fx(model, {'preserved_attributes': ['a']})\n"
        ),
        Example(
            "from torch.ao.quantization.quantize_fx import prepare_fx\n"
            "m = prepare_fx(model, qm, x, _equalization_config={'': eq})\n",
            message="`_equalization_config=`",
        ),
    ]

    def visit_Call(self, node: Any) -> None:
        func = self.match(node.func, _TARGETS)
        if func is None:
            return
        for param, position in _PARAMS[func.rpartition(".")[2]].items():
            arg = get_arg(node, param, position)
            if arg is None:
                continue
            value = arg.value
            if _is_dict(value) or self.bound(value) is not None:
                self.report(node, self.message.format(param=param, func=func, cls=_CLASS[param]))
                return

    def bound_call(self, value: Any) -> str | None:
        return "dict" if _is_dict(value) else None
