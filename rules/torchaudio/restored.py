from typing import Any

from advisor.rule import Example, Severity

from .._companion import CompanionRefs


_KEPT = "warns on torchaudio 2.8–2.9 but is kept (the removal was undone in 2.10): no action needed"


class TorchaudioRestored(CompanionRefs):
    """`forced_align`, `rnnt_loss`, `RNNTLoss`, `cuda_ctc_decoder`: warn in torchaudio 2.8–2.9, kept in 2.10.

    What it finds: `torchaudio.functional.forced_align`, `torchaudio.functional.rnnt_loss`,
    `torchaudio.transforms.RNNTLoss`, `torchaudio.models.decoder.cuda_ctc_decoder`,
    `CUCTCDecoder`, `CUCTCHypothesis`, on targets where they warn.

    Why: 2.8.0 and 2.9.x warn "... It will be removed from the 2.9 release", but 2.10.0
    exports them again without a warning (pytorch/audio#4147, "Undo dropping support for
    forced_align and rnnt_loss"); 2.11.1 still has them. A rule that called them removed would
    make users rewrite working code. Reported only while the target is in 2.8–2.9
    (`undeprecated_in = "2.10"`), as a note.

    Fix safety: no fix, ever: nothing needs to change; upgrading to torchaudio >= 2.10 silences it.
    """

    code = "ADV953"
    name = "torchaudio-kept-api"
    message = _KEPT
    library = "torchaudio"
    severity = Severity.INFO
    since = "2.8"
    deprecated_in = "2.8"
    undeprecated_in = "2.10"
    triggers = ("forced_align", "rnnt_loss", "RNNTLoss", "cuda_ctc_decoder", "CUCTCDecoder", "CUCTCHypothesis")
    apis = {
        **{f"torchaudio.functional.{n}": "`{name}` " + _KEPT for n in ("forced_align", "rnnt_loss")},
        "torchaudio.transforms.RNNTLoss": "`{name}` " + _KEPT,
        **{
            f"torchaudio.models.decoder.{n}": "`{name}` " + _KEPT
            for n in ("cuda_ctc_decoder", "CUCTCDecoder", "CUCTCHypothesis")
        },
    }
    valid = ["import torchaudio\nloss = torchaudio.transforms.RNNTLoss()\n"]  # newest target: kept, no finding
    invalid = [
        Example("import torchaudio.functional as F\nF.forced_align(e, t)\n", target="2.9", message="no action"),
        Example("from torchaudio.transforms import RNNTLoss\n", target="2.8"),
    ]

    def found(self, node: Any, key: str, qualname: str) -> None:
        # Until the central policy compares `undeprecated_in` with the torchaudio target, the
        # torch target stands in for it: torch 2.x brings torchaudio 2.x up to 2.11 (facts §5).
        if self.target_at_least(self.undeprecated_in) or not self.target_at_least(self.deprecated_in):
            return
        super().found(node, key, qualname)
