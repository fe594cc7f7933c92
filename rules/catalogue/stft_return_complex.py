from __future__ import annotations

from advisor.rule import CODE_ONLY, TEXT_GAPS, Example, Rule, Severity, bool_value, calls_to, get_arg

TARGETS = ("torch.stft", "torch.functional.stft")


class StftReturnComplexFalse(Rule):
    """`torch.stft(..., return_complex=False)` is deprecated: take the complex result and `torch.view_as_real` it.

    What it finds: calls of `torch.stft` that pass `return_complex=False` (a literal),
    through aliases and imports.

    Why: UserWarning from C++: "stft with return_complex=False is deprecated. In a
    future pytorch release, stft will return complex tensors for all inputs, and
    return_complex=False will raise an error. Note: you can still call
    torch.view_as_real on the complex output to recover the old return format."

    Example:
        spec = torch.stft(x, 400, return_complex=False)
        # becomes
        spec = torch.view_as_real(torch.stft(x, 400, return_complex=True))

    Fix safety: no automatic fix: `view_as_real` of the complex result has the old
    layout, but the rewrite nests the call, and code that already handles both forms
    should be simplified by hand.

    Verified: the text is in `libtorch_cpu` of the 2.0.0, 2.12.0, 2.13.0 and 2.15.0
    wheels (strings of the binary); runtime on 2.13 (`warnings.simplefilter("always")`).
    Truth: K-793/stft-return-complex-false.

    Validation: none.
    """

    code = "ADV793"
    name = "stft-return-complex-false"
    message = (
        "`torch.stft(..., return_complex=False)` is deprecated (UserWarning; a future release raises): use "
        "`torch.view_as_real(torch.stft(..., return_complex=True))`"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    triggers = ("return_complex",)
    targets = TARGETS
    may_match_refers = True  # its own `may_match` asks Rule.may_match first

    @classmethod
    def may_match(cls, refs) -> bool:
        # What it reports: a call that may be `torch.stft` passing `return_complex=False`, a literal
        if not super().may_match(refs):
            return False
        return any(
            k.arg == "return_complex" and type(k.value).__name__ == "Constant" and k.value.value is False
            for call in calls_to(refs, TARGETS)
            for k in call.keywords
        )

    @classmethod
    def text_gate(cls):
        # and, besides the reference, `return_complex=False` in code (parentheses and gaps between)
        g = TEXT_GAPS
        return cls.text_gate_with(rf"{CODE_ONLY}return_complex(?<=\breturn_complex){g}=(?!=){g}(?:\({g})*False\b")

    valid = [
        "import torch\ns = torch.stft(x, 400, return_complex=True)\n",
        "import librosa\ns = librosa.stft(x, return_complex=False)\n",
        "import torch\ndef stft(x, return_complex=False):\n    return torch.stft(x, 400, return_complex=return_complex)\n",
        "import torchaudio\nt = torchaudio.transforms.Spectrogram(return_complex=False)\n",
    ]
    invalid = [
        Example(
            "import torch\ns = torch.stft(x, 400, return_complex=False)\n",
            message="return_complex=False",
            line=2,
            column=5,
        ),
        Example("import torch as th\ns = th.stft(x, n_fft=512, hop_length=128, window=w, return_complex=False)\n"),
    ]

    def visit_Call(self, node) -> None:
        if not self.match(node.func, TARGETS):
            return
        arg = get_arg(node, "return_complex")
        if arg is not None and arg.keyword is not None and bool_value(arg.value) is False:
            self.report(node)
