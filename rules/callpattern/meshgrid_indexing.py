from __future__ import annotations

from advisor.rule import (
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    append_args,
    cst,
    get_arg,
    keyword_calls,
    kwarg,
    uses_magic_commas,
)

from ._probes import Probes
from ._shapes import lacks_keyword

TARGETS = ("torch.meshgrid", "torch.functional.meshgrid")


class MeshgridWithoutIndexing(Rule):
    """`torch.meshgrid(a, b)` without `indexing=`: torch warns that the argument will be required.

    What it finds: calls of `torch.meshgrid` (and `torch.functional.meshgrid`), through aliases
    and imports, that pass no `indexing=` or pass `indexing=None`. `numpy.meshgrid` and other
    libraries' `meshgrid` are not matched. Left alone: calls with `**kwargs` (the keyword may be
    in them), and the known compat shapes: the fallback of `try: torch.meshgrid(..., indexing=...)
    except TypeError:`, and both branches of a test that reads the signature
    (`"indexing" in torch.meshgrid.__kwdefaults__`, `inspect.signature(torch.meshgrid).parameters`,
    or a name assigned such a test), and an `if` one of whose branches passes `indexing=` (the other
    leaves it out on purpose, e.g. mmengine's `if _torch_version_meshgrid_indexing:`).

    Why: UserWarning from C++ (TensorShape.cpp, once per process): "torch.meshgrid: in an
    upcoming release, it will be required to pass the indexing argument." Without it the
    indexing is "ij" (matrix indexing); NumPy's default is "xy".

    Example:
        xs, ys = torch.meshgrid(x, y)
        # becomes
        xs, ys = torch.meshgrid(x, y, indexing="ij")

    Fix safety: safe: "ij" is what the call does today, and `indexing=` exists in every torch
    2.x (the 2.0.0 wheel's functional.py has `indexing: Optional[str] = None`; it came in 1.10).

    Verified: the text is in `libtorch_cpu` of every wheel read, 2.0.0 to 2.15.0 (strings of
    the binaries); runtime on 2.13: the warning, and the same grids with `indexing="ij"` without
    it. Truth: K-131/meshgrid-without-indexing.

    Validation: none.
    """

    code = "ADV131"
    name = "meshgrid-without-indexing"
    message = (
        "`torch.meshgrid` without `indexing=` warns (UserWarning from C++) that the argument will be required; "
        'pass `indexing="ij"`, what it does today (NumPy\'s default is "xy")'
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = ("meshgrid",)
    targets = TARGETS
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\ngx, gy = torch.meshgrid(x, y, indexing='ij')\n",
        "import torch\ngx, gy = torch.meshgrid(x, y, indexing='xy')\n",
        "import numpy as np\ngx, gy = np.meshgrid(x, y)\n",
        "import torch\ngx, gy = torch.meshgrid(x, y, **kw)\n",
        "import torch\ntry:\n    g = torch.meshgrid(x, y, indexing='ij')\nexcept TypeError:\n    g = torch.meshgrid(x, y)\n",
        "import torch\nif 'indexing' in torch.meshgrid.__kwdefaults__:\n    g = torch.meshgrid(x, y, indexing='ij')\n"
        "else:\n    g = torch.meshgrid(x, y)\n",
        "import torch\nif OK and torch.__version__ >= '1.10':\n    g = torch.meshgrid(x, y, indexing='ij')\n"
        "else:\n    g = torch.meshgrid(x, y)\n",
        "import inspect, torch\nNEW = 'indexing' in inspect.signature(torch.meshgrid).parameters\n"
        "def grid(x, y):\n    return torch.meshgrid(x, y, indexing='ij') if NEW else torch.meshgrid(x, y)\n",
    ]
    invalid = [
        Example(
            "import torch\ngx, gy = torch.meshgrid(x, y)\n",
            fixed='import torch\ngx, gy = torch.meshgrid(x, y, indexing="ij")\n',
            line=2,
            column=10,
        ),
        Example(
            "from torch import meshgrid\ng = meshgrid([x, y], indexing=None)\n",
            fixed='from torch import meshgrid\ng = meshgrid([x, y], indexing="ij")\n',
        ),
        Example(
            "import torch as th\ng = th.meshgrid(\n    x,\n    y,\n)\n",
            fixed='import torch as th\ng = th.meshgrid(\n    x,\n    y,\n    indexing="ij",\n)\n',
        ),
        Example(
            "import torch\ng = torch.meshgrid(*axes)\n",
            fixed='import torch\ng = torch.meshgrid(*axes, indexing="ij")\n',
        ),
        Example("import torch\ntry:\n    g = torch.meshgrid(x, y)\nexcept TypeError:\n    g = None\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A reference (Rule.may_match), and, besides, a `meshgrid(` call that may pass no `indexing=` (or `indexing=None`)
        g = TEXT_GAPS
        return cls.text_gate_with(*keyword_calls("meshgrid", rf"indexing(?!{g}={g}(?:\({g})*None\b)", False))

    @classmethod
    def may_match(cls, refs) -> bool:
        return super().may_match(refs) and lacks_keyword(refs.calls_of(TARGETS), "indexing")

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._probes = Probes("indexing", lambda call: self.match(call.func, TARGETS) is not None)

    def visit_Assign(self, node) -> None:
        self._probes.assign(node)

    def visit_Try(self, node) -> None:
        self._probes.enter(node)

    def leave_Try(self, node) -> None:
        self._probes.leave(node)

    visit_If = visit_IfExp = visit_ExceptHandler = visit_Try
    leave_If = leave_IfExp = leave_ExceptHandler = leave_Try

    def visit_Call(self, node) -> None:
        if self.match(node.func, TARGETS) is None or any(a.star == "**" for a in node.args):
            return
        given = get_arg(node, "indexing")
        if given is not None and not (isinstance(given.value, cst.Name) and given.value.value == "None"):
            return
        if self._probes.around():
            return
        if given is None:
            magic = uses_magic_commas(self.ctx.code_for(node))
            self.report(node, replacement=append_args(node, [kwarg("indexing", '"ij"')], magic))
        else:
            self.report(node, replacement=node.deep_replace(given.value, cst.SimpleString('"ij"')))
