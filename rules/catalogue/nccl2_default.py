from __future__ import annotations

from advisor.rule import (
    ALSO_NEEDED,
    CODE_ONLY,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    cst,
    get_arg,
    string_value,
)

NCCL_CLASSES = (
    "torch.distributed.ProcessGroupNCCL",
    "torch._C._distributed_c10d.ProcessGroupNCCL",
    "torch.distributed.distributed_c10d.ProcessGroupNCCL",
)
# What the legacy ProcessGroupNCCL has and ProcessGroupNCCL2 lacks (checked with hasattr on the 2.15.0 wheel).
MISSING = (
    "comm_split_count",
    "get_build_nccl_version",
    "get_runtime_nccl_version",
    "uid",
    "NCCLConfig",
    "_set_default_timeout",
    "_is_initialized",
    "_group_start",
    "_group_end",
    "_set_enable_nan_check",
)
_HATCH = 'set `TORCH_DIST_USE_NCCL2=0` or use `backend="nccl-legacy"` (2.14+) to keep the old one'


class Nccl2Default(Rule):
    """From 2.15 `init_process_group("nccl")` builds `ProcessGroupNCCL2`, not `ProcessGroupNCCL`.

    What it finds: `isinstance` / `issubclass` checks against
    `ProcessGroupNCCL` (through any alias), and uses of the attributes the new
    class lacks (`comm_split_count`, `get_build_nccl_version`,
    `get_runtime_nccl_version`, `uid`, `NCCLConfig`, `NCCL_CTA_POLICY_*`,
    `_set_default_timeout`, `_is_initialized`, `_group_start`, `_group_end`,
    `_set_enable_nan_check`) on a `..._get_backend(torch.device("cuda"...))`
    result, or on a name assigned from one in the same scope. Generic names
    such as `uid` are not flagged anywhere else.

    Why: 2.15 makes the torchcomms-based `ProcessGroupNCCL2` the `"nccl"`
    backend (PR #192281; 2.14 only built it on opt-in with
    `TORCH_DIST_USE_NCCL2=1` or `backend="nccl2"`). It is not a subclass of
    `ProcessGroupNCCL` and has none of the attributes above (verified on the
    2.14.1 and 2.15.0 wheels, no GPU needed: tests/truth B15-1/nccl2-class-surface,
    B15-1/nccl2-default-source). `TORCH_DIST_USE_NCCL2=0` or `backend="nccl-legacy"`
    (a name that exists from 2.14) brings the old class back. Not reported:
    `init_process_group("nccl")` without `device_id=` (2.15 binds eagerly to
    `cuda:(LOCAL_RANK % n)`); collective numerics and performance of the new
    backend are unverified.

    Example:
        pg = dist.distributed_c10d._get_default_group()._get_backend(torch.device("cuda"))
        n = pg.comm_split_count()  # AttributeError on ProcessGroupNCCL2

    Fix safety: no automatic fix: code that needs the legacy class must opt out
    explicitly, or stop using what the new one lacks.

    Validation: `nccl_backend` (machines with two or more GPUs) reports which
    class `init_process_group("nccl")` builds there, whether the attributes the
    code uses exist on it, and that the escape hatches bring the old one back.
    """

    code = "ADV770"
    name = "nccl2-default"
    message = (
        'from 2.15 `init_process_group("nccl")` builds `ProcessGroupNCCL2`, which is not a `ProcessGroupNCCL` '
        "and has no `{attr}`; " + _HATCH
    )
    severity = Severity.WARNING
    since = "2.15"  # the behaviour exists from 2.15 (no warning, no removal: a behaviour change)
    fix = Applicability.NONE
    validation = "nccl_backend"
    triggers = ("ProcessGroupNCCL", "_get_backend")
    targets = NCCL_CLASSES
    attribute_targets = ("ProcessGroupNCCL", "_get_backend")
    valid = [
        "import torch\nimport torch.distributed as dist\n"
        'dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))\n',
        "import torch\nname = user.uid\n",
        'import torch\nb = pg._get_backend(torch.device("cpu"))\nn = b.comm_split_count()\n',
        # The class named, but in no isinstance/issubclass check; a backend asked for, but nothing it lacks read.
        "import torch.distributed as dist\nPG = dist.ProcessGroupNCCL\nb = pg._get_backend(dev)\nb.abort()\n",
    ]
    invalid = [
        Example(
            "import torch\nimport torch.distributed as dist\n"
            'pg = dist.distributed_c10d._get_default_group()._get_backend(torch.device("cuda"))\n'
            "n = pg.comm_split_count()\n",
            message="has no `comm_split_count`",
            line=4,
            column=5,
            target="2.15",
        ),
        Example(
            "import torch.distributed as dist\nok = isinstance(b, dist.ProcessGroupNCCL)\n",
            message="is not a `ProcessGroupNCCL`",
            target="2.15",
        ),
        Example(
            "import torch\nv = g._get_backend(torch.device('cuda', 0)).get_runtime_nccl_version()\n", target="2.15"
        ),
    ]

    @classmethod
    def text_gate(cls):
        # may_match's two ways: a reference to the class, or a call of `_get_backend`; and besides, an isinstance or
        # issubclass call, or a call that may be `torch.device` (by its last name, renamed, or a getattr's).
        g = TEXT_GAPS
        called = (rf"isinstance(?<![\w.]isinstance){g}\(", rf"issubclass(?<![\w.]issubclass){g}\(", rf"device{g}\(")
        needed = (*(CODE_ONLY + p for p in (*called, rf"device{g}as\b")), r"[\"']device[\"']")
        return cls.targets, (), tuple(ALSO_NEEDED + p for p in needed), ("_get_backend",), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # What the visitor reads: an isinstance/issubclass check against the class, or an attribute the new class
        # lacks where a `_get_backend(torch.device(...))` is called (torch's own DeviceMesh calls it without one).
        calls = refs.calls
        if refs.refers_to_any(cls.targets) and ("isinstance" in calls or "issubclass" in calls):
            return True
        if "_get_backend" not in calls or not refs.calls_of(("torch.device",)):
            return False
        return not refs.attributes.isdisjoint(MISSING) or any(a.startswith("NCCL_CTA_POLICY_") for a in refs.attributes)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._frames: list[set[str]] = [set()]  # names bound to a CUDA backend object, per scope

    def visit_FunctionDef(self, node) -> None:
        self._frames.append(set())

    def leave_FunctionDef(self, node) -> None:
        self._frames.pop()

    def visit_Assign(self, node) -> None:
        for t in node.targets:
            if isinstance(t.target, cst.Name):
                (self._frames[-1].add if self._cuda_backend(node.value) else self._frames[-1].discard)(t.target.value)

    def visit_Call(self, node) -> None:
        if isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "issubclass") and len(node.args) >= 2:
            second = node.args[1].value
            classes = [e.value for e in second.elements] if isinstance(second, cst.Tuple) else [second]
            for c in classes:
                if self.match(c, NCCL_CLASSES):
                    self.report(
                        node,
                        self.message.replace("and has no `{attr}`", f"(`{node.func.value}` is False)"),
                        data={"attrs": []},
                    )
                    return

    def visit_Attribute(self, node) -> None:
        attr = node.attr.value
        if attr not in MISSING and not attr.startswith("NCCL_CTA_POLICY_"):
            return
        receiver = node.value
        if self._cuda_backend(receiver) or (isinstance(receiver, cst.Name) and receiver.value in self._frames[-1]):
            self.report(node, self.message.format(attr=attr), data={"attrs": [attr]})

    def _cuda_backend(self, value) -> bool:
        """`<anything>._get_backend(torch.device("cuda"...))`."""
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "_get_backend"
        ):
            return False
        arg = get_arg(value, "device", 0)
        if arg is None or not isinstance(arg.value, cst.Call) or not self.match(arg.value.func, ("torch.device",)):
            return False
        kind = get_arg(arg.value, "type", 0)
        text = string_value(kind.value) if kind is not None else None
        return text is not None and text.split(":")[0] == "cuda"
