from __future__ import annotations

from advisor.rule import ALSO_NEEDED, CODE_ONLY, TEXT_GAP, TEXT_GAPS, Example, Severity, calls_to, cst

from .._tensors import FACTORIES, TENSOR_TYPES, KnownTensors

METHODS = ("rename", "rename_", "refine_names", "align_to", "align_as", "has_names")
# The factories that took `names=` up to 2.12 (torch/_C/_VariableFunctions.pyi of the 2.12.0 wheel).
NAMED_FACTORIES = tuple(f"torch.{f}" for f in ("empty", "zeros", "ones", "full", "rand", "randn"))


class NamedTensors(KnownTensors):
    """Named tensors were removed in torch 2.13: `x.rename(...)`, `x.refine_names(...)`, `names=`.

    What it finds: the named-tensor API as people call it: `x.rename(None)`, `x.rename(...)`,
    `x.rename_(...)`, `x.refine_names(...)`, `x.align_to(...)`, `x.align_as(...)`,
    `x.has_names()` and `x.names`, where `x` is known to be a torch tensor (the result of a
    torch factory, a name bound to one in the same function, or a parameter annotated
    `torch.Tensor`; see `rules/_tensors.py`), and `names=` on `torch.empty/zeros/ones/full/rand/randn`.
    The same method on anything else (a pandas `DataFrame.rename`, an object of unknown type)
    is not matched. The bare attribute `torch.Tensor.rename` is the mined family's (ADV001).

    Why: torch 2.13 dropped named tensors: on 2.13 `x.rename(None)` raises AttributeError
    ("'Tensor' object has no attribute 'rename'") and `torch.zeros(2, 3, names=('N', 'C'))`
    raises TypeError ("zeros() got an unexpected keyword argument 'names'"), `names=None` too.
    Up to 2.12 they worked, with only the C++ "experimental feature" warning, so there was no
    deprecation period. Code that only drops names (`x.rename(None)`) can drop the call once
    the project needs torch >= 2.13; code that aligns by name must permute by position.

    Example:
        x = torch.zeros(2, 3, names=("N", "C")).align_to("C", "N")
        # becomes (by hand)
        x = torch.zeros(2, 3).permute(1, 0)

    Window: `names=` on the factories is a keyword the index does not record; the methods are in it.

    Fix safety: none: up to 2.12 the names change what later calls do.
    Verified: the 2.12.0 wheel (torch/_tensor.py defines `rename`, `refine_names`, `align_to`;
    `_VariableFunctions.pyi` has `names=` on the six factories) and the 2.13.0 wheel (neither),
    and torch 2.13.0 CPU at run time. Truth: K-150/named-tensors.
    Validation: none.
    """

    reports_at_references = True  # at the methods and `.names` (attribute targets), or a factory's `names=`

    code = "ADV150"
    name = "named-tensors"
    message = "named tensors were removed in torch 2.13 ({what} raises {error}); drop the names, index dims by position"
    severity = Severity.ERROR
    removed_in = "2.13"
    triggers = ("names", *METHODS)
    targets = NAMED_FACTORIES
    attribute_targets = (*METHODS, "names")
    window_apis = {"old": ("torch.Tensor.rename", "torch.Tensor.refine_names", "torch.Tensor.align_to")}

    valid = [
        "import torch\nx = torch.zeros(2, 3)\ny = x.permute(1, 0)\n",
        # pandas and other libraries' rename
        "import torch\nimport pandas as pd\ndf = pd.DataFrame()\ndf = df.rename(columns={'a': 'b'})\n",
        "import torch\ndef f(df):\n    return df.rename(None)\n",  # receiver of unknown type
        "import torch\nx = torch.zeros(2)\nx = load()\nx.rename(None)\n",  # rebound to something else
        "import torch\nimport numpy as np\na = np.zeros(3, names=None)\n",  # not torch's factory
        "x = torch.zeros(2, 3)\nx.rename(None)\n",  # no torch import
        # written for old and new torch alike
        "import torch\nx = torch.zeros(2)\ntry:\n    x = x.rename(None)\nexcept AttributeError:\n    pass\n",
    ]
    invalid = [
        Example(
            "import torch\nx = torch.randn(2, 3)\nx = x.rename(None)\n",
            message="`x.rename()` raises AttributeError",
            line=3,
            column=5,
        ),
        Example(
            "import torch\nimgs = torch.zeros(2, 3, names=('N', 'C'))\n",
            message="`names=` raises TypeError",
            line=2,
            column=26,
        ),
        Example("import torch\nx = torch.zeros(2, 3).refine_names('N', 'C').align_to('C', 'N')\n"),
        Example("from torch import Tensor\ndef f(x: Tensor):\n    return x.align_to('C', ...)\n"),
        Example("import torch as t\ndef f(x: t.Tensor):\n    return x.names\n", message="`x.names`"),
        Example("import torch\nx = torch.ones(2)\nif x.has_names():\n    x.rename_(None)\n", count=2),
        # code kept for an older torch: a compat finding, never a fix
        Example(
            "import torch\nif torch.__version__ < '2.13':\n    x = torch.zeros(2, 3, names=('N', 'C'))\n",
            message="compat fallback",
        ),
        Example(
            "import torch\nx = torch.zeros(2)\nif hasattr(x, 'rename'):\n    x = x.rename(None)\n",
            message="compat fallback",
        ),
    ]

    @classmethod
    def text_gate(cls):
        # A factory or `torch.Tensor` referred to (`may_know_tensors`), and, besides, an attribute of those names
        # (`.rename`: a dot, spaces and comments, the name) or a factory given `names=` (a keyword: after `(` or `,`)
        gap = TEXT_GAPS
        attributes = "|".join(sorted(cls.attribute_targets))
        attribute = rf"{CODE_ONLY}\.{gap}(?:{attributes})\b"
        keyword = rf"{CODE_ONLY}[(,]{gap}names{TEXT_GAP}*=(?!=)"
        return tuple(sorted((*FACTORIES, *TENSOR_TYPES))), (), (ALSO_NEEDED + attribute, ALSO_NEEDED + keyword), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # A method or `.names` (on whatever), or a factory call that passes `names=`: most files call
        # `torch.zeros` without it. Either needs a value known to be a tensor.
        if not cls.may_know_tensors(refs):
            return False
        if not refs.attributes.isdisjoint(cls.attribute_targets):
            return True
        calls = calls_to(refs, NAMED_FACTORIES)
        return any(k.arg == "names" for c in calls for k in c.keywords)

    def visit_Call(self, node) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value in METHODS and self.is_tensor(func.value):
            self._report(node, f"`{self._who(func.value)}.{func.attr.value}()`", "AttributeError")
            return
        named = [a for a in node.args if a.keyword is not None and a.keyword.value == "names"]
        if named and self.match(func, NAMED_FACTORIES) is not None:
            self._report(named[0], "`names=`", "TypeError")

    def visit_Attribute(self, node) -> None:
        if node.attr.value == "names" and self.is_tensor(node.value):
            self._report(node, f"`{self._who(node.value)}.names`", "AttributeError")

    def _who(self, receiver) -> str:
        code = self.ctx.code_for(receiver)
        return code if len(code) <= 30 else "Tensor"

    def _report(self, node, what: str, error: str) -> None:
        if self.imports_torch() and not self.in_probe():
            self.report(node, self.message.format(what=what, error=error))
