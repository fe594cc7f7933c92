"""Deprecated keyword arguments: one row of data each, one generic rule class.

A row names the functions, the old keyword, and what to do: rename it, drop
it, or (no fix) only advise. Like `catalogue.py`, each row becomes a rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from advisor.rule import Applicability, Example, Rule, Severity, cst, get_arg

SAFE, UNSAFE, NONE = Applicability.SAFE, Applicability.UNSAFE, Applicability.NONE


@dataclass(frozen=True)
class KwRow:
    code: str
    name: str
    funcs: tuple[str, ...]
    keyword: str
    new_keyword: str | None  # None: drop the argument (or advise, when fix is NONE)
    why: str
    fix: Applicability = SAFE
    fix_note: str = ""
    since: str = "2.0"
    deprecated_in: str | None = None
    severity: Severity = Severity.WARNING
    example_call: str = "(x, {kw}=v)"


TABLE: tuple[KwRow, ...] = (
    KwRow("ADV715", "jit-trace-optimize", ("torch.jit.trace",), "optimize", None,
          "FutureWarning: \"`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` instead\"",
          fix_note="the argument has no effect, so dropping it changes nothing.", example_call="(m, x, {kw}=True)"),
    KwRow("ADV726", "backward-grad-variables", ("torch.autograd.backward",), "grad_variables", "grad_tensors",
          "FutureWarning: \"`grad_variables` is deprecated. Use `grad_tensors` instead.\"",
          fix_note="`grad_variables` is passed on as `grad_tensors`.", example_call="(loss, {kw}=g)"),
    KwRow("ADV727", "grad-only-inputs", ("torch.autograd.grad",), "only_inputs", None,
          "Documented as \"deprecated and is ignored now (defaults to True)\".",
          fix_note="the argument is ignored, so dropping it changes nothing.", example_call="(y, x, {kw}=True)"),
    KwRow("ADV730", "dataloader-pin-memory-device", ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"), "pin_memory_device", None,
          "Documented as deprecated: \"the current accelerator will be used\" for pinning.",
          fix_note="pinning then uses the current accelerator; the same device unless you pinned for a non-current one.",
          example_call="(ds, pin_memory=True, {kw}=\"cuda\")"),
    KwRow("ADV738", "hardtanh-min-value", ("torch.nn.Hardtanh",), "min_value", "min_val",
          "FutureWarning: \"keyword argument `min_value` is deprecated and renamed to `min_val`\"",
          fix_note="a pure keyword rename.", example_call="({kw}=-1.0)"),
    KwRow("ADV745", "hardtanh-max-value", ("torch.nn.Hardtanh",), "max_value", "max_val",
          "FutureWarning: \"keyword argument `max_value` is deprecated and renamed to `max_val`\"",
          fix_note="a pure keyword rename.", example_call="({kw}=1.0)"),
    KwRow("ADV729", "flex-attention-return-lse", ("torch.nn.attention.flex_attention.flex_attention",), "return_lse", None,
          "FutureWarning: \"return_lse is deprecated and will be removed in v2.10. ...\" (still accepted in 2.13). Use `return_aux=AuxRequest(lse=True)`.",
          fix=NONE, fix_note="no automatic fix: the return structure differs.", since="2.9", example_call="(q, k, v, {kw}=True)"),
    KwRow("ADV741", "ddp-broadcast-buffers", ("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"), "broadcast_buffers", None,
          "Deprecated in 2.13 in favour of `forward_sync_buffers`, which does not exist in 2.12 (so this is reported for a 2.13+ target only). Unlike `broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init.",
          fix=NONE, fix_note="no automatic fix: the semantics differ.", since="2.13", deprecated_in="2.13", severity=Severity.INFO,
          example_call="(model, {kw}=False)"),
)


class DeprecatedKeyword(Rule):
    """Base for the generated rules; see `TABLE`."""

    row: KwRow

    def visit_Call(self, node) -> None:
        row = self.row
        qualname = self.match(node.func, row.funcs)
        if qualname is None:
            return
        arg = get_arg(node, row.keyword)
        if arg is None:
            return
        what = f"rename it to `{row.new_keyword}`" if row.new_keyword else ("drop it" if row.fix is not NONE else "see the rule docs")
        message = f"`{row.keyword}=` of `{qualname}` is deprecated; {what}"
        if row.fix is NONE:
            self.report(node, message)
        elif row.new_keyword:
            self.report(node, message, replacement=arg.with_changes(keyword=cst.Name(row.new_keyword)), fix_node=arg)
        else:
            args = list(node.args)
            index = args.index(arg)
            del args[index]
            if index == len(args) and args:  # it was last: the new last argument takes its comma
                args[-1] = args[-1].with_changes(comma=arg.comma)
            self.report(node, message, replacement=node.with_changes(args=args))


def _make(row: KwRow) -> type:
    func = row.funcs[0]
    module, _, short = func.rpartition(".")
    call = row.example_call.format(kw=row.keyword)
    top = func.split(".")[0]
    fixed = None
    if row.fix is not NONE:
        new_call = call.replace(f"{row.keyword}=", f"{row.new_keyword}=") if row.new_keyword else None
        if new_call is None:  # drop the argument and the separator before it
            import re

            new_call = re.sub(rf",\s*{row.keyword}=[^,)]*", "", call)
            new_call = re.sub(rf"\(\s*{row.keyword}=[^,)]*,?\s*", "(", new_call)
        fixed = f"import {top}\nvalue = {func}{new_call}\n"
    doc = (
        f"`{row.keyword}=` of {', '.join(f'`{f}`' for f in row.funcs)} is deprecated.\n\n"
        f"    What it finds: calls passing `{row.keyword}=`, through aliases and `from` imports.\n\n"
        f"    Why: {row.why}\n\n"
        f"    Example:\n        {short}{call}\n\n"
        f"    Fix safety: {'no automatic fix' if row.fix is NONE else row.fix.value}; {row.fix_note}"
    )
    attrs = dict(
        __doc__=doc,
        __module__=__name__,
        row=row,
        code=row.code,
        name=row.name,
        message=f"`{row.keyword}=` is deprecated",
        severity=row.severity,
        since=row.since,
        deprecated_in=row.deprecated_in,
        fix=row.fix,
        triggers=(row.keyword,),
        targets=row.funcs,
        valid=[
            f"import {top}\nvalue = {func}(x)\n",
            f"def f({top}):\n    return {func}{call}\n",
        ],
        invalid=[
            Example(f"import {top}\nvalue = {func}{call}\n", fixed=fixed),
            Example(f"from {module} import {short} as alias_\nvalue = alias_{call}\n"),
        ],
    )
    return type("".join(p.capitalize() for p in row.name.split("-")), (DeprecatedKeyword,), attrs)


for _row in TABLE:
    globals()[_row.name] = _make(_row)
