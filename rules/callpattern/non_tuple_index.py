from __future__ import annotations

from advisor.rule import (
    AFTER_OPERAND,
    CODE_ONLY,
    TEXT_GAP,
    TEXT_GAPS,
    Applicability,
    Example,
    Rule,
    Severity,
    cst,
    two_deep,
)

from ._index_lists import LIST, NESTED, Judge

MESSAGE = (
    "indexing with a list that holds {what} (a non-tuple sequence) is deprecated (UserWarning from C++): "
    "torch reads it as a tuple today and will read it as a tensor index; index with `tuple(...)`"
)
WHAT = {"warn": "a slice, None or Ellipsis", "nested": "sequences"}


def _listy(value) -> bool:
    """A list display, comprehension, sum or product, or a call (`list(...)`): what may bind a list index."""
    return isinstance(value, (cst.List, cst.ListComp, cst.BinaryOperation, cst.Call))


class NonTupleIndex(Rule):
    """Indexing a tensor with a list of slices (`x[[slice(0, n)] * 2]`): a non-tuple sequence index.

    What it finds: a subscript whose index is a list that torch reads as a tuple: a list display,
    a list comprehension, `[slice(...)] * n`, a list concatenation, or a name bound in the same
    function to one of those (or to `list(...)`) and filled later (`idx[d] = slice(a, b)`,
    `idx.append(slice(a, b))`), when the list holds a `slice(...)`, `None`, `...` or `Ellipsis`
    (a list bound to a name must hold a `slice(...)`: `[None] * n` is a common placeholder).
    A list of sequences (`x[[[0, 1], [1, 2]]]`) is reported only where the subscripted value is
    known to be a tensor (a `torch.*` call's result, or a parameter annotated `Tensor`).
    A list of ints (`x[[0, 2]]`) is advanced indexing, silent and not reported; so is a list
    whose items are names or calls (each may be an int).

    Tensors and NumPy arrays: the rule cannot see types, so it reports every subscripted value
    that may be a tensor, in a file that imports torch, and leaves out values that plainly are not:
    literals, values made by NumPy, JAX, TensorFlow, CuPy, pandas, h5py, zarr, dask, xarray or
    SciPy (a call of theirs, `.numpy()`, `.tolist()`, or a parameter annotated `np.ndarray`,
    `list`, `Sequence`, ...), and pandas / zarr accessors (`.loc`, `.iloc`, `.vindex`). NumPy
    warns about (or, from 1.23, rejects) its own arrays itself; a list of sequences is a valid
    fancy index there, which is why such lists need a known tensor.

    Why: UserWarning from C++ (python_variable_indexing.cpp): "Using a non-tuple sequence for
    multidimensional indexing is deprecated and will be changed in pytorch 2.9; use x[tuple(seq)]
    instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)],
    which will result either in an error or a different result". Torch reads a list of fewer than
    32 items as a tuple when one item is a tensor, a sequence, a slice, None or Ellipsis. Setting
    (`x[idx] = v`) warns the same way.

    Example:
        idx = [slice(None)] * x.dim()
        idx[dim] = slice(0, n)
        y = x[idx]
        # becomes
        y = x[tuple(idx)]

    Fix safety: safe for a list display of ints, `slice(...)`, None and `...` (fewer than 32):
    torch already reads exactly `tuple(it)`. Unsafe everywhere else: a list that may be empty
    (`[slice(None)] * n` with n == 0, a comprehension) or that holds a slice only after a later
    statement ran is advanced indexing in the runs where it holds only ints, and `tuple(...)`
    changes those. `tuple(...)` exists in every Python: no torch release limits the fix.

    Verified: the text is in `libtorch_python` of the 2.8.0, 2.10.0, 2.11.0, 2.12.0 and 2.15.0 wheels
    and not in 2.0.0's, 2.4.0's, 2.6.0's or 2.7.0's (strings of the binaries); runtime on 2.13: which items warn, and that `x[tuple(seq)]`
    gives the same values without a warning. Truth: K-130/*.

    Validation: none.
    """

    code = "ADV130"
    whole_module = False  # a function is judged in itself; module level by its own statements, kept in slices
    name = "non-tuple-index"
    message = MESSAGE.format(what=WHAT["warn"])
    severity = Severity.WARNING
    deprecated_in = "2.8"
    fix = Applicability.SAFE
    # A direct list index starts `[[`; a list bound to a name holds a `slice(...)` (see _index_lists.py).
    triggers = ("slice", "[[None", "[[...", "[[Ellipsis", "[[[", "[[(", "[[*")

    valid = [
        "import torch\ny = x[[0, 2]]\n",
        "import torch\ny = x[tuple([slice(0, 2), 0])]\n",
        "import torch\ny = x[[i, j]]\n",
        "import torch\nimport numpy as np\na = np.zeros((3, 3))\ny = a[[slice(0, 2), 0]]\n",
        "import torch\ndef f(a: np.ndarray):\n    return a[[slice(0, 2), 0]]\n",
        "import torch\ndef f(x):\n    idx = [slice(None)] * x.dim()\n    idx = tuple(idx)\n    return x[idx]\n",
        "import torch\ndef f(x, idx):\n    return x[idx]\n",
        "import torch\ny = x[[[0, 1], [1, 2]]]\n",  # a fancy index on NumPy: needs a known tensor
        "import torch\nl = [[0, 1], [2, 3]][[slice(None)]]\n",
        "y = x[[slice(0, 2), 0]]\n",  # no torch in the file
        "import torch\ny = x[[slice(0, 2)], 0]\n",  # a tuple index holding a list: advanced indexing
        "import torch\ny = df.loc[[slice(None), 'a']]\n",
        "import torch\ndef f(x):\n    idx = list(range(3))\n    return x[idx]\n",
        "import torch\ndef f(x, p):\n    idx = x.shape[:-1] + (p, slice(None))\n    return x[idx]\n",  # a tuple
    ]
    invalid = [
        Example(
            "import torch\ny = x[[slice(0, 2), 0]]\n",
            fixed="import torch\ny = x[tuple([slice(0, 2), 0])]\n",
            message="non-tuple sequence",
            line=2,
            column=7,
        ),
        Example("import torch\nx[[None, ...]] = 1\n", fixed="import torch\nx[tuple([None, ...])] = 1\n"),
        Example("import torch\ny = x[[slice(0, n)] * 2]\n", fixed="import torch\ny = x[tuple([slice(0, n)] * 2)]\n"),
        Example(
            "import torch\ndef crop(x, d, n):\n    idx = [slice(None)] * x.dim()\n    idx[d] = slice(0, n)\n"
            "    return x[idx]\n",
            fixed="import torch\ndef crop(x, d, n):\n    idx = [slice(None)] * x.dim()\n    idx[d] = slice(0, n)\n"
            "    return x[tuple(idx)]\n",
            line=5,
        ),
        Example(
            "import torch\ndef f(x):\n    idx = [slice(None, None, -1) for _ in range(x.dim())]\n    return x[idx]\n"
        ),
        Example("import torch\ndef f(x, d):\n    idx = list(x.shape)\n    idx[d] = slice(1, None)\n    x[idx] = 0\n"),
        Example("import torch\ndef f(x: torch.Tensor):\n    return x[[[0, 1], [1, 2]]]\n", message="sequences"),
        Example("import torch\ndef f():\n    t = torch.ones(3, 3)\n    return t[[[0, 1], [1, 2]]]\n"),
        Example("import torch\ndef f(x, n):\n    head = [slice(None)] * n\n    return x[head + [None]]\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A list, a comprehension or a sum starting with one as a subscript's index (`x[[`, `x[ ([`), a list that
        # may hold a warning item added or multiplied in (`head + [None]`), or a call of `slice` a list may hold.
        # Spaces, parentheses, line breaks and comments may come between.
        gap = rf"(?:{TEXT_GAP}|\(|#[^\r\n]*+)*+"  # possessive: a comment of many `#` is not split every way
        # The list's items up to its first `]` hold one that may warn (a tuple's parenthesis: not a call's), or one
        # after which the text cannot tell (a bracket: its `]` may end the scan; a comment, a string with a bracket,
        # an escape or a line break in it; a plain string is looked past: `x + [" ..."]`); `Callable[[int],
        # None]` holds none.
        # Items are words (`None`, not `x_None`; a `slice`, not `aten.slice` or `x_slice`); a subscript with no bracket,
        # string or comment inside (`dims[1:]`) is one item, whatever its index holds.
        warns = r"(?<![\w.])(?:None|Ellipsis|slice)\b|\.\.\."
        plain = (
            rf"(?:(?!{warns})[^\]\[#\"'(]|(?<=[\w)\]])\(|(?<=[\w)\]])\[[^\[\]\"'#]*+\]"
            r"|\"[^\"\\\r\n\[\]]*\"|'[^'\\\r\n\[\]]*')"
        )
        items = rf"\[{plain}*+(?:{warns}|[\[#\"']|(?<![\w)\]])\()"
        # The `[` first, what is before it looked back at (no space, one, or more: then AFTER_OPERAND reads back past
        # line breaks and comments): a pattern that starts with a literal is looked for at C speed, one that starts
        # with `[\w)\]]` is tried at every byte.
        after = r"(?:(?<=[\w)\]]\[)|(?<=[\w)\]][ \t\f]\[)|(?<=[ \t\f\\\r\n][ \t\f\\\r\n]\[)|(?<=[\r\n\\]\[))"
        # The list the whole index, or the left of an operation (`x[[a] * n]`), not a tuple's first item
        # (`Callable[[int], None]`); read two brackets deep, past no string or comment: else the text cannot tell.
        flat = r"[^\[\]\"'#]"
        inside = rf"(?:{flat}|{two_deep('[')})*+"
        ends = rf"\](?:{TEXT_GAP}|\)|#[^\r\n]*+)*+[-\]+*/%@|&^<>]"
        whole = rf"(?=\[{inside}(?:{ends}|[\[\"'#]|\Z))"
        subscript = AFTER_OPERAND + r"\[" + after + gap + whole + items  # `x[`, not a display (`= [`, `(\n    [`)
        # a binary operation (as `ast_parts.warning_list` reads any), not `f(*[..])` or `-[..]` (a class first)
        added = AFTER_OPERAND + r"[-+*/%@|&^<>]\*?" + gap + items
        # `slice(...)` anywhere a list may hold it (`[slice(None)] * n`, `idx[d] = slice(a, b)`, `.append(slice(..))`),
        # but bound to a name or an attribute (`s = slice(a, b)`: no list holds it) or returned; not a method's
        # (`aten.slice(`) or a definition: only a call of the name counts (`ast_parts.slice_call`). What `x = ` may
        # also be: a keyword with spaces (`f(dim = slice(..))` may be in a list), a name after a subscript in a chain
        # (`idx[d] = s = slice(..)` stores it).
        g = TEXT_GAP
        sliced = rf"slice(?<![\w.]slice)(?<!\w = slice)(?<!return slice)(?<!def slice){g}*[(#]"
        keyword = rf"[(,]{TEXT_GAPS}\w++{g}*+={g}*+slice{g}*[(#]"
        chained = rf"[\])]{g}*+=(?!=)(?:{g}*+[\w.]++{g}*+=(?!=))+{g}*+slice{g}*[(#]"
        return (), (), tuple(CODE_ONLY + p for p in (subscript, added, sliced, keyword, chained)), (), ()

    @classmethod
    def may_match(cls, refs) -> bool:
        # A list display that may warn as the index, or a name a list holding a `slice(...)` goes into.
        return refs.imports_torch and (refs.index_lists or refs.slice_list_indexed())

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # one per enclosing function: its subscripts to judge, and the names assigned something list-like
        self._frames: list[tuple[Judge, list, set[str]]] = []
        self._module: Judge | None = None

    def visit_FunctionDef(self, node) -> None:
        self._frames.append((Judge(node, self.qualnames), [], set()))

    def leave_FunctionDef(self, node) -> None:
        judge, found, listy = self._frames.pop()
        for subscript, index in found:
            # a name is followed (its function's bindings built) only if something list-like was assigned to it
            if not isinstance(index, cst.Name) or index.value in listy:
                self._judge(judge, subscript, index)

    def visit_Assign(self, node) -> None:
        if self._frames and _listy(node.value):
            self._frames[-1][2].update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))

    def visit_AnnAssign(self, node) -> None:
        if self._frames and _listy(node.value) and isinstance(node.target, cst.Name):
            self._frames[-1][2].add(node.target.value)

    visit_Lambda = visit_FunctionDef
    leave_Lambda = leave_FunctionDef

    def visit_Subscript(self, node) -> None:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index) or node.slice[0].slice.star:
            return
        index = node.slice[0].slice.value
        if not isinstance(index, (cst.List, cst.ListComp, cst.BinaryOperation, cst.Name)):
            return
        if self._frames:
            self._frames[-1][1].append((node, index))
        else:  # module level: its own statements, outside functions and classes, bind its names
            if self._module is None:
                self._module = Judge(self.ctx.module, self.qualnames)
            self._judge(self._module, node, index)

    def _judge(self, judge: Judge, subscript, index) -> None:
        if not self.imports_torch():
            return
        info = judge.index(index)
        if info is None or info.kind == LIST:
            return
        base = judge.base(subscript.value)
        if base == "other" or (info.kind == NESTED and base != "tensor"):
            return
        replacement = cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value=index)])
        self.report(
            index,
            MESSAGE.format(what=WHAT[info.kind]),
            replacement=replacement,
            applicability=Applicability.SAFE if info.literal and info.always else Applicability.UNSAFE,
        )
