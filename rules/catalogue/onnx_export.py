from __future__ import annotations

from advisor.rule import Applicability, Example, Kind, Rule, Severity, Window, bool_value, cst, get_arg, has_star_args

EXPORT = ("torch.onnx.export",)
# The positional order after `f` of 2.0-2.4 (torch/onnx/utils.py); every name is still a keyword in 2.15.
AFTER_F = (
    "export_params",
    "verbose",
    "training",
    "input_names",
    "output_names",
    "operator_export_type",
    "opset_version",
    "do_constant_folding",
    "dynamic_axes",
    "keep_initializers_as_inputs",
    "custom_opsets",
    "export_modules_as_functions",
    "autograd_inlining",
)
# Accepted, but not passed on to the exporter when `dynamo=True` (the 2.9 default): torch/onnx/__init__.py.
IGNORED = (
    "training",
    "operator_export_type",
    "do_constant_folding",
    "custom_opsets",
    "export_modules_as_functions",
    "autograd_inlining",
)
_KEYWORD_ONLY = Window(removed_in="2.5")
_FALLBACK = Window(removed_in="2.11")
_TORCHSCRIPT = Window(deprecated_in="2.8")
_DEFAULT = Window(since="2.9", removed_in="2.9")


class OnnxExport(Rule):
    """`torch.onnx.export`: keyword-only arguments (2.5), the TorchScript path (2.8), the `dynamo=True` default (2.9), `fallback=` (2.11).

    What it finds: calls of `torch.onnx.export` whose meaning changes on the way to 2.15.

    Why: the exporter's signature and default changed in four releases. A call that
    - passes more than `model, args, f` positionally: a TypeError from 2.5, where
      everything after `f` became keyword-only;
    - passes `fallback=`: removed in 2.11 (TypeError);
    - passes `dynamo=False`: the TorchScript exporter, DeprecationWarning from 2.8 ("You
      are using the legacy TorchScript-based ONNX export. Starting in PyTorch 2.9, ...");
    - passes no `dynamo=`: up to 2.8 that is the TorchScript exporter (the same warning in
      2.8); from 2.9 `dynamo=True` is the default, which needs the `onnxscript` package
      and does not pass `training`, `operator_export_type`, `do_constant_folding`,
      `custom_opsets`, `export_modules_as_functions` or `autograd_inlining` on to the
      exporter: with one of those the call is reported as breaking from 2.9 (the option
      is silently dropped), otherwise as advice.

    Example:
        torch.onnx.export(model, (x,), "m.onnx", True, False)
        # becomes
        torch.onnx.export(model, (x,), "m.onnx", export_params=True, verbose=False)

    Fix safety: safe for the positional arguments: they become keywords by the 2.0-2.4
    order (`export_params, verbose, training, input_names, ...`), names every release
    from 2.0 to 2.15 accepts. No fix for the rest: choosing `dynamo=False` (deprecated)
    or the new exporter (other options, needs onnxscript) is a decision.

    Verified: the `export` signature in torch/onnx/utils.py of the 2.0.0 and 2.4.0 wheels
    and in torch/onnx/__init__.py of 2.5.0 (`*` after `f`), 2.9.0 (`dynamo: bool = True`),
    2.10.0 (`fallback`) and 2.11.0 (no `fallback`); the DeprecationWarning in 2.8.0 and
    2.15.0; the options not passed on in the `dynamo` branch of 2.15.0. Truth:
    K-784/keyword-only, K-784/fallback, K-784/torchscript-warns.

    Validation: none.
    """

    reports_at_references = True  # at its calls

    code = "ADV784"
    statement_local = True  # the call's own arguments
    name = "onnx-export"
    message = "`torch.onnx.export` changed"
    severity = Severity.WARNING
    fix = Applicability.SAFE
    triggers = ("export",)
    targets = EXPORT

    valid = [
        "import torch\ntorch.onnx.export(model, (x,), 'm.onnx', dynamo=True)\n",
        "import torch\ntorch.export.export(model, (x,))\n",
        "import tensorflow as tf\ntf.saved_model.export(model, 'a', 'b', True)\n",
    ]
    invalid = [
        Example(
            "import torch\ntorch.onnx.export(model, (x,), 'm.onnx', True, False, dynamo=True)\n",
            fixed="import torch\ntorch.onnx.export(model, (x,), 'm.onnx', export_params=True, verbose=False, dynamo=True)\n",
            message="breaks in 2.5: arguments after `f` are keyword-only",
            line=2,
            column=1,
        ),
        Example(
            "import torch\ntorch.onnx.export(model, x, 'm.onnx', dynamo=True, fallback=True)\n",
            message="`fallback=` was removed from `torch.onnx.export` in 2.11",
        ),
        Example(
            "import torch\ntorch.onnx.export(model, x, 'm.onnx', dynamo=False)\n",
            message="the legacy TorchScript exporter",
        ),
        Example(
            "from torch.onnx import export\nexport(model, x, 'm.onnx', operator_export_type=OT.ONNX_ATEN_FALLBACK)\n",
            message="breaks in 2.9: `dynamo=True` is the default",
        ),
        Example(
            "import torch\ntorch.onnx.export(model, x, 'm.onnx', opset_version=17)\n", message="needs `onnxscript`"
        ),
        Example(
            "import torch\ntorch.onnx.export(model, x, 'm.onnx', opset_version=17)\n",
            target="2.8",
            message="DeprecationWarning in 2.8",
        ),
    ]

    def visit_Call(self, node) -> None:
        if self.match(node.func, EXPORT) is None:
            return
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if len(positional) > 3 and not has_star_args(node) and len(positional) <= 3 + len(AFTER_F):
            self._keyword_only(node, positional)
        if get_arg(node, "fallback") is not None:
            self.report(
                node,
                "`fallback=` was removed from `torch.onnx.export` in 2.11 (TypeError); drop it and "
                "choose the exporter with `dynamo=`",
                window=_FALLBACK,
            )
        dynamo = get_arg(node, "dynamo")
        if dynamo is not None:
            if bool_value(dynamo.value) is False:
                self.report(
                    node,
                    "`torch.onnx.export(..., dynamo=False)` uses the legacy TorchScript exporter: "
                    "DeprecationWarning from 2.8",
                    window=_TORCHSCRIPT,
                )
            return
        if has_star_args(node):
            return
        ignored = [a.keyword.value for a in node.args if a.keyword is not None and a.keyword.value in IGNORED]
        ignored += [AFTER_F[i] for i in range(len(positional) - 3) if i < len(AFTER_F) and AFTER_F[i] in IGNORED]
        if not self.target_at_least("2.9"):
            self.report(
                node,
                "`torch.onnx.export` without `dynamo=` uses the legacy TorchScript exporter "
                "(DeprecationWarning in 2.8); from 2.9 `dynamo=True` is the default",
                window=_TORCHSCRIPT,
            )
        elif ignored:
            names = ", ".join(f"`{n}`" for n in sorted(set(ignored)))
            self.report(
                node,
                f"`dynamo=True` is the default of `torch.onnx.export` from 2.9, which ignores {names} "
                "and needs `onnxscript`; pass `dynamo=False` to keep them (deprecated) or drop them",
                window=_DEFAULT,
            )
        else:
            self.report(
                node,
                "`torch.onnx.export` without `dynamo=`: from 2.9 the default is `dynamo=True`, the "
                "torch.export-based exporter, which needs `onnxscript`; pass `dynamo=` explicitly",
                kind=Kind.ADVICE,
                window=Window(since="2.9"),
            )

    def _keyword_only(self, node, positional) -> None:
        args = list(node.args)
        for i, arg in enumerate(positional[3:]):
            args[args.index(arg)] = arg.with_changes(
                keyword=cst.Name(AFTER_F[i]),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            )
        self.report(
            node,
            "arguments after `f` are keyword-only in `torch.onnx.export` from 2.5 (TypeError); pass them by name",
            replacement=node.with_changes(args=args),
            window=_KEYWORD_ONLY,
        )
