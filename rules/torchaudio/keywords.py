from typing import Any

from advisor.rule import Applicability, Example, Rule, Severity, cst, get_arg, string_value

# function -> keyword that has no effect and warns ("... is deprecated ...")
DROPPED = {
    "torchaudio.transforms.Spectrogram": "return_complex",
    "torchaudio.functional.spectrogram": "return_complex",
    "torchaudio.transforms.MelSpectrogram": "onesided",
}
RESAMPLERS = ("torchaudio.functional.resample", "torchaudio.transforms.Resample")
METHODS = {"sinc_interpolation": "sinc_interp_hann", "kaiser_window": "sinc_interp_kaiser"}


class TorchaudioDeprecatedKeywords(Rule):
    """`Spectrogram(return_complex=)`, `MelSpectrogram(onesided=)`, old `resampling_method` names.

    What it finds: `return_complex=` on `torchaudio.transforms.Spectrogram` /
    `torchaudio.functional.spectrogram`, `onesided=` on `torchaudio.transforms.MelSpectrogram`,
    and `resampling_method="sinc_interpolation"` / `"kaiser_window"` on
    `torchaudio.functional.resample` / `torchaudio.transforms.Resample`.

    Why: deprecated before 2.4 and still warning in 2.11.1: "`return_complex` argument is now
    deprecated and is not effective." (`transforms/_transforms.py:94-99`,
    `functional/functional.py:105-110`), "Argument 'onesided' has been deprecated and has no
    influence on the behavior of this module." (`_transforms.py:589-592`), and
    "\"sinc_interpolation\" resampling method name is being deprecated and replaced by
    \"sinc_interp_hann\" in the next release. The default behavior remains unchanged."
    (`functional/functional.py:1326-1336`).

    Fix safety: safe: the two keywords have no effect, so they are dropped; the old method
    names are aliases of `"sinc_interp_hann"` / `"sinc_interp_kaiser"`, so the string is
    replaced. A non-literal method name is not touched.
    """

    code = "ADV954"
    name = "torchaudio-deprecated-keyword"
    message = "deprecated torchaudio keyword"
    library = "torchaudio"
    severity = Severity.WARNING
    since = "2.0"
    deprecated_in = "2.0"  # warned before 2.4 (the oldest wheel read)
    fix = Applicability.SAFE
    triggers = ("return_complex", "onesided", "resampling_method")
    targets = tuple(DROPPED) + RESAMPLERS
    valid = [
        "import torchaudio\nt = torchaudio.transforms.Spectrogram(power=None)\n",
        "import torch\ns = torch.stft(x, 400, return_complex=True)\n",
        "import torchaudio.functional as F\ny = F.resample(x, 8000, 16000, resampling_method='sinc_interp_hann')\n",
    ]
    invalid = [
        Example(
            "import torchaudio\nt = torchaudio.transforms.Spectrogram(power=None, return_complex=True)\n",
            fixed="import torchaudio\nt = torchaudio.transforms.Spectrogram(power=None)\n",
            message="has no effect",
        ),
        Example(
            "from torchaudio.transforms import MelSpectrogram\nm = MelSpectrogram(onesided=True, n_mels=64)\n",
            fixed="from torchaudio.transforms import MelSpectrogram\nm = MelSpectrogram(n_mels=64)\n",
        ),
        Example(
            "import torchaudio.functional as F\ny = F.resample(x, 8000, 16000, resampling_method='kaiser_window')\n",
            fixed="import torchaudio.functional as F\ny = F.resample(x, 8000, 16000, resampling_method='sinc_interp_kaiser')\n",
            message="sinc_interp_kaiser",
            line=2,
            column=5,
        ),
    ]

    def visit_Call(self, node: Any) -> None:
        qualname = self.match(node.func, self.targets)
        if qualname in DROPPED:
            arg = get_arg(node, DROPPED[qualname])
            if arg is not None:
                args = list(node.args)
                index = args.index(arg)
                del args[index]
                if index == len(args) and args:  # it was last: the new last argument takes its comma
                    args[-1] = args[-1].with_changes(comma=arg.comma)
                self.report(
                    node,
                    f"`{arg.keyword.value}=` is deprecated and has no effect: drop it",
                    replacement=node.with_changes(args=args),
                )
        elif qualname in RESAMPLERS:
            arg = get_arg(node, "resampling_method")
            old = string_value(arg.value) if arg is not None else None
            if old in METHODS:
                simple = isinstance(arg.value, cst.SimpleString)
                quote, prefix = (arg.value.quote, arg.value.prefix) if simple else ('"', "")
                new = arg.with_changes(value=cst.SimpleString(f"{prefix}{quote}{METHODS[old]}{quote}"))
                self.report(
                    node,
                    f"`resampling_method={old!r}` is a deprecated alias: use {METHODS[old]!r}",
                    replacement=node.with_changes(args=[new if a is arg else a for a in node.args]),
                )
