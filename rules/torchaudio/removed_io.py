from advisor.rule import Example, Severity

from .._companion import CompanionRefs

_IO = "removed in torchaudio 2.9 (deprecated in 2.8): "
_NONE = "removed in torchaudio 2.9 with no replacement (deprecated in 2.8); "


class TorchaudioRemoved(CompanionRefs):
    """torchaudio 2.9 removed its I/O backends, `torchaudio.io`, sox, kaldi_io and prototype.

    What it finds: any use of an API that torchaudio 2.9 (the version pip installs with torch
    2.9; torch 2.12–2.15 get 2.11.1, which has the same API) removed, with the exact
    replacement where one exists. An import of a removed module or name is reported at the
    import; `torchaudio.info(...)` after `import torchaudio` at the reference.

    Why: "APIs deprecated in version 2.8 have been removed in 2.9" (torchaudio 2.9 docs).
    `from torchaudio import info` raises ImportError, `torchaudio.info` AttributeError,
    `import torchaudio.sox_effects` ModuleNotFoundError (verified on torchaudio 2.11.1).
    Not reported: `functional.forced_align`, `functional.rnnt_loss`, `transforms.RNNTLoss`,
    `models.decoder.cuda_ctc_decoder` / `CUCTC*`, which 2.8/2.9 announced for removal but
    2.10 kept (ADV953). Evidence: each entry is checked against the wheels by
    tests/truth/test_companion_truth.py (present in 2.8.0, gone in 2.9.0 and 2.11.1).

    Fix safety: no automatic fix (ADV951 deletes the no-op calls); TorchCodec's API differs
    in field names and shapes, so each site needs a person.

    Validation: `audio_io` (does TorchCodec-backed load/save work on the upgraded machine).
    """

    code = "ADV950"
    name = "torchaudio-removed-api"
    message = "removed in torchaudio 2.9"
    library = "torchaudio"
    severity = Severity.ERROR
    deprecated_in = "2.8"
    removed_in = "2.9"
    validation = "audio_io"
    triggers = ("torchaudio", "torio")
    apis = {
        "torchaudio.info": _IO + "use `torchcodec.decoders.AudioDecoder(path).metadata` (sample_rate, num_channels, "
        "duration_seconds_from_header; no num_frames/bits_per_sample/encoding)",
        "torchaudio.AudioMetaData": _IO + "use `torchcodec.decoders.AudioStreamMetadata`",
        "torchaudio.backend": "`{name}`: the `torchaudio.backend` package is " + _IO + "use `torchaudio.load` / "
        "`torchaudio.save` (they need TorchCodec from 2.9)",
        "torchaudio.list_audio_backends": _NONE + "backend selection no longer exists (TorchCodec/FFmpeg only)",
        "torchaudio.get_audio_backend": _IO + "it returned None since the dispatcher (<= 2.4); use `None`",
        "torchaudio.io": "`{name}`: `torchaudio.io` is " + _IO + "read with `torchcodec.decoders.AudioDecoder` / "
        "`VideoDecoder`, write with `torchcodec.encoders.AudioEncoder` (no 1:1 stream API; AudioEffector, "
        "play_audio have no replacement)",
        "torio": "`{name}`: the `torio` package left the torchaudio wheel in 2.9 (deprecated in 2.8); use TorchCodec",
        "torchaudio.utils.ffmpeg_utils": "`{name}`: " + _NONE + "TorchCodec manages FFmpeg",
        "torchaudio.sox_effects": "`{name}`: `torchaudio.sox_effects` is " + _NONE + "some effects exist in "
        "`torchaudio.functional` / `torchaudio.transforms` (resample, Speed, Vol, lowpass_biquad)",
        "torchaudio.utils.sox_utils": "`{name}`: " + _NONE + "`set_*` calls can usually be deleted",
        "torchaudio.kaldi_io": "`{name}`: `torchaudio.kaldi_io` is " + _IO + "use the `kaldi_io` package's "
        "`read_*` and `torch.from_numpy(...)` (add `.contiguous()` for matrices)",
        "torchaudio.prototype": "`{name}`: `torchaudio.prototype` is " + _NONE.rstrip("; "),
        "torchaudio.functional.apply_codec": "`apply_codec` was removed in torchaudio 2.9 with no replacement "
        "(deprecated before 2.4)",
        "torchaudio.functional.compute_kaldi_pitch": "`compute_kaldi_pitch` was removed in torchaudio 2.1; "
        "torchaudio has no replacement",
        "torchaudio.utils.download_asset": _NONE + "download the file yourself (only the private "
        "`_download_asset` remains)",
    }
    exclude = frozenset(  # ADV951 deletes these calls
        {"torchaudio.sox_effects.init_sox_effects", "torchaudio.sox_effects.shutdown_sox_effects"}
    )
    entry_windows = {
        "torchaudio.backend": {"deprecated_in": "2.0"},  # warned before 2.4 (oldest wheel read: 2.4.0)
        "torchaudio.functional.apply_codec": {"deprecated_in": "2.0"},
        "torchaudio.get_audio_backend": {"deprecated_in": "2.0"},
        "torchaudio.AudioMetaData": {"deprecated_in": "2.8"},
        "torchaudio.functional.compute_kaldi_pitch": {"deprecated_in": None, "removed_in": "2.1"},
    }
    valid = [
        "import torchaudio\nwav, sr = torchaudio.load('a.wav')\n",
        "import torchaudio\ntorchaudio.functional.forced_align(e, t)\n",
        "from av import io\nio.StreamReader(x)\n",
        "def info(p):\n    return p\ninfo('a.wav')\n",
    ]
    invalid = [
        Example(
            "import torchaudio\nmeta = torchaudio.info('a.wav')\n",
            message="AudioDecoder(path).metadata",
            line=2,
            column=8,
        ),
        Example("from torchaudio.io import StreamReader\nr = StreamReader('a.mp4')\n", line=1, column=6),
        Example("import torchaudio.sox_effects as fx\nfx.apply_effects_tensor(w, sr, [])\n", line=1, column=8),
        Example("import torchaudio\ntorchaudio.io.StreamWriter('o.mp4')\n", message="torchaudio.io.StreamWriter"),
        Example("from torchaudio.utils import download_asset\n", message="no replacement"),
        Example("import torchaudio.functional as F\nF.apply_codec(w, sr, 'mp3')\n", message="apply_codec"),
        Example("from torchaudio.backend import sox_io_backend\n", message="`torchaudio.backend` package"),
        Example(
            "import torchaudio\nx = torchaudio.list_audio_backends()\ny = torchaudio.kaldi_io.read_mat_ark(p)\n",
            count=2,
        ),
    ]
