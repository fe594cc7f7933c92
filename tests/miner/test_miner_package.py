"""The miner package (tools/miner), module by module, and its two command lines.

The behaviour over whole synthetic releases is in tests/miner/test_mine_deprecations.py; here each module's own job."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile

import pytest

from tests.tool_modules import load_tool
from tests.conftest import REPO as ROOT

common = load_tool("miner.common")
wheels = load_tool("miner.wheels")
pysyntax = load_tool("miner.pysyntax")
sites = load_tool("miner.sites")
index = load_tool("miner.index")
items = load_tool("miner.items")


def test_every_tools_module_is_under_400_lines():
    """The limit of tests/test_architecture.py for advisor/ and rules/, kept for tools/ too."""
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines()) for p in (ROOT / "tools").rglob("*.py")}
    assert {p: n for p, n in sizes.items() if n > 400} == {}


@pytest.mark.parametrize(
    "command",
    [
        ["tools/mine_deprecations.py", "--help"],
        ["-m", "tools.miner", "--help"],
        ["tools/coverage_ledger.py", "--help"],
        ["-m", "tools.miner.ledger", "--help"],
        ["-m", "tools.miner.cxx", "--help"],
        ["-m", "tools.miner.cxx_ledger", "--help"],
        ["tools/release.py", "--help"],
    ],
)
def test_the_documented_command_lines_still_run(command):
    done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "usage:" in done.stdout


def test_common_names():
    assert common.module_name("torch/nn/__init__.py") == "torch.nn"
    assert common.module_name("torch/_C/_nn.pyi") == "torch._C._nn"
    assert common.is_private("torch._C.x") and not common.is_private("torch.Tensor.__init__")
    assert common.is_excluded_path("torch/testing/tests/x.py") and not common.is_excluded_path("torch/tests.py")
    assert common._parse_version("2.14.1+cpu") == (2, 14, 1)
    assert common.fragment("a  b\n c") == "a b c" and common.fragment("x" * 200, 10) == "x" * 9 + "…"


def test_wheels_reads_only_the_distributions_sources(tmp_path):
    whl = tmp_path / "torch-9.1.0-cp311-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        zf.writestr("torch-9.1.0.dist-info/METADATA", "Name: torch\nVersion: 9.1.0+cpu\n\n")
        zf.writestr("torch/__init__.py", "x = 1\n")
        zf.writestr("torchgen/gen.py", "y = 1\n")  # build tooling: not torch's API
        zf.writestr("torch/_C/_nn.pyi", "def f(): ...\n")
        zf.writestr("torch/lib/libc10.dylib", b"\0binary\0")
    assert wheels.peek(str(whl)) == ("torch", "9.1.0")
    assert sorted(wheels.load(str(whl)).files) == ["torch/__init__.py"]
    src = wheels.load(str(whl), c_stubs=True)
    assert (src.dist, src.version) == ("torch", "9.1.0")
    assert set(src.files) == {"torch/__init__.py", "torch/_C/_nn.pyi"}
    with pytest.raises(SystemExit):
        wheels.load(str(tmp_path / "nothing.txt"))


def test_pysyntax_renders_messages_and_binds_names():
    call = ast.parse("f'{a} is deprecated' + ' use b'").body[0].value
    assert pysyntax.render(call, {}) == "{…} is deprecated use b"
    assert pysyntax.render(ast.parse("MSG").body[0].value, {"MSG": "text"}) == "text"
    b = pysyntax.Bindings("torch.mod", False)
    b.visit(ast.parse("from . import sib\nfrom torch.x import y as z\n__all__ = ['z']\n__all__ += ['w']\n"))
    assert b.imported["z"] == ("torch.x", "y", 2) and b.imported["sib"][0] == "torch"
    assert b.all == ["z", "w"] and not b.all_dynamic


def test_sites_one_pass_and_its_cache(tmp_path):
    code = b"import warnings\ndef old(x):\n    warnings.warn('old is deprecated', FutureWarning)\n"
    a = sites.analyse("torch/m.py", code)
    assert [(s["kind"], s["api"], s["category"]) for s in a["sites"]] == [("warn", "torch.m.old", "FutureWarning")]
    assert "error" in sites.analyse("torch/bad.py", b"def (:\n")
    cache = sites.Cache(tmp_path / "c.json")
    assert cache.get("torch/m.py", code) == a and cache.dirty
    cache.save()
    again = sites.Cache(tmp_path / "c.json")
    assert again.get("torch/m.py", code) == a and not again.dirty  # read back, not parsed again


def test_index_intervals_and_deterministic_bytes(tmp_path):
    assert index.intervals([5, 0, 1, 2]) == "0-2,5" and index._expand("0-2,5") == {0, 1, 2, 5}
    data = {"about": "x", "releases": ["1.0.0"], "apis": {"b": "0", "a": "0"}, "events": {}}
    index.write_index(data, tmp_path / "i.json.gz")
    index.write_index(data, tmp_path / "j.json.gz")
    assert (tmp_path / "i.json.gz").read_bytes() == (tmp_path / "j.json.gz").read_bytes()
    assert index.read_index(tmp_path / "i.json.gz") == data
    assert index.indexed("torch.nn") and index.indexed("torch._export") and not index.indexed("torch._a.b.c")


def test_items_share_an_id_across_mechanisms():
    assert items.item_id("torch", "warn", "torch.x") == items.item_id("torch", "deprecated-decorator", "torch.x")
    assert items.item_id("torch", "removed", "torch.x") == "torch:removed:torch.x"


def test_an_index_extended_by_one_release_is_the_index_built_with_it(tmp_path):
    """The next-release command extends the committed index; that must equal building it from all wheels."""
    from tests.miner.test_mine_deprecations import make_wheel

    v1 = {"torch/__init__.py": "from torch.mod import old, new\n", "torch/mod.py": "def old(x):\n    return x\n"}
    v2 = {**v1, "torch/mod.py": "import warnings\ndef old(x):\n    warnings.warn('old is deprecated', FutureWarning)\n"}
    v3 = {"torch/__init__.py": "x = 1\n"}
    whls = [make_wheel(tmp_path, v, f) for v, f in (("9.0.0", v1), ("9.1.0", v2), ("9.2.0", v3))]
    cache = sites.Cache(None)
    srcs = [(*wheels.peek(str(w)), lambda w=w: wheels.load(str(w), c_stubs=True)) for w in whls]
    full = index.build_index(srcs, cache)
    first_two = index.truncate_index(full, 2)
    assert first_two["releases"] == ["9.0.0", "9.1.0"] and first_two == index.build_index(srcs[:2], cache)
    newest = load_tool("miner.model").build_release(wheels.load(str(whls[2]), c_stubs=True), cache)
    assert index.extend_index(first_two, newest) == full
    with pytest.raises(SystemExit):
        index.extend_index(full, newest)  # already there


def test_quoted_messages_show_no_f_string_template():
    """`{name}` of a module `__getattr__` is the API's own name; any other run-time field is shown as "…"."""
    quote = load_tool("miner.catalogue")._quote
    event = {
        "releases": {0},
        "kind": "warn",
        "category": "FutureWarning",
        "message": "`{…}` from `torch.a.grouping` is going to be removed. Please use `{…}` from `torch.a.sharding`",
    }
    text, category = quote([event], "torch.a.grouping.Pipe")
    assert text == "`Pipe` from `torch.a.grouping` is going to be removed. Please use `…` from `torch.a.sharding`"
    assert category == "FutureWarning" and "{" not in quote([{**event, "message": "use masked={…}"}], "torch.f")[0]
