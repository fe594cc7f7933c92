from __future__ import annotations

from advisor.rule import Example, Rule, Severity

TYPES = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte")
DTYPES = dict(
    Float="float32",
    Double="float64",
    Half="float16",
    BFloat16="bfloat16",
    Long="int64",
    Int="int32",
    Short="int16",
    Char="int8",
    Byte="uint8",
)
TARGETS = tuple(f"torch.{where}sparse.{t}Tensor" for where in ("", "cuda.") for t in TYPES)


class LegacySparseConstructor(Rule):
    """`torch.sparse.FloatTensor(indices, values, size)` (the legacy sparse constructors) is deprecated.

    What it finds: calls of `torch.sparse.FloatTensor`, `DoubleTensor`, `HalfTensor`,
    `BFloat16Tensor`, `LongTensor`, `IntTensor`, `ShortTensor`, `CharTensor` and `ByteTensor`
    (and their `torch.cuda.sparse` twins), through aliases and imports. Not `isinstance(x,
    torch.sparse.FloatTensor)` (no call: silent, checked on 2.13), not `torch.FloatTensor(...)`
    (dense: silent), not `torch.sparse.SparseSemiStructuredTensor`.

    Why: UserWarning from C++ (torch/csrc/utils/tensor_new.cpp), one text per form:
    "torch.sparse.SparseTensor(indices, values, shape, *, device=) is deprecated. Please use
    torch.sparse_coo_tensor(indices, values, shape, dtype=, device=)." and likewise for
    `(indices, values)`, `(shape)`, `()` and `(cdata=)`.

    Example:
        s = torch.sparse.FloatTensor(indices, values, torch.Size([2, 2]))
        # becomes
        s = torch.sparse_coo_tensor(indices, values, (2, 2), dtype=torch.float32)

    Fix safety: no automatic fix: the replacement is a different call (the shape forms take a
    size, `torch.sparse.FloatTensor(2, 3)` becomes `torch.sparse_coo_tensor(size=(2, 3))`), and
    from 2.11 `sparse_coo_tensor` without `check_invariants=` warns itself (ADV132), which the
    legacy constructor does not (checked on 2.13): pick `check_invariants=` when you rewrite.
    `torch.sparse_coo_tensor(..., dtype=)` exists in every torch 2.x.

    Verified: the five texts are in the 2.1.0 to 2.15.0 wheels (strings of the binaries; 2.0.0
    warned with other words); runtime on 2.13: each form warns, and `sparse_coo_tensor(...,
    dtype=torch.float32)` gives the same tensor. The CUDA twins go through the same constructor
    and were not run (no GPU). Truth: K-133/*.

    Validation: none.
    """

    code = "ADV133"
    name = "legacy-sparse-constructor"
    message = (
        "`{old}(...)` is deprecated (UserWarning from C++): use "
        "`torch.sparse_coo_tensor(indices, values, size, dtype=torch.{dtype})`"
    )
    severity = Severity.WARNING
    deprecated_in = "2.1"
    triggers = tuple(f"{t}Tensor" for t in TYPES)
    targets = TARGETS

    valid = [
        "import torch\ns = torch.sparse_coo_tensor(i, v, (2, 2), check_invariants=False)\n",
        "import torch\nok = isinstance(x, torch.sparse.FloatTensor)\n",
        "import torch\nx = torch.FloatTensor(2, 3)\n",
        "import torch\nfrom torch.sparse import SparseSemiStructuredTensor\ns = SparseSemiStructuredTensor(x)\n",
        "import mylib.sparse\ns = mylib.sparse.FloatTensor(i, v)\n",
    ]
    invalid = [
        Example(
            "import torch\ns = torch.sparse.FloatTensor(i, v, torch.Size([2, 2]))\n",
            message="torch.sparse_coo_tensor(indices, values, size, dtype=torch.float32)",
            line=2,
            column=5,
        ),
        Example("from torch.sparse import LongTensor\ns = LongTensor(2, 3)\n", message="torch.int64"),
        Example("import torch.sparse as tsp\ne = tsp.DoubleTensor()\n"),
        Example("import torch\ns = torch.cuda.sparse.HalfTensor(i, v, size)\n"),
    ]

    def visit_Call(self, node) -> None:
        old = self.match(node.func, TARGETS)
        if old is not None:
            kind = old.rpartition(".")[2][: -len("Tensor")]
            self.report(node, self.message.format(old=old, dtype=DTYPES[kind]))
