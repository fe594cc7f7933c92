"""Truth checks for the call-pattern rules ADV133-ADV139 (warnings torch raises from C++, and kl_div's).

Same shape as checks_callpattern.py: each rule has a check that the warning fires on the shape it reports
and one that the fix (or the form it asks for) is silent with the same result. Warnings that fire once per
process (`TORCH_WARN_ONCE`: scatter's) run isolated.
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, _c, silent, warns

_USER = "UserWarning"
_SPARSE = "is deprecated.  Please use torch.sparse_coo_tensor("
_OVERLOAD = "This overload of "
_SCATTER = "The reduce argument of torch.scatter with Tensor src is deprecated"
_KL = "reduction: 'mean' divides the total loss by both the batch size and the support size."
_MKLDNN = "'mkldnn' is no longer used as device type"
_NESTED = "The PyTorch API of nested tensors is in prototype stage"
_T = "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated"
_ZERO_D = "is deprecated on 0-D tensors"
_I = "i, v = torch.tensor([[0], [1]]), torch.tensor([1.0])\n"


def _check(cid: str, what: str, code: str, expect, rule: str, isolate: bool = False) -> Check:
    return Check(cid, what, _c(code), (expect,), isolate=isolate, rule=rule)


CALLPATTERN2: list[Check] = [
    _check(
        "K-133/sparse-floattensor-forms",
        "torch.sparse.FloatTensor(i, v, size), (i, v), (shape) and () each warn",
        "import torch\n" + _I + "a = torch.sparse.FloatTensor(i, v, torch.Size([2, 2]))\n"
        "b = torch.sparse.LongTensor(2, 3)\nc = torch.sparse.DoubleTensor()\n"
        "result = [str(a.dtype), str(b.dtype), list(b.shape), a.is_sparse]",
        warns(ALL, _USER, _SPARSE, result=["torch.float32", "torch.int64", [2, 3], True]),
        "ADV133",
    ),
    _check(
        "K-133/sparse-coo-replacement",
        "sparse_coo_tensor(..., dtype=torch.float32) gives the same tensor silently; isinstance(t, torch.sparse.FloatTensor) holds and is silent",
        "import torch\n"
        + _I
        + "t = torch.sparse_coo_tensor(i, v, (2, 2), dtype=torch.float32, check_invariants=False)\n"
        "kind = isinstance(t, torch.sparse.FloatTensor)\n"
        "result = [t.to_dense().tolist() == [[0.0, 1.0], [0.0, 0.0]] and t.dtype == torch.float32, kind]",
        silent(ALL, _SPARSE, result=[True, True]),
        "ADV133",
    ),
    _check(
        "K-134/scalar-first-methods",
        "b.addmm(0.5, a, a), x.add(2, y), x.addcdiv_(0.5, a, a) and torch.addmm(0.5, b, a, a) warn",
        """
        import torch
        a, b = torch.ones(2, 2), torch.full((2, 2), 3.0)
        r1 = b.addmm(0.5, a, a)
        r2 = a.add(2, b)
        r3 = torch.baddbmm(0.5, b[None], 2.0, a[None], a[None])
        r4 = a.clone().addcdiv_(0.5, b, b)
        r5 = torch.sub(a, 2, b)
        result = [r1.tolist(), r2.tolist(), r3.tolist(), r4.tolist(), r5.tolist()]
        """,
        warns(
            ALL,
            _USER,
            _OVERLOAD,
            result=[
                [[3.5, 3.5], [3.5, 3.5]],
                [[7.0, 7.0], [7.0, 7.0]],
                [[[5.5, 5.5], [5.5, 5.5]]],
                [[1.5, 1.5], [1.5, 1.5]],
                [[-5.0, -5.0], [-5.0, -5.0]],
            ],
        ),
        "ADV134",
    ),
    _check(
        "K-134/keyword-fix",
        "the keyword forms the fix writes give the same values without the warning",
        """
        import torch
        a, b = torch.ones(2, 2), torch.full((2, 2), 3.0)
        r1 = b.addmm(a, a, beta=0.5)
        r2 = a.add(b, alpha=2)
        r3 = torch.baddbmm(b[None], a[None], a[None], beta=0.5, alpha=2.0)
        r4 = a.clone().addcdiv_(b, b, value=0.5)
        r5 = torch.sub(a, b, alpha=2)
        result = [r1.tolist(), r2.tolist(), r3.tolist(), r4.tolist(), r5.tolist()]
        """,
        silent(
            ALL,
            _OVERLOAD,
            result=[
                [[3.5, 3.5], [3.5, 3.5]],
                [[7.0, 7.0], [7.0, 7.0]],
                [[[5.5, 5.5], [5.5, 5.5]]],
                [[1.5, 1.5], [1.5, 1.5]],
                [[-5.0, -5.0], [-5.0, -5.0]],
            ],
        ),
        "ADV134",
    ),
    _check(
        "K-135/scatter-reduce-tensor-src",
        "x.scatter_(0, i, src, reduce='add') warns (C++, once per process)",
        "import torch\nx = torch.zeros(3)\nx.scatter_(0, torch.tensor([0, 0, 2]), torch.ones(3), reduce='add')\n"
        "result = x.tolist()",
        warns(ALL, _USER, _SCATTER, result=[2.0, 0.0, 1.0]),
        "ADV135",
        isolate=True,
    ),
    _check(
        "K-135/scatter-reduce-function",
        "torch.scatter(x, 0, i, src, reduce='multiply') warns too",
        "import torch\ny = torch.scatter(torch.full((3,), 2.0), 0, torch.tensor([1]), torch.tensor([3.0]), "
        "reduce='multiply')\nresult = y.tolist()",
        warns(ALL, _USER, _SCATTER, result=[2.0, 6.0, 2.0]),
        "ADV135",
        isolate=True,
    ),
    _check(
        "K-135/scalar-and-scatter-reduce",
        "the scalar form is silent, and scatter_reduce_(..., 'sum') gives what reduce='add' gave",
        "import torch\nx = torch.zeros(3)\nx.scatter_(0, torch.tensor([1]), 5.0, reduce='add')\n"
        "y = torch.zeros(3).scatter_reduce_(0, torch.tensor([0, 0, 2]), torch.ones(3), reduce='sum')\n"
        "result = [x.tolist(), y.tolist()]",
        silent(ALL, _SCATTER, result=[[0.0, 5.0, 0.0], [2.0, 0.0, 1.0]]),
        "ADV135",
        isolate=True,
    ),
    _check(
        "K-136/kl-div-mean",
        "F.kl_div(a, b) and nn.KLDivLoss()(a, b) warn (default reduction 'mean')",
        "import torch\nimport torch.nn.functional as F\na, b = torch.full((2, 3), -1.0), torch.full((2, 3), 0.5)\n"
        "x = F.kl_div(a, b)\ny = torch.nn.KLDivLoss()(a, b)\nresult = torch.equal(x, y)",
        warns(ALL, _USER, _KL, result=True),
        "ADV136",
    ),
    _check(
        "K-136/kl-div-none-mean",
        "F.kl_div(a, b, reduction='none').mean() equals F.kl_div(a, b) bit for bit, silently",
        """
        import torch
        import torch.nn.functional as F
        g = torch.Generator().manual_seed(0)
        a, b = torch.randn(4, 7, generator=g).log_softmax(-1), torch.rand(4, 7, generator=g)
        x = F.kl_div(a, b, reduction="none").mean()
        y = F.kl_div(a, b, reduction="sum") / a.numel()
        z = F.kl_div(a, b.log(), reduction="none", log_target=True).mean()
        result = [torch.allclose(x, y), torch.allclose(x, z)]
        """,
        silent(ALL, _KL, result=[True, True]),
        "ADV136",
    ),
    _check(
        "K-136/kl-div-same-as-mean",
        "the fixed form is the value 'mean' gave (compared in one run, the warning is from the 'mean' call)",
        """
        import torch
        import torch.nn.functional as F
        g = torch.Generator().manual_seed(1)
        a, b = torch.randn(5, 3, generator=g).log_softmax(-1), torch.rand(5, 3, generator=g)
        result = torch.equal(F.kl_div(a, b, reduction="none").mean(), F.kl_div(a, b, reduction="mean"))
        """,
        warns(ALL, _USER, _KL, result=True),
        "ADV136",
    ),
    _check(
        "K-137/mkldnn-device",
        "torch.device('mkldnn') and 'mkldnn:0' warn; to_mkldnn() is silent",
        "import torch\nd = torch.device('mkldnn')\ne = torch.device('mkldnn:0')\nresult = [d.type, e.index]",
        warns(ALL, _USER, _MKLDNN, result=["mkldnn", 0]),
        "ADV137",
        isolate=True,  # a C++ warn-once: an earlier check that names the 'mkldnn' device has already spent it
    ),
    _check(
        "K-137/to-mkldnn-silent",
        "x.to_mkldnn() (the layout) is silent",
        "import torch\ny = torch.ones(2, 2).to_mkldnn()\nresult = y.is_mkldnn",
        silent(ALL, _MKLDNN, result=True),
        "ADV137",
    ),
    _check(
        "K-138/nested-strided",
        "nested_tensor without layout, with layout=None or torch.strided warns each time",
        "import torch\na, b = torch.ones(2), torch.ones(3)\nn1 = torch.nested.nested_tensor([a, b])\n"
        "n2 = torch.nested.as_nested_tensor([a, b], layout=torch.strided)\nresult = [n1.is_nested, n2.is_nested]",
        warns(ALL, _USER, _NESTED, result=[True, True]),
        "ADV138",
    ),
    _check(
        "K-138/nested-jagged",
        "layout=torch.jagged is silent",
        "import torch\na, b = torch.ones(2), torch.ones(3)\nn = torch.nested.nested_tensor([a, b], layout=torch.jagged)\n"
        "result = n.is_nested",
        silent(ALL, _NESTED, result=True),
        "ADV138",
    ),
    _check(
        "K-139/T-not-2d",
        "x.T warns on 1-D and 3-D tensors",
        "import torch\nx = torch.zeros(2, 3, 4)\ny = torch.arange(5)\nresult = [list(x.T.shape), list(y.T.shape)]",
        warns(ALL, _USER, _T, result=[[4, 3, 2], [5]]),
        "ADV139",
    ),
    _check(
        "K-139/zero-d",
        ".T, .H, .mT, .mH and .adjoint() warn on a 0-D tensor",
        "import torch\ns = torch.tensor(1.0)\nr = [s.T, s.H, s.mT, s.mH, s.adjoint()]\nresult = [float(t) for t in r]",
        warns(ALL, _USER, _ZERO_D, result=[1.0] * 5),
        "ADV139",
    ),
    _check(
        "K-139/permute-fix",
        "x.permute(2, 1, 0) and y.permute(0) give what .T gave, silently; 2-D .T is silent",
        """
        import torch
        x = torch.arange(24.0).reshape(2, 3, 4)
        y = torch.arange(5)
        ok = torch.equal(x.permute(2, 1, 0), x.permute(*torch.arange(x.ndim - 1, -1, -1)))
        result = [ok, torch.equal(y.permute(0), y), list(torch.zeros(2, 3).T.shape)]
        """,
        silent(ALL, _T, result=[True, True, [3, 2]]),
        "ADV139",
    ),
]
