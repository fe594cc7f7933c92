from __future__ import annotations

from advisor.rule import Example, Rule, Severity, calls_to, cst, get_arg

from ._probes import Probes
from ._shapes import lacks_keyword

FACTORIES = tuple(
    f"torch.{name}"
    for name in (
        "sparse_coo_tensor",
        "sparse_csr_tensor",
        "sparse_csc_tensor",
        "sparse_bsr_tensor",
        "sparse_bsc_tensor",
        "sparse_compressed_tensor",
    )
)
CHECKER = "torch.sparse.check_sparse_tensor_invariants"
SWITCHES = ("enable", "disable")


class SparseWithoutCheckInvariants(Rule):
    """`torch.sparse_coo_tensor(...)` (and the other sparse factories) without `check_invariants=`.

    What it finds: calls of `torch.sparse_coo_tensor`, `sparse_csr_tensor`, `sparse_csc_tensor`,
    `sparse_bsr_tensor`, `sparse_bsc_tensor` and `sparse_compressed_tensor` that pass no
    `check_invariants=` (or pass `None`), through aliases and imports. Left alone: calls inside
    `with torch.sparse.check_sparse_tensor_invariants(...):` or a function decorated with it,
    every call in a file that switches the checks for the process
    (`torch.sparse.check_sparse_tensor_invariants.enable()` / `.disable()`: a file that uses that name
    and an `.enable` or `.disable` attribute), calls with
    `**kwargs`, the fallback of `try: ...(check_invariants=...) except TypeError:`, and an `if` one of
    whose branches passes `check_invariants=` (the other leaves it out on purpose).

    Why: UserWarning from C++, once per process, from torch 2.11: "Sparse invariant checks are
    implicitly disabled. Memory errors (e.g. SEGFAULT) will occur when operating on a sparse
    tensor which violates the invariants, but checks incur performance overhead. To silence this
    warning, explicitly opt in or out." It fires when the checks were never switched (by the
    keyword, the context manager or `enable()`/`disable()`); `check_invariants=None` still
    warns. In library code every user of the library sees it.

    Example:
        s = torch.sparse_coo_tensor(indices, values, size)
        # becomes (indices you built yourself)
        s = torch.sparse_coo_tensor(indices, values, size, check_invariants=False)
        # or (indices from outside: checked, at a cost)
        s = torch.sparse_coo_tensor(indices, values, size, check_invariants=True)

    Fix safety: no automatic fix. `check_invariants=False` keeps what the call does today, but an
    explicit False also overrides a caller's `with check_sparse_tensor_invariants():` (checked on
    2.13: the checks are skipped), and True adds checks that cost time and may raise: only you
    know whether the indices can be trusted. The keyword exists in every torch 2.x (the 2.0.0
    wheel's `_torch_docs.py`).

    Verified: the text is in `libtorch_cpu` of the 2.11.0, 2.12.0 and 2.15.0 wheels and not in
    2.10.0's or older (strings of the binaries); runtime on 2.13: each factory warns, and
    `check_invariants=True`/`False`, the context manager and `enable()`/`disable()` silence it.
    Truth: K-132/*.

    Validation: none.
    """

    @classmethod
    def may_match(cls, refs) -> bool:
        """Not in a file that switches the checks for the process (`check_sparse_tensor_invariants.enable()` or
        `.disable()`): read from the attributes the file uses, so no walk is needed."""
        switches = "check_sparse_tensor_invariants" in refs.attributes and not refs.attributes.isdisjoint(SWITCHES)
        if switches or not super().may_match(refs):
            return False
        return lacks_keyword(calls_to(refs, FACTORIES), "check_invariants")  # torch's own code mostly passes it

    code = "ADV132"
    name = "sparse-without-check-invariants"
    message = (
        "`{old}` without `check_invariants=` warns once per process (UserWarning from C++) that "
        "sparse invariant checks are implicitly disabled; pass `check_invariants=False` (today's behaviour) "
        "or `True` (checked, slower)"
    )
    severity = Severity.WARNING
    deprecated_in = "2.11"
    triggers = tuple(name.rpartition(".")[2] for name in FACTORIES)
    targets = FACTORIES
    may_match_refers = True  # its may_match asks Rule.may_match first

    valid = [
        "import torch\ns = torch.sparse_coo_tensor(i, v, (3,), check_invariants=False)\n",
        "import torch\ns = torch.sparse_csr_tensor(c, r, v, check_invariants=True)\n",
        "import torch\nwith torch.sparse.check_sparse_tensor_invariants():\n    s = torch.sparse_coo_tensor(i, v)\n",
        "import torch\n@torch.sparse.check_sparse_tensor_invariants(enable=False)\ndef f(i, v):\n"
        "    return torch.sparse_coo_tensor(i, v)\n",
        "import torch\ntorch.sparse.check_sparse_tensor_invariants.enable()\ns = torch.sparse_coo_tensor(i, v)\n",
        "import torch\ns = torch.sparse_coo_tensor(i, v, **kw)\n",
        "import scipy.sparse as sp\ns = sp.coo_matrix((v, (r, c)))\n",
        "import torch\ntry:\n    s = torch.sparse_coo_tensor(i, v, check_invariants=True)\nexcept TypeError:\n"
        "    s = torch.sparse_coo_tensor(i, v)\n",
    ]
    invalid = [
        Example("import torch\ns = torch.sparse_coo_tensor(i, v, (3,))\n", message="`torch.sparse_coo_tensor`", line=2),
        Example("from torch import sparse_csr_tensor as csr\ns = csr(c, r, v, check_invariants=None)\n"),
        Example(
            "import torch\ndef f(c, r, v):\n    return torch.sparse_compressed_tensor(c, r, v, layout=torch.sparse_bsr)\n"
        ),
        Example(
            "import torch\nwith torch.no_grad():\n    s = torch.sparse_bsc_tensor(c, r, v)\n"
            "t = torch.sparse_coo_tensor(i, v)\n",
            count=2,
        ),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._checked = 0  # inside `with check_sparse_tensor_invariants(...)` or a function it decorates
        self._probes = Probes("check_invariants", lambda call: self.match(call.func, FACTORIES) is not None)

    def _checker(self, node) -> bool:
        return isinstance(node, cst.Call) and self.match(node.func, (CHECKER,)) is not None

    def visit_With(self, node) -> None:
        if any(self._checker(item.item) for item in node.items):
            self._checked += 1

    def leave_With(self, node) -> None:
        if any(self._checker(item.item) for item in node.items):
            self._checked -= 1

    def visit_FunctionDef(self, node) -> None:
        if any(self._checker(d.decorator) for d in node.decorators):
            self._checked += 1

    def leave_FunctionDef(self, node) -> None:
        if any(self._checker(d.decorator) for d in node.decorators):
            self._checked -= 1

    def visit_Try(self, node) -> None:
        self._probes.enter(node)

    def leave_Try(self, node) -> None:
        self._probes.leave(node)

    visit_If = visit_IfExp = visit_ExceptHandler = visit_Try
    leave_If = leave_IfExp = leave_ExceptHandler = leave_Try

    def visit_Call(self, node) -> None:
        if self._checked:
            return
        old = self.match(node.func, FACTORIES)
        if old is None or any(a.star == "**" for a in node.args):
            return
        given = get_arg(node, "check_invariants")
        if given is not None and not (isinstance(given.value, cst.Name) and given.value.value == "None"):
            return
        if not self._probes.around():
            self.report(node, self.message.format(old=old))
