from __future__ import annotations

from advisor.rule import Applicability, Example, Kind, Severity, Symbol, SymbolRule, Window, rewrite_reference

from ._linalg_args import linalg_args

_REMOVED = "`{old}` was removed (calling it raises RuntimeError since 2.0); use `{new}`"
_DEPRECATED = "`{old}` is deprecated (it warns) in favour of `{new}` (check the argument and return differences)"
_REMOVED_214 = "`{old}` was removed in 2.14 (calling it raises RuntimeError; it warned since 1.9); use `{new}`"
_QR = _REMOVED_214 + ' (`some=False` is `mode="complete"`)'
_RETURN_TYPES = (
    "`{old}` was removed in 2.14 (AttributeError); `torch.linalg.qr` returns `torch.return_types.linalg_qr` (`Q`, `R`)"
)
_WINDOW_214 = Window(deprecated_in="1.9", removed_in="2.14")
# lu / lu_solve / triangular_solve warn from C++ in every release the catalogue covers (checked: their
# "torch.<name> is deprecated" strings are in torch/lib/libtorch_cpu.dylib of the 2.0.0 and 2.15.0 wheels).
_WARNS_FROM_20 = Window(deprecated_in="2.0")
_DOCS = "`{old}` is deprecated in its documentation (no warning yet) in favour of `{new}` (check the argument and return differences)"


# Window fields the API index cannot settle (stated in the docs, below).
_STUBS = 'stubs that raise in every release from 2.0 (`2.0.0 torch/_linalg_utils.py:96-128`: "This function was\ndeprecated since version 1.9 and is now removed"): breaking by kind, with no release of removal to name.'
_QR_CXX = 'C++ warnings until 2.13: C++ text "torch.qr is deprecated in favor of torch.linalg.qr" and C++ text\n"torch.cholesky is deprecated in favor of torch.linalg.cholesky" (libtorch_cpu, 2.0.0-2.13.0; warned since 1.9;\n`torch.return_types.qr` is what `torch.qr` returns).'
_LU_CXX = 'C++ warnings: C++ text "torch.lu is deprecated in favor of torch.linalg.lu_factor", C++ text\n"torch.lu_solve is deprecated in favor of torch.linalg.lu_solve" and C++ text "torch.triangular_solve is\ndeprecated in favor of torch.linalg.solve_triangular" (libtorch_cpu, 2.0.0-2.15.0).'


class LegacyLinalg(SymbolRule):
    """Removed or deprecated `torch.*` linear algebra, with its `torch.linalg` replacement.

    What it finds: `torch.symeig`, `torch.eig`, `torch.solve`, `torch.lstsq`,
    `torch.matrix_rank` (removed: on 2.13 they exist only as stubs that raise
    "This function was deprecated since version 1.9 and is now removed"),
    `torch.qr`, `torch.cholesky` (removed in 2.14: RuntimeError; they warned
    UserWarning since 1.9, up to 2.13) and `torch.return_types.qr` / `qr_out`
    (AttributeError from 2.14), `torch.lu`, `torch.lu_solve`,
    `torch.triangular_solve` (which warn), `torch.svd` and `torch.norm`
    (deprecated in their docs only: reported as advice, which does not fail a run). The Tensor methods
    `x.qr()` / `x.cholesky()` are ADV757.

    Why: the `torch.linalg` versions are the maintained ones, and on CUDA they
    are the ones that 2.12's cuSOLVER dispatch (and its removal of MAGMA paths)
    is about.

    Example:
        e, v = torch.symeig(a, eigenvectors=True)
        # becomes
        e, v = torch.linalg.eigh(a)

    Fix safety: `torch.cholesky` -> `torch.linalg.cholesky` and `torch.qr` ->
    `torch.linalg.qr` (with `some=` -> `mode=` for literals; a positional
    `upper` becomes `upper=`, keyword-only in linalg) are safe: identical
    results on 2.13, `out=` included (verified: tests/truth R14-1/rewrite-equivalent,
    R14-2/rewrite-equivalent); the others are not plain renames and get no fix.
    Signatures and results differ:
    `torch.svd` returns V, `linalg.svd` returns Vh; `torch.solve(B, A)` becomes
    `linalg.solve(A, B)`; `torch.lu_solve` argument order changes; `torch.qr`'s
    `some=` becomes `mode=`; `torch.eig` returned real pairs, `linalg.eig`
    returns complex tensors.

    Validation: `linalg_eigh` (for the eigh family; it tests eigh, so it says
    nothing about the qr / cholesky findings).

    Window: stubs that raise in every release from 2.0 (`2.0.0 torch/_linalg_utils.py:96-128`: "This function was
    deprecated since version 1.9 and is now removed"): breaking by kind, with no release of removal to name.

    Window: C++ warnings until 2.13: C++ text "torch.qr is deprecated in favor of torch.linalg.qr" and C++ text
    "torch.cholesky is deprecated in favor of torch.linalg.cholesky" (libtorch_cpu, 2.0.0-2.13.0; warned since 1.9;
    `torch.return_types.qr` is what `torch.qr` returns).

    Window: C++ warnings: C++ text "torch.lu is deprecated in favor of torch.linalg.lu_factor", C++ text
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solve" and C++ text "torch.triangular_solve is
    deprecated in favor of torch.linalg.solve_triangular" (libtorch_cpu, 2.0.0-2.15.0).
    """

    code = "ADV206"
    statement_local = True  # reported at the reference; nothing else read
    name = "legacy-linalg"
    message = _DEPRECATED
    severity = Severity.WARNING
    since = "2.0"
    validation = "linalg_eigh"
    window_exceptions = {
        **{f"torch.{n} removed_in": _STUBS for n in ("symeig", "eig", "solve", "lstsq", "matrix_rank")},
        **{f"torch.{n} deprecated_in": _QR_CXX for n in ("qr", "cholesky", "return_types.qr", "return_types.qr_out")},
        **{f"torch.{n} deprecated_in": _LU_CXX for n in ("lu", "lu_solve", "triangular_solve")},
    }
    names = {
        "torch.symeig": Symbol(_REMOVED, "torch.linalg.eigh"),
        "torch.eig": Symbol(_REMOVED, "torch.linalg.eig"),
        "torch.solve": Symbol(_REMOVED, "torch.linalg.solve"),
        "torch.lstsq": Symbol(_REMOVED, "torch.linalg.lstsq"),
        "torch.matrix_rank": Symbol(_REMOVED, "torch.linalg.matrix_rank"),
        "torch.qr": Symbol(_QR, "torch.linalg.qr", window=_WINDOW_214),
        "torch.cholesky": Symbol(_REMOVED_214, "torch.linalg.cholesky", window=_WINDOW_214),
        "torch.return_types.qr": Symbol(_RETURN_TYPES, window=_WINDOW_214),
        "torch.return_types.qr_out": Symbol(_RETURN_TYPES, window=_WINDOW_214),
        "torch.lu": Symbol(_DEPRECATED, "torch.linalg.lu_factor", window=_WARNS_FROM_20),
        "torch.lu_solve": Symbol(_DEPRECATED, "torch.linalg.lu_solve", window=_WARNS_FROM_20),
        "torch.triangular_solve": Symbol(_DEPRECATED, "torch.linalg.solve_triangular", window=_WARNS_FROM_20),
        "torch.svd": Symbol(_DOCS, "torch.linalg.svd"),
        "torch.norm": Symbol(_DOCS, "torch.linalg.norm"),
    }
    # Every name's own last part: a whole-word trigger "lu" does not match "lu_solve" (the prefilter's words).
    triggers = tuple(sorted({qualname.rpartition(".")[2] for qualname in names}))

    def on_reference(self, node, qualname) -> None:
        symbol = self.names[qualname]
        # Report only: none of these is a plain rename (see Fix safety). A docs-only deprecation
        # neither warns nor fails: advice, which does not fail a run by default.
        # One that raises on every release the catalogue knows (removed before 2.0) is breaking, whatever
        # the family: kind BREAKING, not a window (no "breaks in 2.0:" prefix: its message says "removed").
        kind = Kind.ADVICE if symbol.message is _DOCS else Kind.BREAKING if symbol.message is _REMOVED else None
        self.report(node, symbol.message.format(old=qualname, new=symbol.replacement), window=symbol.window, kind=kind)

    def on_call(self, node, qualname) -> None:
        symbol = self.names[qualname]
        args = None if qualname not in ("torch.cholesky", "torch.qr") else linalg_args(node, qualname)
        if args is None:
            super().on_call(node, qualname)
            return
        func, imports = rewrite_reference(self.ctx.resolver, node.func, symbol.replacement)
        self.report(
            node,
            symbol.message.format(old=qualname, new=symbol.replacement),
            window=symbol.window,
            replacement=node.with_changes(func=func, args=args),
            add_imports=imports,
            applicability=Applicability.SAFE,
        )

    fix = Applicability.SAFE  # torch.cholesky / torch.qr only (see on_call); the others are reported without a fix
    valid = [
        "import torch\nw, v = torch.linalg.eigh(a)",
        "import torch\nx = torch.linalg.svd(a)",
        "import numpy as np\nq, r = np.linalg.qr(a)",
        "import torch\nx = t.norm()",
        "def f(torch):\n    return torch.svd(a)",
    ]
    invalid = [
        Example("import torch\ne, v = torch.symeig(a, eigenvectors=True)\n"),
        Example(
            "import torch\nq, r = torch.qr(a)\nu, s, v = torch.svd(a)\n",
            count=2,
            message="removed in 2.14",
            fixed="import torch\nq, r = torch.linalg.qr(a)\nu, s, v = torch.svd(a)\n",
        ),
        Example("from torch import cholesky as chol\nL = chol(a)\n", message="removed in 2.14"),
        Example(
            "import torch\nL = torch.cholesky(a, True, out=o)\n",
            fixed="import torch\nL = torch.linalg.cholesky(a, upper=True, out=o)\n",
        ),
        Example(
            "import torch\nq, r = torch.qr(a, some=False)\n",
            fixed='import torch\nq, r = torch.linalg.qr(a, mode="complete")\n',
        ),
        Example("import torch\nq, r = torch.qr(a, flag)\n", fixed="import torch\nq, r = torch.qr(a, flag)\n"),
        Example("import torch\nT = torch.return_types.qr\n", message="AttributeError"),
        Example("import torch\nx, _ = torch.solve(b, a)\n"),
        Example("import torch\nn = torch.norm(x, dim=1)\n", message="in its documentation (no warning yet)"),
    ]
