"""Data of rules/catalogue/renames_known.py: window fields the wheels' API index cannot settle, with their evidence.

Each is ("field" or "old-name field", why): the reason is added to the rule's docs (tests/rules/test_windows_against_wheels.py).
"""

from __future__ import annotations

# ADV785: the functions `@deprecated(DEPRECATION_WARNING)` decorates in 2.8-2.15, where each module defines or
# re-exports them.
_EAGER = ("prepare", "quantize", "quantize_dynamic", "prepare_qat", "quantize_qat", "convert")
_FX = ("prepare_fx", "prepare_qat_fx", "convert_fx")
QUANT = tuple(
    (f"torch.{ns}", _EAGER)
    for ns in ("ao.quantization", "ao.quantization.quantize", "quantization", "quantization.quantize")
) + tuple((f"torch.{ns}.quantize_fx", _FX) for ns in ("ao.quantization", "quantization"))

EXC_773 = (
    (
        "deprecated_in",
        "a method's warning: `FullyShardedDataParallel.set_state_dict_type` warns (`2.4.0 "
        "torch/distributed/fsdp/fully_sharded_data_parallel.py:689-694`), and `state_dict_type` calls it; the "
        "API index records no warnings of class methods.",
    ),
)

EXC_775 = (
    (
        "deprecated_in",
        "the warning goes through a helper, `_check_verbose_deprecated_warning` (`2.2.0 "
        "torch/optim/lr_scheduler.py:25-31`), which the API index does not follow.",
    ),
    (
        "removed_in",
        "the miner does not record removed parameters: `verbose` is simply absent from the 2.7.0 wheel's "
        "scheduler signatures (torch/optim/lr_scheduler.py).",
    ),
)
