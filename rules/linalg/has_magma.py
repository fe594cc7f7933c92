from __future__ import annotations

from advisor.rule import Applicability, Example, Severity, Symbol, SymbolRule


class HasMagmaCheck(SymbolRule):
    """Branching on `torch.cuda.has_magma`: MAGMA paths are going away.

    What it finds: reads of `torch.cuda.has_magma` (and `torch._C._has_magma`).

    Why: the MAGMA linear-algebra backend is deprecated (torch warns once when
    it is selected) and 2.12 runs batched eigh on cuSOLVER unconditionally, so
    code that picks a MAGMA path, or a slow fallback when MAGMA is missing,
    is steering on a flag that no longer decides what runs. The attribute
    itself still exists and is not deprecated in 2.12/2.13.

    Example:
        if torch.cuda.has_magma:
            torch.backends.cuda.preferred_linalg_library("magma")

    Fix safety: no automatic fix; the right branch depends on your code.

    Validation: `linalg_eigh` shows what batched eigh does on your GPU.
    """

    code = "ADV202"
    name = "has-magma-check"
    message = "`{old}` steers on MAGMA, which is deprecated; 2.12 runs batched eigh on cuSOLVER regardless of it"
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.NONE
    validation = "linalg_eigh"
    triggers = ("has_magma", "_has_magma")  # whole words: "has_magma" is not a word of "torch._C._has_magma"
    names = {
        "torch.cuda.has_magma": Symbol(message),
        "torch._C._has_magma": Symbol(message),
    }

    valid = [
        "import torch\nx = torch.cuda.is_available()",
        "class C:\n    has_magma = True\nC.has_magma",
        "def f(torch):\n    return torch.cuda.has_magma",
    ]
    invalid = [
        Example("import torch\nif torch.cuda.has_magma:\n    pass\n"),
        Example("from torch.cuda import has_magma\nuse = has_magma and True\n"),
        Example("import torch.cuda as tc\nflag = tc.has_magma\n"),
    ]
