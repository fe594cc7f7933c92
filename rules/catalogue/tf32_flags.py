from __future__ import annotations

from advisor.rule import Example, Kind, Rule, Severity, Window

LEGACY = {
    "torch.backends.cuda.matmul.allow_tf32": 'torch.backends.cuda.matmul.fp32_precision = "tf32"',
    "torch.backends.cudnn.allow_tf32": 'torch.backends.cudnn.conv.fp32_precision = "tf32"` and '
    '`torch.backends.cudnn.rnn.fp32_precision = "tf32"',
}
_MIXED = Window(since="2.9", removed_in="2.9")  # the new API exists from 2.9, so the mix can fail from 2.9


class Tf32Flags(Rule):
    """`torch.backends.cuda.matmul.allow_tf32` / `cudnn.allow_tf32` vs the `fp32_precision` API (2.9).

    What it finds: reads and writes of the legacy TF32 flags
    `torch.backends.cuda.matmul.allow_tf32` and `torch.backends.cudnn.allow_tf32`.

    Why: 2.9 adds per-backend `fp32_precision` settings ("ieee" / "tf32" / "none":
    `torch.backends.cuda.matmul.fp32_precision`, `torch.backends.cudnn.conv` /
    `.rnn.fp32_precision`, `torch.backends.fp32_precision`) and documents the old flags
    as going away. The legacy flags still work in 2.15 and do not warn, so alone they
    are advice. Mixing the two is not: once the new API set a flag differently, *reading*
    a legacy flag raises RuntimeError ("... you have used mix of the legacy and new APIs
    to set the TF32 status for cublas matmul. We suggest only using the new API ...";
    for cuDNN, once conv and rnn differ). So in a file that uses both, a legacy read is
    reported as breaking from 2.9, and a legacy write as advice to move it too.

    Example:
        torch.backends.cuda.matmul.allow_tf32 = True
        # the 2.9 form
        torch.backends.cuda.matmul.fp32_precision = "tf32"

    Fix safety: no automatic fix: the new form needs torch 2.9, and `cudnn.allow_tf32`
    maps to two settings (conv and rnn).

    Verified: `fp32_precision` is absent from torch/backends/__init__.py and
    backends/cudnn/__init__.py of the 2.8.0 wheel and present in 2.9.0 and 2.15.0.
    Truth (runtime, CPU): K-780/mixed-matmul, K-780/mixed-cudnn, K-780/legacy-silent.

    Validation: none.
    """

    code = "ADV780"
    name = "tf32-legacy-flags"
    message = "`{old}` is the legacy TF32 flag; since 2.9 the documented form is `{new}`"
    severity = Severity.INFO
    kind = Kind.ADVICE
    since = "2.9"
    triggers = ("allow_tf32",)
    attribute_targets = ("allow_tf32",)

    valid = [
        'import torch\ntorch.backends.cuda.matmul.fp32_precision = "tf32"\n',
        "import torch\ntorch.set_float32_matmul_precision('high')\n",
        "import jax\njax.config.allow_tf32 = True\n",
        "def f(torch):\n    torch.backends.cudnn.allow_tf32 = True\n",
    ]
    invalid = [
        Example(
            "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n",
            message="`torch.backends.cuda.matmul.allow_tf32` is the legacy TF32 flag",
            line=2,
            column=1,
        ),
        Example(
            'import torch\ntorch.backends.cudnn.conv.fp32_precision = "tf32"\nprint(torch.backends.cudnn.allow_tf32)\n',
            message="raises RuntimeError",
            line=3,
            column=7,
        ),
        Example(
            "import torch\n"
            'torch.backends.cuda.matmul.fp32_precision = "ieee"\n'
            "torch.backends.cuda.matmul.allow_tf32 = True\n",
            message="use one API",
        ),
        Example("from torch.backends import cudnn\ncudnn.allow_tf32 = False\n", target="2.9"),
        Example(
            "import torch\nif torch.__version__ < '2.9':\n    torch.backends.cudnn.allow_tf32 = True\n",
            message="compat fallback",
            line=3,
        ),
    ]

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # Each legacy flag is judged by itself unless the file also sets `fp32_precision` somewhere: where the text is
        # known, every slice keeps each line where it may be written (`kept_lines`) instead of the whole module.
        return refs.text is None and "fp32_precision" in refs.attributes

    @classmethod
    def kept_lines(cls, refs) -> tuple[int, ...]:
        return refs.lines_writing("fp32_precision") if "fp32_precision" in refs.attributes else ()

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._legacy: list = []  # (node, qualname, written)
        self._written: set = set()
        self._new_api = False

    def visit_Assign(self, node) -> None:
        for target in node.targets:
            self._written.add(target.target)

    def visit_AugAssign(self, node) -> None:
        self._written.add(node.target)

    def visit_Attribute(self, node) -> None:
        if node.attr.value == "fp32_precision":
            self._new_api = self._new_api or any(q.startswith("torch.backends.") for q in self.qualnames(node))
            return
        old = self.match(node, LEGACY)
        if old is not None:
            self._legacy.append((node, old, node in self._written))

    def leave_Module(self, node) -> None:
        for ref, old, written in self._legacy:
            message = self.message.format(old=old, new=LEGACY[old])
            if not self._new_api:
                self.report(ref, message)
            elif written:
                self.report(
                    ref,
                    message + "; this file also sets `fp32_precision`: use one API (reading a legacy flag "
                    "after a mixed setting raises RuntimeError)",
                )
            else:
                self.report(
                    ref,
                    message + "; this file also sets `fp32_precision`, and reading the legacy flag after "
                    "the new API set it differently raises RuntimeError",
                    kind=Kind.BREAKING,
                    window=_MIXED,
                )
