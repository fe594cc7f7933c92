from __future__ import annotations

from advisor.rule import Applicability, Example, ReferenceRule, Severity, cst, has_star_args, rewrite_reference

_DCP = "torch.distributed.checkpoint"
# old -> (new, the old second positional parameter, which the new function takes as a keyword only)
OLD = {
    f"{_DCP}.save_state_dict": (f"{_DCP}.save", "storage_writer"),
    f"{_DCP}.state_dict_saver.save_state_dict": (f"{_DCP}.save", "storage_writer"),
    f"{_DCP}.load_state_dict": (f"{_DCP}.load", "storage_reader"),
    f"{_DCP}.state_dict_loader.load_state_dict": (f"{_DCP}.load", "storage_reader"),
}
# Keywords the new functions take in every release from 2.2 (not `coordinator_rank`: gone from `save`/`load` in 2.3).
KEPT = {"state_dict", "storage_writer", "storage_reader", "process_group", "no_dist", "planner"}


class DcpSaveLoadStateDict(ReferenceRule):
    """`torch.distributed.checkpoint.save_state_dict` / `load_state_dict` -> `save` / `load` (2.2).

    What it finds: calls of (and references to) `dcp.save_state_dict` and
    `dcp.load_state_dict`, through aliases and imports (`model.load_state_dict(...)`
    is a different function and is never matched).

    Why: UserWarning in 2.2 and 2.3 ("'save_state_dict' is deprecated and will be
    removed in future versions. Please use 'save' instead."), FutureWarning from 2.4
    (`@deprecated("`save_state_dict` is deprecated and will be removed in future
    versions.Please use `save` instead.", category=FutureWarning)`), still there in 2.15.

    Example:
        dcp.save_state_dict(state_dict, FileSystemWriter(path))
        # becomes (with --unsafe-fixes)
        dcp.save(state_dict, storage_writer=FileSystemWriter(path))

    Fix safety: unsafe. The second positional argument becomes the keyword
    `storage_writer=` / `storage_reader=` (`save` and `load` take everything after
    the state dict as keywords from 2.3), the other keywords are kept. `save` / `load`
    also call `state_dict()` / `load_state_dict()` on `Stateful` values and set
    `no_dist=True` themselves when no process group is initialised, which
    `save_state_dict` did not. No fix for `coordinator_rank=` (gone from `save` in
    2.3: rank 0 coordinates), more than two positional arguments, or `*args`. `save`
    and `load` exist from 2.2.

    Verified: torch/distributed/checkpoint/state_dict_saver.py and state_dict_loader.py
    of the 2.1.0 (no warning, no `save`), 2.2.0, 2.3.0, 2.4.0 and 2.15.0 wheels. Truth:
    K-779/save_state_dict, K-779/load_state_dict.

    Validation: none.
    """

    code = "ADV779"
    name = "dcp-save-load-state-dict"
    message = "`{old}` is deprecated (UserWarning in 2.2-2.3, FutureWarning from 2.4); use `{new}`"
    severity = Severity.WARNING
    since = "2.2"
    deprecated_in = "2.2"
    fix = Applicability.UNSAFE
    triggers = ("save_state_dict", "load_state_dict")
    names = OLD

    valid = [
        "import torch.distributed.checkpoint as dcp\ndcp.save(sd, checkpoint_id=path)\n",
        "import torch\nmodel.load_state_dict(torch.load(path))\n",
        "import torch\nfrom safetensors.torch import load_state_dict\nsd = load_state_dict(path)\n",
        "from torch.distributed.checkpoint.state_dict import set_state_dict\nset_state_dict(model, optims, model_state_dict=sd)\n",
    ]
    invalid = [
        Example(
            "import torch.distributed.checkpoint as dcp\ndcp.save_state_dict(sd, dcp.FileSystemWriter(p))\n",
            fixed="import torch.distributed.checkpoint as dcp\ndcp.save(sd, storage_writer=dcp.FileSystemWriter(p))\n",
            message="`torch.distributed.checkpoint.save_state_dict` is deprecated",
            line=2,
            column=1,
        ),
        Example(
            "from torch.distributed.checkpoint import load_state_dict\nload_state_dict(state_dict=sd, storage_reader=r, no_dist=True)\n",
            fixed="import torch.distributed.checkpoint\n\ntorch.distributed.checkpoint.load(state_dict=sd, storage_reader=r, no_dist=True)\n",
        ),
        Example(
            "import torch.distributed.checkpoint as dcp\ndcp.save_state_dict(sd, w, coordinator_rank=1)\n",
            message="`coordinator_rank=`",
        ),
        Example("import torch.distributed.checkpoint as dcp\nsaver = dcp.save_state_dict\n"),
        Example(
            "import torch\nimport torch.distributed.checkpoint as dcp\nif torch.__version__ < '2.2':\n"
            "    dcp.save_state_dict(sd, w)\n",
            message="compat fallback",
            line=4,
        ),
    ]

    def on_call(self, node, old) -> None:
        new, second = OLD[old]
        message = self.message.format(old=old, new=new)
        positional = [a for a in node.args if a.keyword is None]
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if has_star_args(node) or len(positional) > 2 or not keywords <= KEPT:
            if "coordinator_rank" in keywords:
                message += " (no fix: `coordinator_rank=` is gone from `save`/`load` in 2.3; rank 0 coordinates)"
            self.report(node, message)
            return
        args = list(node.args)
        if len(positional) == 2:
            index = args.index(positional[1])
            args[index] = args[index].with_changes(
                keyword=cst.Name(second),
                equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
                ),
            )
        func, imports = rewrite_reference(self.ctx.resolver, node.func, new)
        if imports:  # `import torch` does not load torch.distributed.checkpoint: import the module itself
            imports = [(_DCP, None)]
        self.report(node, message, replacement=node.with_changes(func=func, args=args), add_imports=imports)

    def on_reference(self, node, old) -> None:
        self.report(node, self.message.format(old=old, new=OLD[old][0]))
