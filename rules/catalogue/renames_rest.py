"""Deprecated names with no replacement, found by the coverage ledger (#40): one row of data each (see
`advisor.rule.table`)."""

from __future__ import annotations

from advisor.rule import NONE, Entry, Row, generate

TABLE: tuple[Row, ...] = (
    Row(
        "ADV159",
        "set-vital",
        (Entry("torch.set_vital", None),),
        "From 2.12 `torch.set_vital` is no longer the C++ function: the module's `__getattr__` warns UserWarning "
        "\"'set_vital' is deprecated, please do not call\" and returns a function that does nothing "
        "(`2.12.0 torch/__init__.py`, `2.15.0 torch/__init__.py:3463-3467`); before 2.12 it recorded a vital. "
        "Truth: K-159/set-vital.",
        fix=NONE,
        fix_note="no automatic fix: from 2.12 the call does nothing, so deleting it changes nothing there; on "
        "older torch it still records the vital.",
        advice="delete the call (it does nothing from 2.12)",
        message="`torch.set_vital` is deprecated from 2.12 and does nothing (UserWarning); delete the call",
        deprecated_in="2.12",
    ),
    Row(
        "ADV733",
        "routed-decoder",
        (
            Entry("torch.utils.data.datapipes.iter.RoutedDecoder", None),
            Entry("torch.utils.data.datapipes.iter.routeddecoder.RoutedDecoderIterDataPipe", None),
        ),
        'FutureWarning on every construction in every 2.x release: "`RoutedDecoderIterDataPipe()` and its functional '
        "API `.routed_decode()` are deprecated since 1.12 and will be removed in 1.13. See "
        'https://github.com/pytorch/data/issues/163 for details." (`2.15.0 '
        "torch/utils/data/datapipes/iter/routeddecoder.py:51-56`, through `_deprecation_warning`, "
        "`datapipes/utils/common.py:315`). Truth: K-733/routed-decoder.",
        fix=NONE,
        fix_note="no automatic fix: torch has no replacement; decode in a `Mapper` (`dp.map(decode_fn)`).",
        advice="decode the (path, stream) pairs in your own `dp.map(...)` function",
        message="`{old}` is deprecated (FutureWarning on every construction) and has no replacement in torch; decode "
        "in your own `dp.map(...)`",
        deprecated_in="2.0",
    ),
)

generate(TABLE, globals())
