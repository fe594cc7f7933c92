from advisor.rule import Applicability, Example, Severity

from .._companion import NoopCalls

NOOPS = {
    "torchaudio.set_audio_backend": "`set_audio_backend` has been a no-op since the dispatcher (torchaudio <= 2.4: "
    '"this function is no-op. You can remove the function call.") and was removed in 2.9: delete the call',
    "torchaudio.sox_effects.init_sox_effects": '`init_sox_effects` has been a no-op ("Please remove the call. This '
    'function is called automatically.", torchaudio <= 2.4) and `torchaudio.sox_effects` was removed in 2.9: '
    "delete the call",
    "torchaudio.sox_effects.shutdown_sox_effects": '`shutdown_sox_effects` has been a no-op ("Please remove the '
    'call.", torchaudio <= 2.4) and `torchaudio.sox_effects` was removed in 2.9: delete the call',
}


class TorchaudioNoopCalls(NoopCalls):
    """`torchaudio.set_audio_backend(...)` / `init_sox_effects()`: no-ops, removed in torchaudio 2.9.

    What it finds: calls of `torchaudio.set_audio_backend`, `torchaudio.sox_effects.init_sox_effects`
    and `shutdown_sox_effects`.

    Why: all three did nothing since the per-call backend dispatcher (their deprecation text,
    verified in the torchaudio 2.4.0 wheel: `torchaudio/_backend/__init__.py:37-46`,
    `torchaudio/sox_effects/sox_effects.py:13-29`), and 2.9 removed them, so the call now
    raises AttributeError / ModuleNotFoundError.

    Fix safety: safe: a call that is a statement of its own is deleted (`pass` takes its place
    when it is the only statement of its block, or when comments sit on its line); deleting a
    no-op preserves behaviour. A call used as a value (`b = set_audio_backend(...)`) is reported
    without a fix. The fix needs torchaudio >= 2.4 as the lowest supported version (`since`).

    Validation: `audio_io`.
    """

    code = "ADV951"
    name = "torchaudio-noop-call"
    message = "no-op call removed in torchaudio 2.9: delete it"
    library = "torchaudio"
    severity = Severity.ERROR
    since = "2.4"  # the no-op is verified from the 2.4.0 wheel on
    deprecated_in = "2.4"
    removed_in = "2.9"
    fix = Applicability.SAFE
    validation = "audio_io"
    triggers = ("set_audio_backend", "init_sox_effects", "shutdown_sox_effects")
    noops = NOOPS
    valid = [
        "import torchaudio\ntorchaudio.load('a.wav')\n",
        "def set_audio_backend(b):\n    pass\nset_audio_backend('x')\n",
    ]
    invalid = [
        Example(
            "import torchaudio\ntorchaudio.set_audio_backend('sox_io')\nx = 1\n",
            fixed="import torchaudio\nx = 1\n",
            line=2,
            column=1,
            message="no-op",
        ),
        Example(
            "from torchaudio import set_audio_backend\n\n\ndef f():\n    set_audio_backend('soundfile')\n",
            fixed="\n\ndef f():\n    pass\n",
        ),
        # the alias the fix left unused goes too
        Example("import torchaudio.sox_effects as fx\nfx.init_sox_effects()\n", fixed="\n"),
        Example("import torchaudio\nb = torchaudio.set_audio_backend(None)\n", message="delete"),
    ]
