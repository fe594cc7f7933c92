from typing import Any

from advisor.rule import Example, ReferenceRule, Severity, bool_value, get_arg

IGNORED = {
    "torchaudio.load": ("format", "buffer_size", "backend"),
    "torchaudio.save": ("format", "encoding", "bits_per_sample", "buffer_size", "backend"),
}


class TorchaudioLoadSave(ReferenceRule):
    """`torchaudio.load` / `torchaudio.save` need TorchCodec from torchaudio 2.9 and ignore some arguments.

    What it finds: calls of `torchaudio.load` and `torchaudio.save`, naming the arguments that
    2.9+ ignores: `normalize=False` (load), `format`, `buffer_size`, `backend` (load and save),
    `encoding`, `bits_per_sample` (save).

    Why: from 2.9 (torch 2.9; torch 2.12–2.15 get 2.11.1, the same code) `load` / `save` only
    call `load_with_torchcodec` / `save_with_torchcodec` (`torchaudio/__init__.py:86,178`,
    `_torchcodec.py:80-113,244-289` in 2.9.0 and 2.11.1). Without the `torchcodec` package
    they raise "ImportError: TorchCodec is required for load_with_torchcodec", and torchaudio
    does not depend on it. `normalize=False` is ignored: the result is float32 in [-1, 1],
    where int16 PCM was returned before. torchaudio 2.8 warns about the change.

    Fix safety: no automatic fix: dropping `backend=` / `buffer_size=` is harmless only once
    the lowest torchaudio is 2.9, and `normalize=False` changes the dtype. Add `torchcodec` to
    the requirements.

    Validation: `audio_io` checks that load/save work on the upgraded machine, that TorchCodec
    is installed, and that dtype, shape and sample rate match on a generated WAV.
    """

    code = "ADV952"
    statement_local = True  # the call's own arguments
    name = "torchaudio-load-save-torchcodec"
    message = (
        "from torchaudio 2.9 this calls TorchCodec: add the `torchcodec` package (torchaudio does not depend on it)"
    )
    library = "torchaudio"
    severity = Severity.WARNING
    since = "2.8"  # load_with_torchcodec / save_with_torchcodec exist from 2.8
    deprecated_in = "2.8"
    validation = "audio_io"
    triggers = ("torchaudio",)
    names = set(IGNORED)
    valid = ["import soundfile\nx, sr = soundfile.read('a.wav')\n", "from torchaudio import functional\n"]
    invalid = [
        Example("import torchaudio\nwav, sr = torchaudio.load('a.wav')\n", message="torchcodec", line=2, column=11),
        Example(
            "import torchaudio\nwav, sr = torchaudio.load('a.wav', normalize=False)\n", message="float32 in [-1, 1]"
        ),
        Example(
            "from torchaudio import save\nsave('o.flac', wav, 16000, bits_per_sample=16, backend='sox')\n",
            message="`bits_per_sample`, `backend`",
        ),
    ]

    def on_call(self, node: Any, qualname: str) -> None:
        notes = [self.message]
        norm = get_arg(node, "normalize", 3) if qualname == "torchaudio.load" else None
        if norm is not None and bool_value(norm.value) is not True:
            notes.append(
                "`normalize=False` is ignored: the result is always float32 in [-1, 1] (scale by 32768 and "
                "cast to int16 if you need PCM)"
            )
        ignored = [k for k in IGNORED[qualname] if get_arg(node, k) is not None]
        if ignored:
            notes.append(
                "ignored from 2.9: " + ", ".join(f"`{k}`" for k in ignored) + " (the format follows the file extension)"
            )
        self.report(node, "; ".join(notes), data={"library": self.library, "api": qualname})
