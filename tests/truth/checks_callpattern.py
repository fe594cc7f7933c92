"""Truth checks for the call-pattern rules (ADV130-ADV132): warnings torch raises from C++ (`TORCH_WARN`).

Same shape as checks_known.py: ids "K-<rule number>/<what>", each check names its rule. Each rule has a
check that the warning fires on the shape it reports and one that the fix (or the keyword it asks for)
silences it with the same result. Meshgrid's and the sparse factories' warnings fire once per process
(`TORCH_WARN_ONCE`), so those checks run isolated. The first release of each text was read from the
wheels' binaries (the rules' docstrings say which); these checks run what the matrix can import.
"""

from __future__ import annotations

from tests.truth.checks import ALL, Check, _c, silent, warns

_USER = "UserWarning"
_INDEX = "Using a non-tuple sequence for multidimensional indexing is deprecated"
_MESH = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument"
_SPARSE = "Sparse invariant checks are implicitly disabled"


def _sparse(what: str, code: str, fires: bool) -> Check:
    expect = warns(ALL, _USER, _SPARSE, result=True) if fires else silent(ALL, _SPARSE, result=True)
    return Check(
        f"K-132/{what}",
        f"sparse factory, {what}: {'warns' if fires else 'silent'}",
        _c(code),
        (expect,),
        isolate=True,
        rule="ADV132",
    )


_COO = "import torch\ni, v = torch.tensor([[0, 2]]), torch.tensor([1.0, 2.0])\n"
_CSR = "import torch\nc, r, v = torch.tensor([0, 1, 2]), torch.tensor([0, 1]), torch.tensor([1.0, 2.0])\n"

CALLPATTERN: list[Check] = [
    Check(
        "K-130/list-of-slices",
        "x[[slice, int]] warns UserWarning (C++) and reads the list as a tuple",
        _c(
            "import torch\nx = torch.arange(24.0).reshape(2, 3, 4)\nresult = torch.equal(x[[slice(0, 1), 0]], x[0:1, 0])"
        ),
        (warns(ALL, _USER, _INDEX, result=True),),
        rule="ADV130",
    ),
    Check(
        "K-130/slices-times-n-setitem",
        "x[[slice(0, n)] * 2] = v warns the same way when setting",
        _c("import torch\nx = torch.zeros(3, 3)\nx[[slice(0, 2)] * 2] = 1.0\nresult = x.sum().item() == 4.0"),
        (warns(ALL, _USER, _INDEX, result=True),),
        rule="ADV130",
    ),
    Check(
        "K-130/none-ellipsis-nested",
        "a list holding None, ..., or sequences warns too (read as a tuple)",
        _c(
            """
            import torch
            x = torch.arange(24.0).reshape(2, 3, 4)
            result = [tuple(x[[None, ...]].shape), tuple(x[[[0, 1], [1, 2]]].shape)]
            """
        ),
        (warns(ALL, _USER, _INDEX, result=[[1, 2, 3, 4], [2, 4]]),),
        rule="ADV130",
    ),
    Check(
        "K-130/tuple-fix",
        "x[tuple(seq)] gives what x[seq] gave, without the warning",
        _c(
            """
            import torch
            x = torch.arange(24.0).reshape(2, 3, 4)
            idx = [slice(None)] * x.dim()
            idx[1] = slice(0, 2)
            result = torch.equal(x[tuple(idx)], x[:, 0:2, :]) and tuple(x[tuple([None, ...])].shape) == (1, 2, 3, 4)
            """
        ),
        (silent(ALL, _INDEX, result=True),),
        rule="ADV130",
    ),
    Check(
        "K-130/list-of-ints",
        "x[[0, 1]] (a list of ints) is advanced indexing: no warning, not a tuple",
        _c("import torch\nx = torch.arange(24.0).reshape(2, 3, 4)\nresult = tuple(x[[0, 1]].shape)"),
        (silent(ALL, _INDEX, result=[2, 3, 4]),),
        rule="ADV130",
    ),
    Check(
        "K-131/meshgrid-without-indexing",
        "torch.meshgrid(a, b) warns UserWarning (C++, once per process)",
        _c("import torch\ngx, gy = torch.meshgrid(torch.arange(3), torch.arange(4))\nresult = list(gx.shape)"),
        (warns(ALL, _USER, _MESH, result=[3, 4]),),
        isolate=True,
        rule="ADV131",
    ),
    Check(
        "K-131/meshgrid-indexing-ij",
        'indexing="ij" gives the same grids without the warning',
        _c(
            """
            import torch
            a, b = torch.arange(3), torch.arange(4)
            gx, gy = torch.meshgrid(a, b, indexing="ij")
            result = torch.equal(gx, a[:, None].expand(3, 4)) and torch.equal(gy, b[None, :].expand(3, 4))
            """
        ),
        (silent(ALL, _MESH, result=True),),
        isolate=True,
        rule="ADV131",
    ),
    _sparse(
        "coo-no-keyword",
        _COO + "s = torch.sparse_coo_tensor(i, v, (3,))\nresult = s.to_dense().tolist() == [1.0, 0.0, 2.0]",
        True,
    ),
    _sparse(
        "coo-keyword-none", _COO + "s = torch.sparse_coo_tensor(i, v, (3,), check_invariants=None)\nresult = True", True
    ),
    _sparse(
        "csr-no-keyword",
        _CSR
        + "s = torch.sparse_csr_tensor(c, r, v, (2, 2))\nresult = s.to_dense().tolist() == [[1.0, 0.0], [0.0, 2.0]]",
        True,
    ),
    _sparse(
        "compressed-no-keyword",
        _CSR + "s = torch.sparse_compressed_tensor(c, r, v, (2, 2), layout=torch.sparse_csr)\nresult = True",
        True,
    ),
    _sparse(
        "coo-keyword-false",
        _COO
        + "s = torch.sparse_coo_tensor(i, v, (3,), check_invariants=False)\nresult = s.to_dense().tolist() == [1.0, 0.0, 2.0]",
        False,
    ),
    _sparse(
        "csr-keyword-true",
        _CSR + "s = torch.sparse_csr_tensor(c, r, v, (2, 2), check_invariants=True)\nresult = True",
        False,
    ),
    _sparse(
        "coo-in-context",
        _COO
        + "with torch.sparse.check_sparse_tensor_invariants():\n    s = torch.sparse_coo_tensor(i, v, (3,))\nresult = True",
        False,
    ),
    _sparse(
        "coo-after-enable",
        _COO
        + "torch.sparse.check_sparse_tensor_invariants.enable()\ns = torch.sparse_coo_tensor(i, v, (3,))\nresult = True",
        False,
    ),
]
