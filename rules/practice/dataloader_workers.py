from __future__ import annotations

from advisor.rule import Applicability, Example, Rule, Severity, get_arg, has_star_args, string_value


class DataLoaderWithoutWorkers(Rule):
    """`DataLoader(...)` without `num_workers` loads every batch in the training process.

    What it finds: `torch.utils.data.DataLoader(...)` calls that pass no `num_workers`
    (by keyword or as the sixth positional argument) or pass `num_workers=0`
    (TorchFix TOR401). Calls with `**kwargs` are left alone: the value may be there.

    Why: with `num_workers=0` (the default) data loading runs synchronously in the
    main process, between steps; workers let it overlap with compute. Whether that
    helps depends on the dataset, which is why this rule is opt-in
    (`--select ADV990`), like TorchFix's TOR4xx rules. Nothing warns or breaks.

    Fix safety: no automatic fix: the right number of workers is the user's choice.

    Validation: none.
    """

    code = "ADV990"
    name = "dataloader-without-workers"
    message = (
        "`DataLoader` without `num_workers` loads data synchronously in the main process; consider `num_workers > 0`"
    )
    severity = Severity.INFO
    since = "2.0"
    fix = Applicability.NONE
    default_enabled = False
    triggers = ("DataLoader",)
    targets = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")

    valid = [
        "import torch\nloader = torch.utils.data.DataLoader(ds, batch_size=8, num_workers=4)",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, 8, True, None, None, 2)",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, **cfg)",
        "from mylib import DataLoader\nloader = DataLoader(ds)",
    ]
    invalid = [
        Example("from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=8)\n", line=2, column=10),
        Example("import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=0)\n"),
    ]

    def visit_Call(self, node) -> None:
        if has_star_args(node) or self.match(node.func, self.targets) is None:
            return
        arg = get_arg(node, "num_workers", 5)
        if arg is not None and not (string_value(arg.value) is None and getattr(arg.value, "value", None) == "0"):
            return
        self.report(node)
