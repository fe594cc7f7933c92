from __future__ import annotations

import re

from advisor.rule import Example, Kind, Rule, Severity, cst

OLDEST = 75  # sm_75 (Turing): the oldest architecture of the default 2.14.1 / 2.15.0 CUDA wheels
# `TORCH_CUDA_ARCH_LIST` names, as torch/utils/cpp_extension.py maps them (the oldest architecture of each).
NAMED = {
    "kepler+tesla": 37,
    "kepler": 35,
    "maxwell+tegra": 53,
    "maxwell": 50,
    "pascal": 60,
    "volta+tegra": 72,
    "volta": 70,
    "turing": 75,
    "ampere+tegra": 87,
    "ampere": 80,
    "ada": 89,
    "hopper": 90,
}
_ARCH_VAR = re.compile(
    r"(?:^|(?<=[\s;&|(]))(?P<var>TORCH_CUDA_ARCH_LIST)(?:=|\s+(?=[\"']?[\w.]))"
    r"(?P<value>\"[^\"\n]*\"|'[^'\n]*'|[^\s;&|]*)"
)
_GENCODE = re.compile(
    r"(?:-gencode[= ]|--generate-code[= ])\S*?(?:arch=)?compute_(\d+)|-arch[= ]sm_(\d+)|"
    r"--gpu-architecture[= ](?:sm|compute)_(\d+)"
)


def old_archs(value: str) -> list[str]:
    """The entries of an arch list below sm_75: "6.0;7.0;8.0+PTX" -> ["6.0", "7.0"]."""
    out = []
    for token in re.split(r"[;\s,]+", value.strip().strip("\"'")):
        base = token.split("+PTX")[0].lower()
        m = re.fullmatch(r"(?:sm_|compute_)?(\d)\.?(\d)", base)
        number = int(m.group(1)) * 10 + int(m.group(2)) if m else NAMED.get(base)
        if number is not None and number < OLDEST:
            out.append(token)
    return out


_ARCH_NUMBER = re.compile(r"(?:compute|sm)_(\d+)")


def _old_arch_named(text: str) -> bool:
    """Whether `text` names an architecture below sm_75 anywhere (what every `gencode_archs` find holds)."""
    return any(int(n) < OLDEST for n in _ARCH_NUMBER.findall(text))


def gencode_archs(text: str) -> list[str]:
    return [f"sm_{n}" for m in _GENCODE.finditer(text) for n in m.groups() if n and int(n) < OLDEST]


def message(archs: list[str], where: str) -> str:
    return (
        f"{where} builds for CUDA architectures below sm_75 ({', '.join(archs)}): the default torch 2.14.1 / "
        "2.15.0 CUDA wheels ship kernels for sm_75 and newer only, so torch itself no longer runs on those GPUs; "
        "drop them, or pin a torch build that still includes them"
    )


class CudaArchList(Rule):
    """A CUDA architecture list below sm_75, which the default 2.14.1 / 2.15.0 wheels no longer ship kernels for.

    What it finds: `TORCH_CUDA_ARCH_LIST` values ("6.0;7.0", "Pascal", "7.0+PTX") and
    `-gencode arch=compute_60,...` / `-arch=sm_60` / `--gpu-architecture=sm_60` flags
    with an architecture older than sm_75, in Dockerfiles, shell scripts and `.env`
    files, and in Python (setup.py): an `os.environ["TORCH_CUDA_ARCH_LIST"] = ...`
    string, a `cuda_arch_list` / `TORCH_CUDA_ARCH_LIST` variable, or a string with such
    a flag.

    Why: the default CUDA wheels of 2.14.1 and 2.15.0 are built for sm_75 ... sm_120
    only (Pascal and Volta dropped). An extension still builds for sm_60 / sm_70, but
    torch's own kernels do not run on those GPUs, so the list is a sign the project
    still targets hardware that the new torch left behind. Advice: the list may be
    deliberate (a custom torch build).

    Example:
        ENV TORCH_CUDA_ARCH_LIST="6.0;7.0;8.0"

    Fix safety: no automatic fix: which GPUs to support is the project's decision.

    Verified: the arch list comes from the Linux CUDA wheels (strings of
    `libtorch_python`, `torch._C._cuda_getArchFlags()` on 2.15.0); the repository's own
    check is K-782/arch-list, which runs on the truth matrix's CUDA builds (2.14.1,
    2.15.0) and is skipped on a CPU build. The name table is `named_arches` of
    torch/utils/cpp_extension.py (2.13.0 wheel).

    Validation: none.
    """

    code = "ADV782"
    name = "cuda-arch-below-sm75"
    message = "CUDA architectures below sm_75, which the default 2.14.1 / 2.15.0 wheels no longer ship"
    severity = Severity.INFO
    kind = Kind.ADVICE
    since = "2.14"  # nothing to say for older targets: their wheels still ship sm_50 ... sm_70
    triggers = ("TORCH_CUDA_ARCH_LIST", "cuda_arch_list", "CUDA_ARCH_LIST", "gencode", "arch", "architecture")

    valid = [
        "import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = '7.5;8.0;9.0+PTX'\n",
        "flags = ['-gencode', 'arch=compute_80,code=sm_80']\n",
        "cuda_arch_list = ['8.6', '9.0']\n",
        "sm_70_kernels = load('kernels_sm_70.cubin')\n",
    ]
    invalid = [
        Example(
            "import os\nos.environ['TORCH_CUDA_ARCH_LIST'] = '6.0;7.0;8.0'\n",
            message="below sm_75 (6.0, 7.0)",
            line=2,
            column=38,
        ),
        Example("nvcc_flags = ['-O3', '-gencode=arch=compute_70,code=sm_70']\n", message="(sm_70)"),
        Example("cuda_arch_list = 'Pascal Volta Ampere'\n", message="(Pascal, Volta)"),
        Example("CUDA_ARCH_LIST = ['6.1', '8.6']\n", message="(6.1)"),
    ]

    @classmethod
    def text_gate(cls):
        # an arch-list name (any case), or an architecture below sm_75 named in a string (`sm_60`, `compute_070`)
        name = r"[tTcC](?<!\w[tTcC])(?i:orch_cuda_arch_list|uda_arch_list)\b"  # the first letter apart: faster
        return (), (), (name, r"(?:compute|sm)_0*(?:[0-6]?\d|7[0-4])(?!\d)"), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # The triggers ("arch", "architecture") are common words: look for an arch-list name or a flag string.
        keys = ("torch_cuda_arch_list", "cuda_arch_list")
        if any(n.lower() in keys for n in refs.names) or any(q.lower() in keys for q in refs.qualnames):
            return True
        # A flag string is reported only for an architecture below sm_75: a string must name one (`sm_60`,
        # `compute_70`). Where the parser splits a string LibCST sees in pieces ("a" "b"), a piece that names one
        # makes the whole one name it too.
        return any("_" in s and _old_arch_named(s) for strings in (refs.qualnames, refs.long_strings) for s in strings)

    def visit_Assign(self, node) -> None:
        for t in node.targets:
            target = t.target
            key = target.value if isinstance(target, cst.Name) else None
            if isinstance(target, cst.Subscript) and len(target.slice) == 1:
                index = getattr(target.slice[0].slice, "value", None)
                key = index.evaluated_value if isinstance(index, cst.SimpleString) else None
            if isinstance(key, str) and key.lower() in ("torch_cuda_arch_list", "cuda_arch_list"):
                self._arch_values(node.value, key)

    def visit_SimpleString(self, node) -> None:
        value = node.evaluated_value
        if isinstance(value, str) and "_" in value:
            archs = gencode_archs(value if value.startswith("-") else " " + value.replace("arch=", "-gencode=arch="))
            if archs and ("compute_" in value or "sm_" in value):
                self.report(node, message(archs, "This flag"))

    def _arch_values(self, value, key: str) -> None:
        strings = (
            [value]
            if isinstance(value, cst.SimpleString)
            else [e.value for e in getattr(value, "elements", ()) if isinstance(e.value, cst.SimpleString)]
        )
        found = [a for s in strings for a in old_archs(s.evaluated_value)]
        if found:
            self.report(strings[0], message(found, f"`{key}`"))

    @classmethod
    def check_text(cls, path, text, target, lowest=None):
        for lineno, line in enumerate(text.splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for m in _ARCH_VAR.finditer(line):
                found = old_archs(m.group("value"))
                if found:
                    yield (
                        lineno,
                        m.start("var") + 1,
                        len(m.group(0)),
                        message(found, "TORCH_CUDA_ARCH_LIST"),
                        cls.window(),
                    )
            found = gencode_archs(line)
            if found:
                yield (
                    lineno,
                    len(line) - len(line.lstrip()) + 1,
                    len(line.strip()),
                    message(found, "This command"),
                    cls.window(),
                )
