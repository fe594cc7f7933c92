"""Helpers for rule bodies: arguments, literals, building replacement nodes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Collection, Iterable

from advisor.core.lazy import cst
from advisor.syntax.names import dotted_name
from advisor.syntax.walk import nodes_of

if TYPE_CHECKING:
    from advisor.syntax.names import NameResolver


def callee_targets(refs: Any, func: Any, qualified: Collection[str]) -> set[str] | None:
    """Which of `qualified` the `ast` callee `func` may be through the file's imports (`match` resolves a name only
    through an import): none for one they resolve elsewhere (`np.log`) or that no import binds (`self.load`, `t.qr`,
    a local name), or whose head is no name (`f().log`, `(a * b).exp`: `match` resolves none); None for what
    `References.resolve` cannot tell and `match` may (`getattr(torch, "log")`, `getattr(m, "cuda").log`): any."""
    bound = refs.resolve(func)
    if bound is not None:
        return bound.intersection(qualified)
    head = func
    while type(head).__name__ == "Attribute":
        head = head.value
    getattr_call = type(head).__name__ == "Call" and getattr(head.func, "id", None) == "getattr"
    return None if getattr_call else set()


def calls_to(refs: Any, qualified: Collection[str]) -> list[Any]:
    """For a `may_match`: `refs.calls_of(qualified)` (the `ast` calls by a last name, or by a name an import binds
    to one), less those whose callee cannot be one of them (`callee_targets`)."""
    return [call for call in refs.calls_of(qualified) if callee_targets(refs, call.func, qualified) != set()]


def get_arg(call: Any, keyword: str | None, position: int | None = None) -> Any:
    """The Arg passed as `keyword=` or at `position` (before any keyword/star), or None."""
    positional = 0
    for arg in call.args:
        if arg.keyword is not None:
            if keyword is not None and arg.keyword.value == keyword:
                return arg
            continue
        if arg.star:
            position = None  # positions after *args are unknowable
            continue
        if position is not None and positional == position:
            return arg
        positional += 1
    return None


def simple_name(node: Any) -> str | None:
    """`f` for `f` and the attribute for `x.y.f` (as in a call's func); None for anything else."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return None


def has_star_args(call: Any) -> bool:
    return any(a.star for a in call.args)


def string_value(node: Any) -> str | None:
    """The value of a plain string literal (not f-strings or bytes), else None."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def bool_value(node: Any) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None


def expr(code: str) -> Any:
    return cst.parse_expression(code)


def rewrite_reference(resolver: NameResolver, node: Any, new_qualname: str) -> tuple[Any, list[tuple[str, str | None]]]:
    """A node spelling `new_qualname` the way the file already imports it.

    `th.cuda.amp.autocast` (with `import torch as th`) becomes `th.amp.autocast`;
    a name from a `from` import becomes the full dotted path, and the caller is
    told which `import` that path needs.
    """
    chain: list[Any] = []
    cur = node
    while isinstance(cur, cst.Attribute):
        chain.append(cur)
        cur = cur.value
    chain.append(cur)  # the base Name
    chain.reverse()  # base first: [Name, Attribute(base.x), Attribute(base.x.y), ...]
    for prefix in reversed(chain):
        for qual in sorted(resolver.qualnames(prefix)):
            if new_qualname == qual:
                return prefix, []
            if new_qualname.startswith(qual + "."):
                rest = new_qualname[len(qual) + 1 :]
                return expr(f"{dotted_name(prefix)}.{rest}"), []
    alias = _module_alias(resolver, cur, new_qualname)
    if alias is not None:
        name, qual = alias
        rest = new_qualname[len(qual) :]
        return expr(f"{name}{rest}"), []
    top = new_qualname.split(".")[0]
    return expr(new_qualname), [(top, None)]


def _module_alias(resolver: NameResolver, base: Any, new_qualname: str) -> tuple[str, str] | None:
    """A plain `import x [as y]` binding, visible where `base` is, that spells a prefix of `new_qualname`."""
    scope = resolver.scope_of(base)
    if scope is None:
        return None
    best: tuple[str, str] | None = None
    for name, quals in resolver.module_bindings():
        if len(quals) != 1:
            continue
        (qual,) = quals
        if qual.startswith("<") or not (new_qualname == qual or new_qualname.startswith(qual + ".")):
            continue
        if resolver.lookup(scope, name) != {qual}:  # shadowed here
            continue
        if best is None or len(qual) > len(best[1]) or (len(qual) == len(best[1]) and name < best[0]):
            best = (name, qual)
    return best


def calls_in(node: Any) -> Iterable[Any]:
    """Every Call node inside `node` (no scope awareness; for small bodies)."""
    return nodes_of(node, cst.Call)


def with_comma(arg: Any) -> Any:
    """`arg` followed by ", " (unless it already has a comma)."""
    if arg.comma is cst.MaybeSentinel.DEFAULT:
        return arg.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return arg


def append_args(call: Any, new_args: list[Any], magic_comma: bool = False) -> Any:
    """`call` with `new_args` added after its arguments, as a person would write them.

    One line: `f(a, b)` (a single-line trailing comma's space is dropped: `f(a,)` -> `f(a, b)`).
    Several lines, one argument a line: each new argument on its own line, indented like
    the others, and the trailing comma kept or left out as the call had it; the closing
    parenthesis and every other argument stay where they were. A single argument on its
    own line (`f(\n    a\n)`, how Black and Ruff write a call that is too long) gets a
    trailing comma when `magic_comma` (the file writes them: see `uses_magic_commas`), so
    that a formatter keeps the call as it is.
    """
    args = list(call.args)
    if not args:
        return call.with_changes(args=new_args)
    last = args[-1]
    sep = _line_separator(call)
    if sep is None:  # one line (or arguments side by side): inline, after the last one
        if isinstance(last.comma, cst.Comma) and not _breaks(last.comma.whitespace_after):
            last = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        if isinstance(last.comma, cst.Comma):  # `a,<newline>)`: the new ones go before the newline
            close = last.comma.whitespace_after
            args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            added = [with_comma(a) for a in new_args[:-1]] + [
                new_args[-1].with_changes(comma=cst.Comma(whitespace_after=close))
            ]
            return call.with_changes(args=[*args, *added])
        close = last.whitespace_after_arg  # `a, b<newline>)`: keep the newline before `)`
        args[-1] = with_comma(last.with_changes(whitespace_after_arg=cst.SimpleWhitespace("")))
        return call.with_changes(args=[*args, *new_args[:-1], new_args[-1].with_changes(whitespace_after_arg=close)])
    if isinstance(last.comma, cst.Comma):  # trailing comma: keep it, after the new last argument
        close = last.comma.whitespace_after
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=sep))
        added = [a.with_changes(comma=cst.Comma(whitespace_after=sep)) for a in new_args[:-1]]
        added.append(new_args[-1].with_changes(comma=cst.Comma(whitespace_after=close)))
    elif magic_comma and len(args) == 1 and _breaks(last.whitespace_after_arg):
        close = last.whitespace_after_arg
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=sep), whitespace_after_arg=cst.SimpleWhitespace("")
        )
        added = [a.with_changes(comma=cst.Comma(whitespace_after=sep)) for a in new_args[:-1]]
        added.append(new_args[-1].with_changes(comma=cst.Comma(whitespace_after=close)))
    else:  # no trailing comma: none after the new last argument either
        close = last.whitespace_after_arg
        args[-1] = last.with_changes(
            comma=cst.Comma(whitespace_after=sep), whitespace_after_arg=cst.SimpleWhitespace("")
        )
        added = [a.with_changes(comma=cst.Comma(whitespace_after=sep)) for a in new_args[:-1]]
        added.append(new_args[-1].with_changes(whitespace_after_arg=close))
    return call.with_changes(args=[*args, *added])


def explode_args(call: Any, new_args: list[Any]) -> Any:
    """`call` with `new_args` added, one argument a line and a trailing comma, as Black and Ruff write
    a call that does not fit on one line.

    Lines are indented one level (4 spaces) deeper than the statement, or like the arguments
    already are when the call opens its parenthesis at a line end.
    """
    args = [*call.args, *new_args]
    before = call.whitespace_before_args
    if _breaks(before):
        close = (
            call.args[-1].whitespace_after_arg if call.args and _breaks(call.args[-1].whitespace_after_arg) else None
        )
        if (
            close is None
            and call.args
            and isinstance(call.args[-1].comma, cst.Comma)
            and _breaks(call.args[-1].comma.whitespace_after)
        ):
            close = call.args[-1].comma.whitespace_after
        sep = cst.ParenthesizedWhitespace(indent=before.indent, last_line=before.last_line)
    else:
        sep = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace("    "))
        close = None
    if close is None:
        close = cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(""))
    out = [
        a.with_changes(comma=cst.Comma(whitespace_after=sep), whitespace_after_arg=cst.SimpleWhitespace(""))
        for a in args[:-1]
    ]
    out.append(
        args[-1].with_changes(comma=cst.Comma(whitespace_after=close), whitespace_after_arg=cst.SimpleWhitespace(""))
    )
    return call.with_changes(args=out, whitespace_before_args=sep)


def longest_line(code: str, first_indent: str = "") -> int:
    """The length of the longest line of `code` when its first line starts after `first_indent`."""
    return max((len(line) for line in (first_indent + code).splitlines()), default=0)


def uses_magic_commas(code: str) -> bool:
    """Does this source close a multi-line bracket after a trailing comma (`,` newline `)`), as Black and Ruff do?"""
    import re

    return re.search(r",[ \t]*\n[ \t]*[)\]}]", code) is not None


def _breaks(ws: Any) -> bool:
    return isinstance(ws, cst.ParenthesizedWhitespace)


def _line_separator(call: Any) -> Any:
    """The newline-and-indent between a multi-line call's arguments (no comment), or None.

    Taken from the whitespace before the last argument: after the previous argument's
    comma, or after `(` for a single argument.
    """
    args = call.args
    before: Any = args[-2].comma.whitespace_after if len(args) > 1 and isinstance(args[-2].comma, cst.Comma) else None
    if len(args) == 1:
        before = call.whitespace_before_args
    if not _breaks(before):
        return None
    return cst.ParenthesizedWhitespace(indent=before.indent, last_line=before.last_line)


def prepend_args(call: Any, new_args: list[Any]) -> Any:
    if call.args:
        new_args = [with_comma(a) for a in new_args]
    else:
        new_args = [*[with_comma(a) for a in new_args[:-1]], *new_args[-1:]]
    return call.with_changes(args=[*new_args, *call.args])


def kwarg(name: str, value_code: str) -> Any:
    return cst.Arg(
        keyword=cst.Name(name),
        value=expr(value_code),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def positional(value_code: str) -> Any:
    return cst.Arg(value=expr(value_code))


_DTYPES = {"float32": "float32", "float": "float32", "float64": "float64", "double": "float64"}
_FACTORIES = ("randn", "rand", "zeros", "ones", "empty", "eye")


def literal_matrix_facts(node: Any) -> dict:
    """Literal dtypes and (batch, n) shapes visible inside `node`, for validation scripts.

    `torch.randn(8, 64, 64, dtype=torch.float64)` gives {"shapes": [[8, 64]], "dtypes": ["float64"]}.
    Anything computed is ignored: these only seed the checks.
    """
    facts: dict = {"shapes": [], "dtypes": []}

    class V(cst.CSTVisitor):
        def visit_Attribute(self, n: Any) -> None:
            if isinstance(n.value, cst.Name) and n.value.value == "torch" and n.attr.value in _DTYPES:
                facts["dtypes"].append(_DTYPES[n.attr.value])

        def visit_Call(self, n: Any) -> None:
            if simple_name(n.func) not in _FACTORIES:
                return
            dims = []
            for a in n.args:
                if a.keyword is not None or a.star:
                    continue
                if isinstance(a.value, cst.Integer):
                    dims.append(int(a.value.value.replace("_", ""), 0))
                else:
                    return
            if len(dims) >= 2 and dims[-1] == dims[-2] and 0 < dims[-1] <= 4096:
                batch = 1
                for d in dims[:-2]:
                    batch *= d
                if batch <= 100_000:
                    facts["shapes"].append([batch, dims[-1]])

    node.visit(V())
    return {k: v for k, v in facts.items() if v}
