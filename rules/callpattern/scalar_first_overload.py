from __future__ import annotations

from advisor.rule import CODE_ONLY, TEXT_GAPS, Applicability, Example, Rule, Severity, cst, getattr_called, kwarg

from ._receivers import Receivers
from ._shapes import number, starred

# name -> (the keywords the leading scalars become, in order; positionals the current signature takes
# as a method). As a `torch.*` function each takes one more positional (`input`).
_MM = ("beta", "alpha")
_FAMILIES = {
    **{n: (_MM, 2) for n in ("addmm", "addbmm", "baddbmm", "addmv", "addr", "sspaddmm")},
    **{n: (("value",), 2) for n in ("addcmul", "addcdiv")},
    **{n: (("alpha",), 1) for n in ("add", "sub")},
}
FUNCTIONS = (*(f"torch.{n}" for n in _FAMILIES), "torch.addmv_")  # addmv_ is the one in-place function
METHODS = {m: v for n, v in _FAMILIES.items() for m in (n, n + "_") if m != "sspaddmm_"}
# Methods so common on other objects that only a numeric literal (or negated) first argument is evidence
_GENERIC = {"add", "sub"}
# The prefilter looks for the call shapes reported (`.addmm(`, `.add_(-lr, ...`, `.add(2, ...`, `torch.sub(`):
# torch's own sources name these functions in many files that call none of them, and `add`/`sub` are in most.
TRIGGERS = (
    *(f".{m}(" for m in sorted(METHODS) if m.rstrip("_") not in _GENERIC),
    "addr(",
    "addr_(",
    "torch.add(",
    "torch.sub(",
    *(f".{m}({c}" for m in ("add", "add_", "sub", "sub_") for c in "-0123456789"),
)


def _scalar_like(node) -> bool:
    """A number literal, or a negated anything (`-lr`, `-group["lr"]`: the old optimizers' `p.add_(-lr, d_p)`)."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return True
    return isinstance(node, (cst.Integer, cst.Float))


def _scalar_like_ast(node) -> bool:
    """`_scalar_like` on the `ast` node."""
    return (type(node).__name__ == "UnaryOp" and type(node.op).__name__ == "USub") or number(node)


def _method(refs, func) -> bool:
    """Could the `ast` call's `func` be a method of a tensor? Not on a name the file imports from torch (`torch`,
    `F`), whatever the scope: a local name that shadows one is not worth a parse of every file."""
    if type(func).__name__ != "Attribute":
        return False
    bound = refs.resolve(func.value)
    return not bound or not all(q == "torch" or q.startswith("torch.") for q in bound)


def _function(refs, func, qualified: str) -> bool:
    """Could the `ast` call's `func` be `qualified` (`torch.addmm`) through the file's imports?"""
    if qualified not in FUNCTIONS or qualified not in refs.qualnames:
        return False
    bound = refs.resolve(func)
    return bound is None or qualified in bound  # None: `getattr(torch, "addmm")(...)`


class ScalarFirstOverload(Rule):
    """`x.addmm(0.5, a, b)`, `x.add(2, y)`: the deprecated overloads that take the scalar first.

    What it finds: calls that pass `beta`/`alpha`/`value` positionally before the tensors, told
    by the count of positional arguments (the current signatures take one fewer):
    - methods `addmm`, `addbmm`, `baddbmm`, `addmv`, `addr` (and their `_` forms), `sspaddmm`
      with 3 or 4 positional arguments (`beta, [alpha,] m1, m2`), `addcmul`/`addcdiv`(`_`) with 3
      (`value, t1, t2`), and `add`/`sub`(`_`) with 2 whose first is a number literal or a negation
      (`alpha, other`: `p.data.add_(-lr, d_p)`, the old optimizers' idiom);
    - the `torch.*` functions with one more (`torch.addmm(beta, input, [alpha,] m1, m2)`,
      `torch.addcmul(input, value, t1, t2)`, `torch.add(input, alpha, other)`), through aliases.
    Left alone: calls with `*args` (the count is unknown), methods of an imported module or class or
    of a name assigned one (`np.add(1, x)`, `torch.Tensor.add(x, 1, y)`, `aten.addmm(b, x, w)` after
    `aten = torch.ops.aten`), and `.add(a, b)` / `.sub(a, b)` whose first argument is a plain name
    (sets, parsers and re.sub have such methods). Files are parsed for `add`/`sub` only where the
    text has `.add(-`, `.add(<digit>`, `.add_(-`... or `torch.add(`/`torch.sub(` (those words are in
    most files), and for the others only where a call `.addmm(` (method, `torch.addmm(`, `th.addmm(`)
    is written: `th.add(x, 2, y)` or `from torch import addmm; addmm(...)` in a file with none of those
    shapes is not seen.

    Why: UserWarning from C++ (python_arg_parser.cpp): "This overload of addmm is deprecated:
    addmm(Number beta, Tensor mat1, Tensor mat2) Consider using one of the following signatures
    instead: addmm(Tensor mat1, Tensor mat2, *, Number beta=1, Number alpha=1)". The mined texts
    are the deprecated signatures (`addmm(Scalar beta, Tensor mat1, Tensor mat2)|deprecated`).

    Example:
        out = bias.addmm(0.5, x, w)
        y = x.add(-1, z)
        # becomes
        out = bias.addmm(x, w, beta=0.5)
        y = x.add(z, alpha=-1)

    Fix safety: safe: the scalars move to the keywords the deprecated overload binds them to
    (`beta`, then `alpha`; `value`; `alpha`), the other arguments keep their order, and those
    keywords exist in every torch 2.x. Not fixed: a call that already passes one of those keywords,
    a call with a comment inside, and the 5-positional method form of `addmv_`.

    Verified: every deprecated signature is in `libtorch_python` of the 2.0.0 to 2.15.0 wheels
    (strings of the binaries); runtime on 2.13: the method and function forms warn, and the
    keyword forms give the same values without a warning. Truth: K-134/*.

    Validation: none.
    """

    code = "ADV134"
    name = "scalar-first-overload"
    message = (
        "`{name}` with the scalar first is a deprecated overload (UserWarning from C++): "
        "pass {keywords} by keyword after the tensors"
    )
    severity = Severity.WARNING
    deprecated_in = "2.0"
    fix = Applicability.SAFE
    triggers = TRIGGERS
    targets = FUNCTIONS
    may_match_refers = True  # its may_match asks Rule.may_match first
    attribute_targets = tuple(sorted(METHODS))

    valid = [
        "import torch\ny = b.addmm(x, w, beta=0.5)\n",
        "import torch\ny = torch.addmm(b, x, w, beta=0.5, alpha=2)\n",
        "import torch\ny = x.add(z, alpha=2)\ny = x.add(2)\ny = torch.add(x, z)\n",
        "import torch\ns = set()\ns.add(1)\nr = parser.add(name, 3)\n",
        "import torch\nimport numpy as np\ny = np.add(1, x)\n",
        "import torch\ny = t.addcmul(a, b, value=0.5)\ny = torch.addcdiv(x, a, b)\n",
        "import torch\ny = x.addmm(*args)\n",
        "import torch\naten = torch.ops.aten\ndef f(b, x, w):\n    return aten.addmm(b, x, w)\n",
        "import torch\ny = x.add(n, z)\n",
    ]
    invalid = [
        Example(
            "import torch\nout = bias.addmm(0.5, x, w)\n",
            fixed="import torch\nout = bias.addmm(x, w, beta=0.5)\n",
            message="`addmm`",
            line=2,
            column=7,
        ),
        Example(
            "import torch\nout = torch.baddbmm(0, b, 1.0, x, w)\n",
            fixed="import torch\nout = torch.baddbmm(b, x, w, beta=0, alpha=1.0)\n",
            message="`beta` and `alpha`",
        ),
        Example("import torch\ny = x.add_(-1, z)\n", fixed="import torch\ny = x.add_(z, alpha=-1)\n"),
        Example(
            "import torch\np.data.add_(-group['lr'], d_p)\n",
            fixed="import torch\np.data.add_(d_p, alpha=-group['lr'])\n",
        ),
        Example("import torch\ny = torch.sub(x, 2, z)\n", fixed="import torch\ny = torch.sub(x, z, alpha=2)\n"),
        Example(
            "import torch\np.data.addcdiv_(-lr, m, d)\n",
            fixed="import torch\np.data.addcdiv_(m, d, value=-lr)\n",
        ),
        Example(
            "import torch\ny = torch.addcmul(x, 0.5, a, b, out=o)\n",
            fixed="import torch\ny = torch.addcmul(x, a, b, value=0.5, out=o)\n",
        ),
        Example("import torch\ny = x.addmm(0.5, a, b, beta=1)\n"),
    ]

    @classmethod
    def text_gate(cls):
        # A name of the family called with the positionals `may_match` asks for: `add(`/`sub(` (`_`) a number then
        # a comma, or a minus, first (parentheses may wrap it); any of the family three positionals (no `=` before
        # the third comma or bracket), or what the text cannot read (a string, a comment, brackets three deep); or
        # called as a getattr's name, or renamed by an import. Not `.add` alone: a set's, a parser's, `aten.add` are
        # in most of torch's files, and `.addcmul_(a, b, value=v)` is the current form.
        g = TEXT_GAPS
        number = r"\.?\d[\w.]*+"
        scalar = rf"{g}\((?:{g}\()*{g}(?:{number}(?:{g}\))*{g},|-)"
        generic = tuple(CODE_ONLY + rf"{n}(?<=\b{n})(?<!def {n})_?{scalar}" for n in sorted(_GENERIC))  # no `def add(`
        flat = r"(?:[^()\[\]{}\"'#=,<>!]|[<>!=]=|[<>])"
        inner = r"[^()\[\]{}\"'#]"
        group = rf"[(\[{{](?:{inner}|[(\[{{]{inner}*+[)\]}}])*+[)\]}}]"
        arg = rf"(?:{flat}|{group})*+"
        three = rf"{arg},{arg},{arg}[,)]"
        unread = rf"{arg}(?:,{arg})*+(?:[\"'#]|[(\[{{](?:{inner}|[(\[{{]{inner}*+[)\]}}])*+[(\[{{\"'#])"
        names = sorted({m.rstrip("_") for m in METHODS})  # `add` too: `torch.add(x, 2, y)`
        # one pattern a name, each starting with it: a literal `re` looks for at C speed (an alternation is not)
        methods = tuple(CODE_ONLY + rf"{n}(?<=\b{n})(?<!def {n})_?{g}\((?:{three}|{unread})" for n in names)
        called = tuple(getattr_called(n, "_?") for n in names)  # `getattr(torch, "addmm")(`
        renamed = tuple(CODE_ONLY + rf"{n}(?<=\b{n})_?(?=[ \t\f\\\r\n#]){g}as\b" for n in names)  # `addmm as mm`
        # and, besides one of those, what `Rule.may_match` asks: a reference to a function or an attribute named so
        return cls.text_gate_with(*generic, *methods, *called, *renamed)

    @classmethod
    def may_match(cls, refs) -> bool:
        """Only where a call passes the count of positional arguments the deprecated overloads take (and a
        `.add(`/`.sub(` a scalar first): the prefilter's call shapes are in many files that pass none."""
        if not super().may_match(refs):
            return False
        if not refs.renamed.isdisjoint(FUNCTIONS):
            return True  # `from torch import addmm as mm`: any call could be one
        for name, (keywords, current) in METHODS.items():
            for call in refs.calls.get(name, ()):
                if starred(call):
                    continue
                extra = len(call.args) - current  # as a method; one more positional as a `torch.*` function
                if 1 <= extra <= len(keywords) and _method(refs, call.func):
                    if name.rstrip("_") not in _GENERIC or _scalar_like_ast(call.args[0]):
                        return True
                if 1 <= extra - 1 <= len(keywords) and _function(refs, call.func, f"torch.{name}"):
                    return True
        return False

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._receivers = Receivers(self.qualnames)

    def visit_Assign(self, node) -> None:
        self._receivers.assign(node)

    def visit_Call(self, node) -> None:
        func = node.func
        if any(a.star for a in node.args):
            return
        if self.match(func, FUNCTIONS) is not None:
            name, function = func.attr.value if isinstance(func, cst.Attribute) else func.value, True
        elif isinstance(func, cst.Attribute) and func.attr.value in METHODS:
            if self._receivers.is_module(func.value):
                return  # a module's or class's function: `np.add`, `torch.Tensor.add`
            name, function = func.attr.value, False
        else:
            return
        keywords, current = METHODS[name]
        given = [a for a in node.args if a.keyword is None]
        extra = len(given) - current - function  # the scalars passed before the tensors
        if extra < 1 or extra > len(keywords):
            return
        spots = _spots(keywords, extra, function)
        if not function and name.rstrip("_") in _GENERIC and not _scalar_like(given[spots[0][1]].value):
            return
        words = " and ".join(f"`{k}`" for k, _ in spots)
        message = self.message.format(name=name, keywords=words)
        self.report(node, message, replacement=self._fixed(node, spots))

    def _fixed(self, node, spots: list[tuple[str, int]]):
        if "#" in self.ctx.code_for(node) or any(a.keyword and a.keyword.value in dict(spots) for a in node.args):
            return None
        given = [a for a in node.args if a.keyword is None]
        moved = {i for _, i in spots}
        args = [cst.Arg(value=a.value) for i, a in enumerate(given) if i not in moved]
        args += [kwarg(k, self.ctx.code_for(given[i].value)) for k, i in spots]
        plain = dict(comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=cst.SimpleWhitespace(""))
        args += [a.with_changes(**plain) for a in node.args if a.keyword is not None]
        space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        return node.with_changes(args=[a.with_changes(comma=space) for a in args[:-1]] + args[-1:])


def _spots(keywords: tuple[str, ...], extra: int, function: bool) -> list[tuple[str, int]]:
    """Where the deprecated overload takes each scalar: `addmm(beta, [alpha,] m1, m2)` as a method,
    `torch.addmm(beta, input, [alpha,] m1, m2)`, `torch.addcmul(input, value, t1, t2)`, `torch.add(input, alpha, other)`."""
    if keywords == _MM:
        return [("beta", 0), ("alpha", 2 if function else 1)][:extra]
    return [(keywords[0], 1 if function else 0)]
