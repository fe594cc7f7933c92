from __future__ import annotations

from advisor.rule import Applicability, Example, Kind, Severity, Symbol, SymbolRule

_REMOVED = "`{old}` was removed (calling it raises RuntimeError since 2.0); use `{new}`"
_DEPRECATED = "`{old}` is deprecated (it warns) in favour of `{new}` (check the argument and return differences)"
_DOCS = "`{old}` is deprecated in its documentation (no warning yet) in favour of `{new}` (check the argument and return differences)"


class LegacyLinalg(SymbolRule):
    """Removed or deprecated `torch.*` linear algebra, with its `torch.linalg` replacement.

    What it finds: `torch.symeig`, `torch.eig`, `torch.solve`, `torch.lstsq`,
    `torch.matrix_rank` (removed: on 2.13 they exist only as stubs that raise
    "This function was deprecated since version 1.9 and is now removed"), and
    `torch.qr`, `torch.cholesky`, `torch.lu`, `torch.lu_solve`,
    `torch.triangular_solve` (which warn), `torch.svd` and `torch.norm`
    (deprecated in their docs only: reported as advice, which does not fail a run).

    Why: the `torch.linalg` versions are the maintained ones, and on CUDA they
    are the ones that 2.12's cuSOLVER dispatch (and its removal of MAGMA paths)
    is about.

    Example:
        e, v = torch.symeig(a, eigenvectors=True)
        # becomes
        e, v = torch.linalg.eigh(a)

    Fix safety: no automatic fix. Signatures and results differ:
    `torch.svd` returns V, `linalg.svd` returns Vh; `torch.solve(B, A)` becomes
    `linalg.solve(A, B)`; `torch.lu_solve` argument order changes; `torch.qr`'s
    `some=` becomes `mode=`; `torch.eig` returned real pairs, `linalg.eig`
    returns complex tensors.

    Validation: `linalg_eigh` (for the eigh family).
    """

    code = "ADV206"
    name = "legacy-linalg"
    message = _DEPRECATED
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.NONE
    validation = "linalg_eigh"
    triggers = ("symeig", "eig", "solve", "lstsq", "matrix_rank", "qr", "cholesky", "lu", "svd", "norm")
    names = {
        "torch.symeig": Symbol(_REMOVED, "torch.linalg.eigh"),
        "torch.eig": Symbol(_REMOVED, "torch.linalg.eig"),
        "torch.solve": Symbol(_REMOVED, "torch.linalg.solve"),
        "torch.lstsq": Symbol(_REMOVED, "torch.linalg.lstsq"),
        "torch.matrix_rank": Symbol(_REMOVED, "torch.linalg.matrix_rank"),
        "torch.qr": Symbol(_DEPRECATED, "torch.linalg.qr"),
        "torch.cholesky": Symbol(_DEPRECATED, "torch.linalg.cholesky"),
        "torch.lu": Symbol(_DEPRECATED, "torch.linalg.lu_factor"),
        "torch.lu_solve": Symbol(_DEPRECATED, "torch.linalg.lu_solve"),
        "torch.triangular_solve": Symbol(_DEPRECATED, "torch.linalg.solve_triangular"),
        "torch.svd": Symbol(_DOCS, "torch.linalg.svd"),
        "torch.norm": Symbol(_DOCS, "torch.linalg.norm"),
    }

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        # Report only: none of these is a plain rename (see Fix safety). A docs-only deprecation
        # neither warns nor fails: advice, which does not fail a run by default.
        kind = Kind.ADVICE if symbol.message is _DOCS else None
        self.report(node, symbol.message.format(old=qualname, new=symbol.replacement), kind=kind)

    valid = [
        "import torch\nw, v = torch.linalg.eigh(a)",
        "import torch\nx = torch.linalg.svd(a)",
        "import numpy as np\nq, r = np.linalg.qr(a)",
        "import torch\nx = t.norm()",
        "def f(torch):\n    return torch.svd(a)",
    ]
    invalid = [
        Example("import torch\ne, v = torch.symeig(a, eigenvectors=True)\n"),
        Example("import torch\nq, r = torch.qr(a)\nu, s, v = torch.svd(a)\n", count=2),
        Example("from torch import cholesky as chol\nL = chol(a)\n"),
        Example("import torch\nx, _ = torch.solve(b, a)\n"),
        Example("import torch\nn = torch.norm(x, dim=1)\n", message="in its documentation (no warning yet)"),
    ]
