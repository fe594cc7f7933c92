from __future__ import annotations

import ast

from advisor.rule import Example, Rule, Severity, calls_to, cst

from ._rocm import string_values

CUDA_EXTENSION = ("torch.utils.cpp_extension.CUDAExtension",)
JIT_APIS = ("torch.utils.cpp_extension.load", "torch.utils.cpp_extension.load_inline")
EXTENSION_APIS = CUDA_EXTENSION + JIT_APIS + ("torch.utils.cpp_extension.BuildExtension",)


def _compiles_gpu_code(rule, call) -> bool:
    """Does this JIT build compile HIP/CUDA sources (the only ones that get arch flags)?"""
    for arg in call.args:
        key = arg.keyword.value if arg.keyword is not None else None
        if key == "cuda_sources":
            return True
        if key == "with_cuda":
            return not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None"))
    return any(v.endswith((".cu", ".hip", ".cuh")) for v in string_values(call))


def _may_compile_gpu_code(call: ast.Call) -> bool:
    """`_compiles_gpu_code` of the `ast` call, or more: `cuda_sources=`, a `with_cuda=` not False or None, a source
    named `.cu`, `.hip` or `.cuh` anywhere in it."""
    for k in call.keywords:
        if k.arg == "cuda_sources":
            return True
        if k.arg == "with_cuda" and not (isinstance(k.value, ast.Constant) and k.value.value in (False, None)):
            return True
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.endswith((".cu", ".hip", ".cuh"))
        for n in ast.walk(call)
    )


class RocmExtensionArch(Rule):
    """C++/HIP extensions built in a ROCm project with no `PYTORCH_ROCM_ARCH` anywhere.

    What it finds: the first `CUDAExtension` from `torch.utils.cpp_extension`
    in a file, or a JIT `load` / `load_inline` that compiles GPU code
    (`cuda_sources=`, `with_cuda=True`, or `.cu`/`.hip` sources), when the
    project targets ROCm, no scanned file (Python, Dockerfile, shell script,
    `.env`) mentions `PYTORCH_ROCM_ARCH`, and the file passes no
    `--offload-arch` flag itself. C++-only builds (`CppExtension`,
    `load_inline(cpp_sources=...)`) get no GPU arch flags and are not reported.

    Why: with `PYTORCH_ROCM_ARCH` unset, 2.11 compiled ROCm extensions for the
    architectures torch itself was built for (so GPU-less build nodes
    worked). 2.12's `_get_rocm_arch_flags` uses the `gcnArchName` of the GPUs
    visible at build time instead: a wheel built on a one-GPU machine is no
    longer a fat binary, and with no visible GPU the flag is an empty
    `--offload-arch=` (checked on 2.13's identical code; what hipcc does with
    it is unverified, most likely a build error). Extension flags also moved
    from `-std=c++17` to `-std=c++20` on all platforms.

    Example:
        setup(ext_modules=[CUDAExtension("ops", ["ops.cpp"])], cmdclass={"build_ext": BuildExtension})

    Fix safety: no fix. Set `PYTORCH_ROCM_ARCH` (e.g. `gfx942;gfx950`) in the
    build environment (Dockerfile, CI) for the GPUs you ship to.

    Validation: `rocm_runtime` (prints what `_get_rocm_arch_flags()` chooses).
    """

    code = "ADV807"
    name = "rocm-extension-arch"
    message = (
        "C++/HIP extension build with no PYTORCH_ROCM_ARCH in the project: since torch 2.12 ROCm extensions compile "
        "for the GPUs visible at build time (an empty `--offload-arch=` with none) instead of torch's own arch list; "
        "set PYTORCH_ROCM_ARCH in the build environment and check `_get_rocm_arch_flags()` with the `rocm_runtime` "
        "validation script"
    )
    severity = Severity.WARNING
    since = "2.12"
    device = "rocm"
    unless_project_mentions = ("PYTORCH_ROCM_ARCH",)
    validation = "rocm_runtime"
    triggers = ("CUDAExtension", "BuildExtension", "load_inline", "cpp_extension")
    targets = EXTENSION_APIS

    valid = [
        "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\nIS_ROCM = torch.version.hip\n"
        "ext = CUDAExtension('ops', ['ops.cpp'], extra_compile_args={'nvcc': ['--offload-arch=gfx942']})",
        "import os\nos.environ['PYTORCH_ROCM_ARCH'] = 'gfx942'\nfrom torch.utils.cpp_extension import load\nops = load('ops', ['ops.hip'])",
        # a JIT build of C++ only, in a ROCm project
        "import torch\nfrom torch.utils import cpp_extension\nIS_ROCM = torch.version.hip\n"
        "m = cpp_extension.load_inline('m', cpp_sources=[src], with_cuda=False)\nn = cpp_extension.load('n', ['n.cpp'])",
        # CUDA-only project: silent.
        "from torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
        "setup(ext_modules=[CUDAExtension('ops', ['ops.cu'])], cmdclass={'build_ext': BuildExtension})",
        # C++ only: no GPU arch flags.
        "import torch\nfrom torch.utils.cpp_extension import load_inline\nIS_ROCM = torch.version.hip\nmod = load_inline('m', cpp_sources=SRC)",
        "import torch\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension\nIS_ROCM = torch.version.hip\n"
        "setup(ext_modules=[CppExtension('m', ['m.cpp'])], cmdclass={'build_ext': BuildExtension})",
        # Someone else's BuildExtension.
        "import torch\nfrom mylib.build import BuildExtension\nIS_ROCM = torch.version.hip\nsetup(cmdclass={'build_ext': BuildExtension})",
    ]
    invalid = [
        Example(
            "import torch\nfrom torch.utils.cpp_extension import CUDAExtension, BuildExtension\n"
            "is_rocm = torch.version.hip is not None\n"
            "setup(ext_modules=[CUDAExtension('ops', ['ops.cpp'])], cmdclass={'build_ext': BuildExtension})"
        ),
        Example(
            "import torch.utils.cpp_extension as ext\n# hipified for gfx90a\nmod = ext.load_inline('ops', cpp_sources=SRC, cuda_sources=KERNELS)"
        ),
        Example(
            "import torch\nfrom torch.utils.cpp_extension import load\nIS_ROCM = True\nops = load('ops', ['ops.cpp', 'kernels.cu'])"
        ),
    ]

    may_match_refers = True  # its own `may_match` asks Rule.may_match first: the text gate is the reference gate

    @classmethod
    def may_match(cls, refs) -> bool:
        # What it reports: a reference to `CUDAExtension`, or a JIT build that may compile GPU code (as
        # `_compiles_gpu_code`, on the `ast` call; a superset: any such keyword or source, in any order).
        if not super().may_match(refs):
            return False
        return refs.refers_to_any(CUDA_EXTENSION, cls.strings_name_targets) or any(
            _may_compile_gpu_code(call) for call in calls_to(refs, JIT_APIS)
        )

    @classmethod
    def needs_whole_module(cls, refs) -> bool:
        # The first extension and any `--offload-arch` are read from the whole module; where the text is known, every
        # slice keeps each line that may hold one (`kept_lines`), so that each slice finds them as the module does.
        return refs.text is None

    @classmethod
    def kept_lines(cls, refs) -> tuple[int, ...]:
        return refs.lines_naming(CUDA_EXTENSION + JIT_APIS, also="--offload-arch")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._first = None
        self._offload_arch = False

    def _check(self, node) -> None:
        if self._first is None and self.match(node, CUDA_EXTENSION):
            self._first = node

    def visit_Name(self, node) -> None:
        self._check(node)

    def visit_Attribute(self, node) -> None:
        self._check(node)

    def visit_Call(self, node) -> None:
        if self._first is None and self.match(node.func, JIT_APIS) and _compiles_gpu_code(self, node):
            self._first = node

    def visit_SimpleString(self, node) -> None:
        if "--offload-arch" in node.value:
            self._offload_arch = True

    def leave_Module(self, node) -> None:
        if self._first is not None and not self._offload_arch:
            self.report(self._first)
