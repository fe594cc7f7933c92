"""Truth checks for the catalogue's later rules (ADV150-ADV154) and ADV789's import.

Same shape as checks_known.py: ids "K-<rule number>/<what>", each check names its rule; each shows what the
rule reports happening on the real torch, and (where there is one) that the replacement is silent with the
same result. The releases these checks cannot run were read from the wheels (the rules' docstrings say which).
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, Expect, _c, raises, result, silent, warns

_USER, _FUT = "UserWarning", "FutureWarning"

REST: list[Check] = [
    Check(
        "K-150/rename",
        "x.rename(None) on a tensor raises AttributeError (named tensors are gone from 2.13)",
        _c("import torch\nx = torch.zeros(2, 3)\nx.rename(None)"),
        (raises(ALL, "AttributeError", "rename"),),
        rule="ADV150",
    ),
    Check(
        "K-150/refine-align",
        "refine_names, align_to, has_names and .names are gone from Tensor",
        _c(
            """
            import torch
            x = torch.zeros(2, 3)
            result = [hasattr(x, n) for n in ("refine_names", "align_to", "align_as", "has_names", "names", "rename_")]
            """
        ),
        (result(ALL, [False] * 6),),
        rule="ADV150",
    ),
    Check(
        "K-150/names-keyword",
        "torch.zeros(..., names=...) raises TypeError, names=None too",
        _c("import torch\ntorch.zeros(2, 3, names=None)"),
        (raises(ALL, "TypeError", "names"),),
        rule="ADV150",
    ),
    Check(
        "K-151/resize",
        "non-inplace resize / resize_as warn UserWarning; reshape / reshape_as give the same tensor silently",
        _c(
            """
            import torch
            x = torch.arange(6.0)
            a, b = x.resize(2, 3), x.resize_as(torch.zeros(3, 2))
            result = torch.equal(a, x.reshape(2, 3)) and torch.equal(b, x.reshape_as(torch.zeros(3, 2)))
            """
        ),
        (
            Expect(
                ALL,
                warns=((_USER, "non-inplace resize is deprecated"), (_USER, "non-inplace resize_as is deprecated")),
                result=True,
            ),
        ),
        rule="ADV151",
    ),
    Check(
        "K-151/reshape-silent",
        "reshape and reshape_as do not warn",
        _c("import torch\nx = torch.arange(6.0)\nresult = list(x.reshape(2, 3).reshape_as(x).shape)"),
        (silent(ALL, "resize", result=[6]),),
        rule="ADV151",
    ),
    Check(
        "K-152/scheduler-step-epoch",
        "scheduler.step(epoch) warns UserWarning; ReduceLROnPlateau.step(metric, epoch) too",
        _c(
            """
            import torch
            opt = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=1.0)
            opt.step()
            s = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
            s.step(2)
            torch.optim.lr_scheduler.ReduceLROnPlateau(opt).step(0.5, 3)
            result = s.last_epoch
            """
        ),
        (warns(ALL, _USER, "The epoch parameter in `scheduler.step()` was not necessary", result=2),),
        rule="ADV152",
    ),
    Check(
        "K-152/silent",
        "step(), step(None), ReduceLROnPlateau.step(metric) and CosineAnnealingWarmRestarts.step(epoch) are silent",
        _c(
            """
            import torch
            opt = torch.optim.SGD(torch.nn.Linear(1, 1).parameters(), lr=1.0)
            opt.step()
            s = torch.optim.lr_scheduler.StepLR(opt, 1)
            s.step()
            s.step(None)
            torch.optim.lr_scheduler.ReduceLROnPlateau(opt).step(0.5)
            torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 10).step(1.5)
            result = s.last_epoch
            """
        ),
        (silent(ALL, "The epoch parameter", result=2),),
        rule="ADV152",
    ),
    Check(
        "K-153/reduce-range",
        "an observer made with reduce_range=True warns UserWarning (with_args too); quant_min/quant_max is silent",
        _c(
            """
            import torch
            from torch.ao.quantization import HistogramObserver, MinMaxObserver
            MinMaxObserver.with_args(reduce_range=True)()
            HistogramObserver(reduce_range=True)
            result = MinMaxObserver(reduce_range=True).quant_max
            """
        ),
        (warns(ALL, _USER, "reduce_range will be deprecated in a future release", result=127),),
        rule="ADV153",
    ),
    Check(
        "K-153/quant-range-silent",
        "reduce_range=False and quant_min=0, quant_max=127 are silent, with the same range",
        _c(
            """
            from torch.ao.quantization import MinMaxObserver
            MinMaxObserver(reduce_range=False)
            result = MinMaxObserver(quant_min=0, quant_max=127).quant_max
            """
        ),
        (silent(ALL, "reduce_range", result=127),),
        rule="ADV153",
    ),
    Check(
        "K-154/launch",
        "torch.distributed.launch's main warns FutureWarning, naming torchrun and LOCAL_RANK",
        _c(
            """
            import contextlib, io
            import torch.distributed.launch as launch
            with contextlib.redirect_stderr(io.StringIO()):
                try:
                    launch.main(["--nproc-per-node"])  # an argument error: it stops before starting anything
                except SystemExit as e:
                    result = e.code
            """
        ),
        (warns(ALL, _FUT, "The module torch.distributed.launch is deprecated", result=2),),
        rule="ADV154",
    ),
    Check(
        "K-789/import",
        "from torch.export import dynamic_dim raises ImportError",
        _c("from torch.export import dynamic_dim"),
        (raises(ALL, "ImportError", "dynamic_dim"),),
        rule="ADV789",
    ),
]
