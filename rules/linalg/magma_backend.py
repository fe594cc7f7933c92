from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, calls_to, cst, get_arg, string_value

_FUNCS = {"torch.backends.cuda.preferred_linalg_library"}
_ENUM = {"torch._C._LinalgBackend.Magma"}


class MagmaLinalgBackend(Rule):
    """`preferred_linalg_library("magma")`: the MAGMA backend is deprecated; cuSOLVER is the default.

    What it finds: `torch.backends.cuda.preferred_linalg_library("magma")`,
    positional or `backend="magma"`, through aliases, and any use of
    `torch._C._LinalgBackend.Magma`. A call with no argument (a query) or with
    `"cusolver"` / `"default"` is fine.

    Why: torch (2.11 already) emits a one-time warning when MAGMA is selected:
    "The usage of MAGMA backend for linear algebra operations is deprecated and
    will be removed in future releases. cuSOLVER stays as the default backend."
    In 2.12 batched `torch.linalg.eigh` dispatches to cuSOLVER `syevj_batched`
    unconditionally (PR #175403), so preferring MAGMA no longer buys eigh
    anything. Which other ops still honour the preference in 2.12 is not
    verified. Observed on the 2.14.1 and 2.15.0 CUDA wheels (no GPU): the
    warning is printed by C++ at selection, not through Python `warnings`, so
    `-W error` does not catch it (tests/truth B15-2/magma-selection-warning).

    Example:
        torch.backends.cuda.preferred_linalg_library("magma")
        # becomes
        torch.backends.cuda.preferred_linalg_library("default")

    Fix safety: unsafe. Results of eigh/svd/qr/cholesky can differ within
    tolerance and eigenvector signs or phases can flip when the backend changes.
    The enum form is reported without a fix.

    Validation: `linalg_eigh` checks residuals, orthogonality and agreement with
    a float64 reference, and records whether the MAGMA warning fires.

    References: PyTorch PRs #174619, #175403; torch/backends/cuda/__init__.py.
    """

    code = "ADV201"
    name = "magma-linalg-backend"
    message = "the MAGMA linear-algebra backend is deprecated (torch warns once when it is selected); cuSOLVER is the default, and 2.12 runs batched eigh on cuSOLVER regardless"
    severity = Severity.WARNING
    since = "2.0"
    fix = Applicability.UNSAFE
    validation = "linalg_eigh"
    triggers = ("preferred_linalg_library", "Magma")
    targets = (*_FUNCS, *_ENUM)
    strings_name_targets = False  # reported at calls and references only ("magma" is an argument, not a target)
    may_match_refers = True  # its own `may_match` asks Rule.may_match first: the text gate is the reference gate

    @classmethod
    def may_match(cls, refs) -> bool:
        # What it reports: the enum referred to, or the setter called with "magma" (any argument, a superset of the
        # `backend` it reads)
        if not super().may_match(refs):
            return False
        if refs.refers_to_any(tuple(_ENUM), False):
            return True
        return any(
            type(v).__name__ == "Constant" and v.value == "magma"
            for call in calls_to(refs, tuple(_FUNCS))
            for v in (*call.args, *(k.value for k in call.keywords))
        )

    valid = [
        "import torch\ntorch.backends.cuda.preferred_linalg_library()",
        "import torch\ntorch.backends.cuda.preferred_linalg_library('cusolver')",
        "def preferred_linalg_library(x): ...\npreferred_linalg_library('magma')",
        "import mylib\nmylib.preferred_linalg_library('magma')",
        "import torch\nb = torch.backends.cuda.preferred_linalg_library()\ntorch.backends.cuda.preferred_linalg_library(b)",
    ]
    invalid = [
        Example(
            'import torch\ntorch.backends.cuda.preferred_linalg_library("magma")\n',
            fixed='import torch\ntorch.backends.cuda.preferred_linalg_library("default")\n',
            message="the MAGMA linear-algebra backend is deprecated",
            line=2,
            column=1,
        ),
        Example(
            "from torch.backends.cuda import preferred_linalg_library as pll\npll(backend='magma')\n",
            fixed="from torch.backends.cuda import preferred_linalg_library as pll\npll(backend='default')\n",
        ),
        Example("import torch\ntorch.backends.cuda.preferred_linalg_library(torch._C._LinalgBackend.Magma)\n"),
        Example("import torch\nMAGMA = torch._C._LinalgBackend.Magma\n"),
        Example("import torch.backends.cuda as bc\nbc.preferred_linalg_library('magma')\n"),
    ]

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._handled: set = set()

    def visit_Call(self, node) -> None:
        if self.match(node.func, _FUNCS) is None:
            return
        arg = get_arg(node, "backend", 0)
        if arg is None:
            return
        if string_value(arg.value) == "magma":
            s = arg.value
            replacement = None
            if isinstance(s, cst.SimpleString):
                body = s.value[len(s.prefix) :]
                quote = body[:3] if body[:3] in ('"""', "'''") else body[0]
                replacement = s.with_changes(value=f"{s.prefix}{quote}default{quote}")
            self.report(node, replacement=replacement, fix_node=s)
        elif self.match(arg.value, _ENUM):
            self._handled.add(arg.value)
            self.report(node)

    def visit_Attribute(self, node) -> None:
        if node not in self._handled and self.match(node, _ENUM):
            self.report(node)
