from __future__ import annotations

from advisor.rule import Example, Rule, Severity, cst, dotted_name, simple_name, string_value

CUDA_VAR, HIP_VAR = "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"
_VARS = (CUDA_VAR, HIP_VAR)


class RocmBothAllocConfs(Rule):
    """Both `PYTORCH_CUDA_ALLOC_CONF` and `PYTORCH_HIP_ALLOC_CONF` set: only the first one set is read.

    What it finds: a file that sets both variables (`os.environ[...] = `,
    `setdefault`, `putenv`, `update`, an env dict literal), unless the two
    sets are in opposite branches of one `if`. The finding is on the
    `PYTORCH_HIP_ALLOC_CONF` set, the one that is ignored. Dockerfiles, shell
    scripts and `.env` files are checked the same way by the text scanner.

    Why: the CUDA-side allocator config (also used by ROCm builds) reads
    `PYTORCH_CUDA_ALLOC_CONF` first, then `PYTORCH_HIP_ALLOC_CONF` (ROCm
    builds only), then `PYTORCH_ALLOC_CONF`; the first one that is set wins and
    the values are not merged (c10/cuda/CUDAAllocatorConfig.h, same order in
    2.11 and 2.12). With 2.12 enabling expandable segments on ROCm >= 7.0,
    a HIP-only setting that never took effect now matters. The generic
    allocator config documents a different precedence and whether it reads
    the HIP variable is unverified, so set exactly one variable.

    Example:
        os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:512"
        os.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"  # ignored

    Fix safety: no fix: which of the two values you meant is yours to say.

    Validation: `rocm_runtime` (reports what the allocator actually uses).
    """

    code = "ADV803"
    name = "rocm-alloc-conf-shadowed"
    message = (
        "`PYTORCH_HIP_ALLOC_CONF` is ignored while `PYTORCH_CUDA_ALLOC_CONF` is also set (this file sets both): "
        "the allocator reads only the first one set (CUDA, then HIP, then PYTORCH_ALLOC_CONF); set exactly one, "
        "and verify with the `rocm_runtime` validation script"
    )
    severity = Severity.WARNING
    since = "2.0"
    device = "rocm"
    validation = "rocm_runtime"
    triggers = (HIP_VAR,)

    valid = [
        'import os\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"',
        # Opposite branches of one if: only one is ever set.
        'import os, torch\nif torch.version.hip:\n    os.environ["PYTORCH_HIP_ALLOC_CONF"] = "a"\n'
        'else:\n    os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "a"',
        # Reading is not setting.
        'import os\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "")',
    ]
    invalid = [
        Example(
            'import os\nos.environ["PYTORCH_CUDA_ALLOC_CONF"] = "max_split_size_mb:512"\nos.environ["PYTORCH_HIP_ALLOC_CONF"] = "expandable_segments:True"'
        ),
        Example(
            'import os, subprocess\nenv = {"PYTORCH_CUDA_ALLOC_CONF": "a", "PYTORCH_HIP_ALLOC_CONF": "b"}\n'
            'subprocess.run(["python", "train.py"], env=env)'
        ),
        Example(
            'import os\nos.environ.setdefault("PYTORCH_HIP_ALLOC_CONF", "a")\nos.putenv("PYTORCH_CUDA_ALLOC_CONF", "b")'
        ),
    ]

    @classmethod
    def may_match(cls, refs) -> bool:
        # Both variables named (a string, or a keyword of `dict(...)`/`.update(...)`): it reports only where both are set
        return all(v in refs.qualnames or v in refs.names for v in (HIP_VAR, CUDA_VAR))

    @classmethod
    def text_gate(cls):
        # The CUDA variable's name too (the prefilter's trigger is the HIP one's)
        return (), (), (CUDA_VAR,), (), ()

    @classmethod
    def check_env(cls, assignments):
        # A Dockerfile or script has no branches we can see: both set means both set.
        if any(var == CUDA_VAR for _, _, var, _ in assignments):
            for line, column, var, _ in assignments:
                if var == HIP_VAR:
                    yield line, column, var, cls.message

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._path: list[tuple[int, str]] = []
        self._ifs: list[int] = []
        # var -> [(node, branch path, container)]: the container is the mapping that was set
        # (os.environ, or one env dict literal), since a subprocess's env dict is not this process's.
        self._sets: dict[str, list[tuple[object, tuple, str]]] = {CUDA_VAR: [], HIP_VAR: []}

    # Which branch of which `if` we are in, so opposite branches are not reported.
    def visit_If(self, node) -> None:
        self._ifs.append(id(node))

    def leave_If(self, node) -> None:
        self._ifs.pop()

    def visit_If_body(self, node) -> None:
        self._path.append((self._ifs[-1], "body"))

    def leave_If_body(self, node) -> None:
        self._path.pop()

    def visit_If_orelse(self, node) -> None:
        self._path.append((self._ifs[-1], "orelse"))

    def leave_If_orelse(self, node) -> None:
        self._path.pop()

    def _set(self, var_node, container: str, var: str | None = None) -> None:
        var = var or string_value(var_node)
        if var in _VARS:
            self._sets[var].append((var_node, tuple(self._path), container))

    def visit_Assign(self, node) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Subscript) and len(t.target.slice) == 1:
                index = t.target.slice[0].slice
                if isinstance(index, cst.Index):
                    self._set(index.value, _container(t.target.value))

    def visit_Call(self, node) -> None:
        func = node.func
        name = simple_name(func)
        if name == "putenv" and node.args:
            self._set(node.args[0].value, "os.environ")
        elif name == "setdefault" and node.args and isinstance(func, cst.Attribute):
            self._set(node.args[0].value, _container(func.value))
        elif name in ("update", "dict"):
            container = (
                _container(func.value) if name == "update" and isinstance(func, cst.Attribute) else f"dict@{id(node)}"
            )
            for arg in node.args:
                if arg.keyword is not None:
                    self._set(arg.keyword, container, arg.keyword.value)

    def visit_Dict(self, node) -> None:
        for el in node.elements:
            if isinstance(el, cst.DictElement):
                self._set(el.key, f"dict@{id(node)}")

    def leave_Module(self, node) -> None:
        for hip_node, hip_path, hip_in in self._sets[HIP_VAR]:
            if any(
                cuda_in == hip_in and not _exclusive(hip_path, cuda_path)
                for _, cuda_path, cuda_in in self._sets[CUDA_VAR]
            ):
                self.report(hip_node)


def _container(node) -> str:
    """`os.environ` / `environ` are one mapping; any other target is known by its spelling."""

    name = dotted_name(node)
    if not name:  # a call or subscript: not a name we can spell
        return f"expr@{id(node)}"
    return "os.environ" if name.split(".")[-1] == "environ" else name


def _exclusive(a: tuple, b: tuple) -> bool:
    """Are two places in opposite branches of one `if`?"""
    branches = dict(a)
    return any(if_id in branches and branches[if_id] != branch for if_id, branch in b)
