"""The deprecation miner (tools/miner, command tools/mine_deprecations.py) on small synthetic packages.

Each test writes a fake `torch` distribution (a wheel zip or an installed tree) into a tmp dir
and checks what the miner reports; nothing is imported from the fake package.
"""

from __future__ import annotations

import json
import textwrap
import zipfile
from pathlib import Path

import pytest
from tests.tool_modules import load_tool


miner = load_tool("miner")


def make_wheel(tmp: Path, version: str, files: dict[str, str], dist: str = "torch") -> Path:
    path = tmp / f"{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(
            f"{dist}-{version}.dist-info/METADATA", f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n\n"
        )
        for rel, text in files.items():
            zf.writestr(rel, textwrap.dedent(text))
    return path


def make_tree(tmp: Path, version: str, files: dict[str, str], dist: str = "torch") -> Path:
    site = tmp / f"site-{version}"
    info = site / f"{dist}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}+cpu\n\n")
    for rel, text in files.items():
        p = site / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))
    return site


def run(*paths: Path, dist: str | None = None) -> dict:
    sources = [miner.load(str(p), dist) for p in paths]
    return miner.mine(sources, miner.Cache(None))


def by_id(result: dict) -> dict[str, dict]:
    return {it["id"]: it for it in result["items"]}


BASE = {
    "torch/__init__.py": """
        from torch._impl import hidden_public
        from torch import nn
    """,
    "torch/nn/__init__.py": "from .functional import *\n",
    "torch/nn/functional.py": """
        import warnings
        from warnings import warn as _w
        __all__ = ["upsample", "softmax", "keep", "quiet"]

        def upsample(x):
            warnings.warn("`upsample` is deprecated. Use `interpolate`.", stacklevel=2)
            return x

        def softmax(x, dim=None, _stacklevel=3):
            if dim is None:
                _w("Implicit dimension choice has been deprecated.", stacklevel=_stacklevel)
            return x

        def keep(x):
            warnings.warn("this is just a user warning about shapes")
            return x

        def quiet(x, old_arg=None):
            if old_arg is not None:
                warnings.warn("`old_arg` is deprecated and has no effect.", FutureWarning)
            return x
    """,
    "torch/_impl.py": """
        import warnings
        def hidden_public():
            warnings.warn("hidden_public is deprecated", DeprecationWarning)
        def hidden_private():
            warnings.warn("hidden_private is deprecated", DeprecationWarning)
    """,
    "torch/deco.py": """
        from typing_extensions import deprecated
        import typing_extensions

        @deprecated("`old_fn` is deprecated, use `new_fn`.", category=FutureWarning)
        def old_fn():
            pass

        @typing_extensions.deprecated("`OldCls` is deprecated.")
        class OldCls:
            def __init__(self):
                pass

        def _make_deprecate(f):
            return f

        def normal_(x):
            return x

        normal = _make_deprecate(normal_)
    """,
    "torch/lazy.py": """
        import warnings
        def __getattr__(name):
            if name == "gone_soon":
                warnings.warn("`gone_soon` is deprecated", FutureWarning)
                return 1
            raise AttributeError(name)
    """,
    "torch/cls.py": """
        import warnings
        class Sched:
            def __init__(self, verbose="deprecated"):
                if verbose != "deprecated":
                    warnings.warn("The verbose parameter is deprecated.", UserWarning)
            def step(self, epoch=None):
                warnings.warn("The epoch parameter in `step()` is being deprecated.", UserWarning)
    """,
    "torch/tests/test_x.py": """
        import warnings
        def test_warns():
            warnings.warn("deprecated thing", DeprecationWarning)
    """,
}


def test_warn_sites_and_their_apis(tmp_path):
    items = by_id(run(make_wheel(tmp_path, "9.0.0", BASE)))
    up = items["torch:deprecated:torch.nn.upsample"]  # canonical name: re-exported by torch.nn's star import
    assert up["category"] == "UserWarning"
    assert up["message"] == "`upsample` is deprecated. Use `interpolate`."
    assert up["evidence"] == ["9.0.0:torch/nn/functional.py:7"]
    assert up["versions"] == ["9.0.0"]
    # `from warnings import warn as _w`, guarded by `if dim is None`: keyed on the parameter
    assert "torch:deprecated:torch.nn.softmax(dim=)" in items
    assert "torch:deprecated:torch.nn.quiet(old_arg=)" in items
    assert items["torch:deprecated:torch.nn.quiet(old_arg=)"]["category"] == "FutureWarning"
    # a UserWarning without deprecation wording is not a deprecation
    assert not any("keep" in i for i in items)


def test_private_definitions_count_only_when_reexported(tmp_path):
    items = by_id(run(make_wheel(tmp_path, "9.0.0", BASE)))
    assert "torch:deprecated:torch.hidden_public" in items
    assert items["torch:deprecated:torch.hidden_public"]["evidence"] == ["9.0.0:torch/_impl.py:4"]
    assert not any("hidden_private" in i for i in items)


def test_decorators_wrappers_getattr_and_constructors(tmp_path):
    items = by_id(run(make_wheel(tmp_path, "9.0.0", BASE)))
    assert items["torch:deprecated:torch.deco.old_fn"]["message"] == "`old_fn` is deprecated, use `new_fn`."
    assert "torch:deprecated:torch.deco.OldCls" in items
    assert items["torch:deprecated:torch.deco.normal"]["via"] == "_make_deprecate"
    assert "torch:deprecated:torch.lazy.gone_soon" in items  # module __getattr__ keyed on the compared name
    assert "torch:deprecated:torch.cls.Sched(verbose=)" in items  # __init__ warnings belong to the class
    assert "torch:deprecated:torch.cls.Sched.step(epoch=)" in items


def test_tests_directories_are_not_user_facing(tmp_path):
    items = by_id(run(make_wheel(tmp_path, "9.0.0", BASE)))
    assert not any("tests" in i or "test_warns" in i for i in items)


def test_removed_names_and_modules(tmp_path):
    v1 = dict(BASE)
    v1["torch/old_mod.py"] = "def f():\n    pass\n"
    v1["torch/sub/__init__.py"] = (
        "__all__ = ['a', 'b', 'c', 'd']\nfrom .impl import *\ndef a(): pass\nb = 1\nc = 2\nd = 3\n"
    )
    v1["torch/sub/impl.py"] = "__all__ = []\n"
    v2 = dict(BASE)
    # `b` gone; `c` still reachable through the star import; `d` served by a lazy __getattr__
    v2["torch/sub/__init__.py"] = (
        "__all__ = ['a']\nfrom .impl import *\ndef a(): pass\n"
        "def __getattr__(name):\n    if name in ('d',):\n        return 3\n    raise AttributeError(name)\n"
    )
    v2["torch/sub/impl.py"] = "__all__ = ['c']\nc = 2\n"
    res = run(make_wheel(tmp_path, "9.1.0", v2), make_wheel(tmp_path, "9.0.0", v1))
    assert res["covered"] == {"torch": ["9.0.0", "9.1.0"]}  # ordered by version, not by argument order
    items = by_id(res)
    removed = {i for i in items if ":removed:" in i}
    assert removed == {"torch:removed:torch.sub.b", "torch:removed:torch.old_mod"}
    b = items["torch:removed:torch.sub.b"]
    assert b["version"] == "9.1.0"
    assert b["evidence"] == ["9.0.0:torch/sub/__init__.py:4"]  # where the old version defined it
    # a site seen in both versions keeps one id, both versions, and the newest evidence
    assert items["torch:deprecated:torch.nn.upsample"]["versions"] == ["9.0.0", "9.1.0"]
    assert items["torch:deprecated:torch.nn.upsample"]["evidence"] == ["9.1.0:torch/nn/functional.py:7"]


def test_installed_tree_equals_wheel_and_output_is_deterministic(tmp_path):
    wheel = run(make_wheel(tmp_path, "9.0.0", BASE))
    tree = run(make_tree(tmp_path, "9.0.0", BASE), dist="torch")
    assert [i["id"] for i in wheel["items"]] == [i["id"] for i in tree["items"]]
    again = tmp_path / "again"
    again.mkdir()
    assert json.dumps(wheel, sort_keys=True) == json.dumps(run(make_wheel(again, "9.0.0", BASE)), sort_keys=True)
    ids = [i["id"] for i in wheel["items"]]
    assert ids == sorted(ids)


def test_cli_writes_sorted_json_and_uses_the_cache(tmp_path):
    whl = make_wheel(tmp_path, "9.0.0", BASE)
    out1, out2, cache = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "cache.json"
    assert miner.main([str(whl), "-o", str(out1), "--cache", str(cache)]) == 0
    assert cache.is_file()
    assert miner.main([str(whl), "-o", str(out2), "--cache", str(cache)]) == 0
    assert out1.read_bytes() == out2.read_bytes()
    data = json.loads(out1.read_text())
    assert data["covered"] == {"torch": ["9.0.0"]}


def test_unparsable_files_are_recorded_not_fatal(tmp_path):
    files = dict(BASE)
    files["torch/newsyntax.py"] = "def f(:\n"
    res = run(make_wheel(tmp_path, "9.0.0", files))
    assert "torch/newsyntax.py" in res["parse_errors"]["torch==9.0.0"]
    assert "torch:deprecated:torch.nn.upsample" in by_id(res)


def test_bad_input_is_a_clear_error(tmp_path):
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(SystemExit, match="not a wheel"):
        miner.load(str(tmp_path / "x.txt"))
    with pytest.raises(SystemExit, match="needs --dist"):
        miner.load(str(tmp_path))


def test_a_decorator_whose_body_warns_deprecates_what_it_decorates(tmp_path):
    files = {
        "torchvision/__init__.py": "",
        "torchvision/models/__init__.py": "from .resnet import *\n",
        "torchvision/models/_utils.py": """
            import functools, warnings
            def handle_legacy_interface(**weights):
                def outer(builder):
                    @functools.wraps(builder)
                    def inner(*args, **kwargs):
                        if "pretrained" in kwargs:
                            warnings.warn("The parameter 'pretrained' is deprecated since 0.13.")
                        return builder(*args, **kwargs)
                    return inner
                return outer
            def plain(f):
                return f
        """,
        "torchvision/models/resnet.py": """
            from ._utils import handle_legacy_interface, plain
            __all__ = ["resnet18", "resnet34"]
            @handle_legacy_interface(weights=("pretrained", None))
            def resnet18(*, weights=None, **kwargs):
                pass
            @plain
            def resnet34(*, weights=None, **kwargs):
                pass
        """,
    }
    items = by_id(run(make_wheel(tmp_path, "0.99.0", files, dist="torchvision")))
    it = items["torchvision:deprecated:torchvision.models.resnet18"]
    assert it["via"] == "handle_legacy_interface"
    assert it["message"] == "The parameter 'pretrained' is deprecated since 0.13."
    assert it["evidence"] == ["0.99.0:torchvision/models/resnet.py:5"]  # the def line
    assert not any("resnet34" in i for i in items)


def test_warn_then_decorator_is_one_item_and_stubs_show_c_removals(tmp_path):
    v1 = {
        "torch/__init__.py": "import warnings\n__all__ = ['old']\ndef old():\n    warnings.warn('old is deprecated', FutureWarning)\n",
        "torch/_C/_VariableFunctions.pyi": "def cholesky(a): ...\ndef qr(a): ...\ndef _private(a): ...\n",
        "torch/_C/__init__.pyi": "class TensorBase:\n    def cholesky(self): ...\n    def add(self, o): ...\n",
    }
    v2 = {
        "torch/__init__.py": (
            "from typing_extensions import deprecated\n__all__ = ['old']\n"
            "_deprecated_attrs = {'has_cuda': 'x'}\n"
            "@deprecated('old is deprecated', category=FutureWarning)\ndef old():\n    pass\n"
            "def __getattr__(name):\n    import warnings\n    if name in _deprecated_attrs:\n"
            "        warnings.warn(f'{name} is deprecated', FutureWarning)\n"
        ),
        "torch/_C/_VariableFunctions.pyi": "def qr(a): ...\n",
        "torch/_C/__init__.pyi": "class TensorBase:\n    def add(self, o): ...\n",
    }
    items = by_id(run(make_wheel(tmp_path, "9.0.0", v1), make_wheel(tmp_path, "9.1.0", v2)))
    old = items["torch:deprecated:torch.old"]
    assert old["kinds"] == ["warn", "deprecated-decorator"] and old["kind"] == "deprecated-decorator"
    assert old["versions"] == ["9.0.0", "9.1.0"]
    assert "torch:deprecated:torch.has_cuda" in items  # `if name in <module-level dict>` in __getattr__
    removed = {i for i in items if ":removed:" in i}
    assert removed == {"torch:removed:torch.cholesky", "torch:removed:torch.Tensor.cholesky"}
    assert items["torch:removed:torch.cholesky"]["evidence"] == ["9.0.0:torch/_C/_VariableFunctions.pyi:1"]


def test_an_optional_import_from_outside_does_not_keep_a_name_alive(tmp_path):
    v1 = {
        "torchvision/__init__.py": "",
        "torchvision/io/__init__.py": "from .video_reader import VideoReader\n__all__ = ['VideoReader']\n",
        "torchvision/io/video_reader.py": "class VideoReader:\n    pass\n",
    }
    v2 = {
        "torchvision/__init__.py": "",
        "torchvision/io/__init__.py": "try:\n    from fb_only.io import VideoReader\nexcept ImportError:\n    pass\n__all__ = []\n",
    }
    items = by_id(
        run(
            make_wheel(tmp_path, "0.25.0", v1, dist="torchvision"),
            make_wheel(tmp_path, "0.26.0", v2, dist="torchvision"),
        )
    )
    assert "torchvision:removed:torchvision.io.VideoReader" in items
    assert "torchvision:removed:torchvision.io.video_reader" in items


def test_an_unquoted_parameter_named_as_deprecated_keys_the_item(tmp_path):
    files = {
        "torch/__init__.py": "",
        "torch/prof.py": """
        import warnings
        def profile(use_cuda=None, with_stack=False, with_modules=False):
            if with_stack or with_modules:
                if with_modules:
                    warnings.warn("with_modules is deprecated and will be removed.", FutureWarning)
    """,
    }
    items = by_id(run(make_wheel(tmp_path, "9.0.0", files)))
    assert "torch:deprecated:torch.prof.profile(with_modules=)" in items


def test_a_function_kept_only_to_raise_a_removal_message_is_removed(tmp_path):
    files = {
        "torch/__init__.py": "from torch._linalg_utils import cholesky, solve, live\n",
        "torch/_linalg_utils.py": """
            def cholesky(A, upper=False, *, out=None):
                name = "upper" if upper else "lower"
                raise RuntimeError("This function was deprecated since version 1.9 and is now removed. Use torch.linalg.cholesky.")
            def solve(A, B, upper=False):
                if upper:
                    raise RuntimeError("This function is now removed. Use torch.linalg.solve with upper.")
                raise RuntimeError("This function is now removed. Use torch.linalg.solve.")
            def live(x):
                if x is None:
                    raise ValueError("the tensor in the portal has been removed")
                return x
        """,
    }
    items = by_id(run(make_wheel(tmp_path, "9.0.0", files)))
    it = items["torch:removed:torch.cholesky"]
    assert it["kind"] == "removed" and it["versions"] == ["9.0.0"]
    assert it["evidence"] == ["9.0.0:torch/_linalg_utils.py:4"]
    assert "torch:removed:torch.solve" in items  # a stub is one removal, not one per branch
    assert not any(i.startswith("torch:removed:torch.solve(") for i in items)
    assert not any("live" in i for i in items)  # a live function raising about run-time state


def test_the_api_index_records_names_events_and_removals_as_intervals(tmp_path):
    v1 = {
        "torch/__init__.py": "from torch.mod import old, new\nfrom torch._impl import Cls\n__all__ = ['old', 'new', 'Cls']\n",
        "torch/mod.py": (
            "import warnings\n"
            "def old(x, flag=None):\n    if flag is not None:\n        warnings.warn('`flag` is deprecated', FutureWarning)\n    return x\n"
            "def new(x):\n    return x\n"
        ),
        "torch/_impl.py": "class Cls:\n    attr = 1\n    def method(self):\n        pass\n",
        "torch/_C/_nn.pyi": "def c_only(x): ...\n",
    }
    v2 = dict(v1)
    v2["torch/mod.py"] = (
        "from typing_extensions import deprecated\n"
        "@deprecated('`old` is deprecated, use `new`', category=FutureWarning)\n"
        "def old(x, flag=None):\n    return x\n"
        "def new(x):\n    return x\n"
    )
    v3 = {k: v for k, v in v2.items() if k != "torch/mod.py"}
    v3["torch/__init__.py"] = "from torch._impl import Cls\n__all__ = ['Cls']\n"
    wheels = [make_wheel(tmp_path, v, files) for v, files in (("9.0.0", v1), ("9.1.0", v2), ("9.2.0", v3))]
    out = tmp_path / "index.json.gz"
    assert miner.main(["--index", *map(str, reversed(wheels)), "-o", str(out)]) == 0
    index = miner.Index.read(out)
    assert index.releases == ["9.0.0", "9.1.0", "9.2.0"]
    assert index.present("torch.old") == {0, 1} and index.apis["torch.old"] == "0-1"
    assert index.present("torch.Cls.method") == {0, 1, 2}  # a re-exported class's members
    assert "torch._impl.Cls.method" not in index.apis  # class members under a private path are left out
    assert index.present("torch._C._nn.c_only") == {0, 1, 2}  # the C extension's stubs
    assert index.warns("torch.old") == {1}  # decorated in 9.1.0; the 9.0.0 warning is on `flag=`
    assert index.warns("torch.mod.old") == {1}  # through the alias
    (param,) = index.events("torch.old(flag=)")
    assert param["category"] == "FutureWarning" and param["on_args"] and param["releases"] == {0}
    first_bytes = out.read_bytes()
    miner.main(["--index", *map(str, wheels), "-o", str(out)])
    assert out.read_bytes() == first_bytes  # deterministic, whatever the argument order
    miner.write_index(index.data, tmp_path / "again.json.gz")
    assert (tmp_path / "again.json.gz").read_bytes() == first_bytes


def test_re_exports_inherit_the_warning_of_what_they_re_export(tmp_path):
    """A shim module (imports only: `torch/quantization/quantize.py`), the star import of a shim, and a package's
    explicit private re-export (`torch.distributed._all_gather_base`) carry the definition's warning; the shim's
    names never become the canonical one."""
    files = {
        "torch/__init__.py": "",
        "torch/ao/__init__.py": "from torch.ao.quant import prepare\n",
        "torch/ao/quant.py": (
            "from typing_extensions import deprecated\n"
            "@deprecated('`prepare` is deprecated', category=FutureWarning)\ndef prepare(m):\n    return m\n"
        ),
        "torch/legacy/__init__.py": "from .quant import *\n",
        "torch/legacy/quant.py": '"""Moved to torch.ao.quant."""\nfrom torch.ao.quant import prepare\n',
        "torch/dist/__init__.py": "from .c10d import _gather_base\n",
        "torch/dist/c10d.py": (
            "import warnings\ndef _gather_base(x):\n"
            "    warnings.warn('_gather_base is a private function and will be deprecated', FutureWarning)\n"
            "    return x\n"
        ),
    }
    out = tmp_path / "index.json.gz"
    assert miner.main(["--index", str(make_wheel(tmp_path, "9.0.0", files)), "-o", str(out)]) == 0
    index = miner.Index.read(out)
    for name in ("torch.ao.prepare", "torch.legacy.quant.prepare", "torch.legacy.prepare"):
        assert index.present(name) == {0} and index.warns(name) == {0}, name
    assert index.warns("torch.dist._gather_base") == {0}
    # one definition, whose canonical name is the package's, not the shorter legacy one a shim passes on
    assert index.aliases["torch.legacy.prepare"] == index.aliases["torch.ao.quant.prepare"] == "torch.ao.prepare"


def test_category_none_is_silent_and_a_stub_after_super_init_is_removed(tmp_path):
    """`@deprecated(..., category=None)` never warns (advice: `silent_from`, never `deprecated_in`); a class whose
    `__init__` calls `super().__init__(...)` and then raises "no longer supported" is removed, not un-deprecated."""
    v1 = {
        "torch/__init__.py": "from torch.mod import quiet, Cell\n",
        "torch/mod.py": (
            "import warnings\nfrom typing_extensions import deprecated\n"
            "@deprecated('`quiet` is deprecated', category=None)\ndef quiet():\n    pass\n"
            "class Base:\n    pass\n"
            "class Cell(Base):\n    def __init__(self, x):\n"
            "        warnings.warn('Cell is deprecated and will be removed', FutureWarning)\n"
        ),
    }
    v2 = dict(v1)
    v2["torch/mod.py"] = v1["torch/mod.py"].replace(
        "        warnings.warn('Cell is deprecated and will be removed', FutureWarning)\n",
        "        super().__init__()\n        raise RuntimeError('Cell is no longer supported')\n",
    )
    wheels = [make_wheel(tmp_path, v, files) for v, files in (("9.0.0", v1), ("9.1.0", v2))]
    out = tmp_path / "index.json.gz"
    assert miner.main(["--index", *map(str, wheels), "-o", str(out)]) == 0
    index = miner.Index.read(out)
    assert index.warns("torch.quiet") == set() and index.silent("torch.quiet") == {0, 1}
    assert index.raises("torch.mod.Cell") == {1}
    catalogue = load_tool("miner.catalogue")
    assert catalogue._window(index, "torch.quiet") == {
        "deprecated_in": None,
        "removed_in": None,
        "undeprecated_in": None,
        "silent_from": "9.0",
    }
    assert catalogue._window(index, "torch.mod.Cell")["removed_in"] == "9.1"
