"""Arguments of `torch.cholesky` / `torch.qr` calls rewritten for `torch.linalg` (ADV206, ADV757)."""

from __future__ import annotations

from advisor.rule import bool_value, cst, has_star_args, kwarg


def linalg_args(node, qualname: str):
    """The arguments of the `torch.linalg` call, or None when no safe rewrite exists."""
    if has_star_args(node):
        return None
    args = list(node.args)
    keyword = "upper" if qualname == "torch.cholesky" else "some"
    out = []
    for i, arg in enumerate(args):
        name = arg.keyword.value if arg.keyword else ("input" if i == 0 else keyword if i == 1 else None)
        if name in ("input", "A", "out"):
            out.append(arg)
        elif name == keyword == "upper":
            out.append(kwarg("upper", _code(arg.value)).with_changes(comma=arg.comma))
        elif name == keyword == "some":
            some = bool_value(arg.value)
            if some is None:
                return None  # a non-literal `some` has no literal `mode`
            if not some:
                out.append(kwarg("mode", '"complete"').with_changes(comma=arg.comma))
        else:
            return None
    if out and out[-1].comma is not cst.MaybeSentinel.DEFAULT and len(out) < len(args):
        out[-1] = out[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return out


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)
