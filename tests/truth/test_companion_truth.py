"""The companion rules' claims, checked against the real torchvision / torchaudio wheels' `.py` files.

Nothing is imported: the wheels are zip files read with `ast` (the PyPI wheels are CUDA builds whose
extensions do not load with a CPU torch). `.ci/run` downloads the wheels listed in
tests/truth/companion_wheels.txt (small macOS arm64 builds: the `.py` files are the same everywhere) into
$ADVISOR_COMPANION_WHEELS; by hand:

    PIP_CONSTRAINT=/dev/null pip download --no-deps --only-binary=:all: --platform macosx_14_0_arm64 \
        --platform macosx_11_0_arm64 --python-version 3.11 -d DIR -r tests/truth/companion_wheels.txt

Each test skips when its wheels are absent (ADVISOR_COMPANION_WHEELS, else ADVISOR_WHEELS, else /work/wheels).
"""

from __future__ import annotations

import ast
import glob
import os
import sys
import zipfile
from functools import lru_cache

import pytest

from advisor.analysis.registry import rule_by_code
from tests.conftest import ROOT

WHEELS = os.environ.get("ADVISOR_COMPANION_WHEELS") or os.environ.get("ADVISOR_WHEELS", "/work/wheels")
with open(os.path.join(ROOT, "tests", "truth", "companion_wheels.txt"), encoding="utf-8") as _listed:
    LISTED = {line.strip() for line in _listed if line.strip() and not line.startswith("#")}


@lru_cache(maxsize=None)
def wheel(dist: str, version: str) -> zipfile.ZipFile:
    assert f"{dist}=={version}" in LISTED, f"add {dist}=={version} to tests/truth/companion_wheels.txt (CI fetches it)"
    found = sorted(glob.glob(os.path.join(WHEELS, f"{dist}-{version}-*.whl")))
    if not found:
        pytest.skip(f"no {dist} {version} wheel in {WHEELS} (see this module's docstring)")
    return zipfile.ZipFile(found[0])


def source(dist: str, version: str, path: str) -> str | None:
    try:
        return wheel(dist, version).read(path).decode("utf-8")
    except KeyError:
        return None


def _module_file(zf: zipfile.ZipFile, module: str) -> str | None:
    base = module.replace(".", "/")
    names = set(zf.namelist())
    for candidate in (f"{base}/__init__.py", f"{base}.py"):
        if candidate in names:
            return candidate
    return None


def _top_level_bindings(tree: ast.Module, dist: str) -> set[str]:
    """Names a module binds at import time: definitions, assignments, imports from its own
    distribution (not `try: from pytorch.vision.fb.io import ...`, Meta's internal build), and
    the names a module-level `__getattr__` serves from a literal list."""
    names: set[str] = set()
    has_getattr = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            if isinstance(node.value, (ast.List, ast.Tuple)) and has_getattr:  # lazy names a `__getattr__` serves
                names.update(
                    e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] == dist:
                names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Import):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.If, ast.Try)):
            stack.extend(node.body + node.orelse + getattr(node, "finalbody", []))
            for h in getattr(node, "handlers", []):
                stack.extend(h.body)
    return names


def binds(dist: str, version: str, qualname: str) -> bool:
    """Does this wheel provide `qualname` (a module, or a name bound in its longest module prefix)?"""
    zf = wheel(dist, version)
    parts = qualname.split(".")
    for i in range(len(parts), 0, -1):
        path = _module_file(zf, ".".join(parts[:i]))
        if path is None:
            continue
        if i == len(parts):
            return True
        tree = ast.parse(zf.read(path))
        return parts[i] in _top_level_bindings(tree, dist)
    return False


# -- torchaudio ------------------------------------------------------------------------------


@pytest.mark.parametrize("api", sorted(rule_by_code("ADV950").apis))
def test_adv950_present_before_and_gone_from_its_removal(api):
    removed = rule_by_code("ADV950").entry_windows.get(api, {}).get("removed_in", "2.9")
    before = {"2.9": "2.8.0", "2.1": "2.0.1"}[removed]
    assert binds("torchaudio", before, api), api
    for version in (f"{removed}.0", "2.10.0", "2.11.1"):
        assert not binds("torchaudio", version, api), (api, version)


def test_adv950_does_not_list_the_apis_2_10_kept():
    kept = set(rule_by_code("ADV953").apis)
    for api in kept:
        assert binds("torchaudio", "2.10.0", api) and binds("torchaudio", "2.11.1", api), api
        assert all(not api.startswith(k) for k in rule_by_code("ADV950").apis), api


def test_adv953_warned_in_2_9_and_plain_in_2_10():
    old = source("torchaudio", "2.9.0", "torchaudio/functional/__init__.py")
    new = source("torchaudio", "2.10.0", "torchaudio/functional/__init__.py")
    assert "dropping_support" in old and "forced_align" in old
    assert "dropping_support" not in new and "forced_align" in new


def test_adv951_calls_were_noops_then_removed():
    backend = source("torchaudio", "2.4.0", "torchaudio/_backend/__init__.py")
    assert "this function is no-op. You can remove the function call." in backend
    sox = source("torchaudio", "2.4.0", "torchaudio/sox_effects/sox_effects.py")
    assert "Please remove the call. This function is called automatically." in sox
    for api in rule_by_code("ADV951").noops:
        assert binds("torchaudio", "2.8.0", api) and not binds("torchaudio", "2.9.0", api), api


def test_adv952_load_save_go_through_torchcodec():
    for version in ("2.9.0", "2.11.1"):
        init = source("torchaudio", version, "torchaudio/__init__.py")
        assert "return load_with_torchcodec(" in init and "return save_with_torchcodec(" in init
        codec = source("torchaudio", version, "torchaudio/_torchcodec.py")
        assert "TorchCodec is required for load_with_torchcodec" in codec
        assert "The 'normalize=False' parameter is ignored" in codec
        for kw in ("backend", "format", "encoding", "bits_per_sample"):
            assert f"The '{kw}' parameter" in codec, kw


def test_adv954_warnings_are_in_2_11_1():
    transforms = source("torchaudio", "2.11.1", "torchaudio/transforms/_transforms.py")
    functional = source("torchaudio", "2.11.1", "torchaudio/functional/functional.py")
    assert "`return_complex` argument is now deprecated and is not effective." in transforms
    assert "Argument 'onesided' has been deprecated and has no influence" in transforms
    assert "resampling method name is being deprecated and replaced by" in functional
    from advisor.rules.torchaudio.keywords import METHODS

    for old, new in METHODS.items():  # the rule's table is torchaudio's own `method_map`
        assert f'"{old}": "{new}",' in functional, old


# -- torchvision -----------------------------------------------------------------------------


def _extract():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import tv_legacy_weights
    finally:
        sys.path.pop(0)
    return tv_legacy_weights


@pytest.mark.parametrize("version", ["0.19.0", "0.29.2"])
def test_adv910_map_is_the_decorators(version):
    tool = _extract()
    wheel("torchvision", version)  # skip when absent
    path = sorted(glob.glob(os.path.join(WHEELS, f"torchvision-{version}-*.whl")))[0]
    generated = tool.render(tool.extract(path), "x")
    from advisor.rules.torchvision import _weights

    expected = {}
    exec(compile(generated, "generated", "exec"), expected)  # the tool's own output, not user code
    assert expected["BY_MODULE"] == _weights.BY_MODULE


def test_adv910_weights_exist_and_default_differs_for_42_pairs():
    zf = wheel("torchvision", "0.29.2")
    members: dict[str, set[str]] = {}
    defaults: dict[str, str] = {}
    for path in (n for n in zf.namelist() if n.startswith("torchvision/models/") and n.endswith(".py")):
        for node in ast.parse(zf.read(path)).body:
            if isinstance(node, ast.ClassDef) and any(ast.unparse(b) == "WeightsEnum" for b in node.bases):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
                        members.setdefault(node.name, set()).add(stmt.targets[0].id)
                        if stmt.targets[0].id == "DEFAULT":
                            defaults[node.name] = ast.unparse(stmt.value)
    from advisor.rules.torchvision._weights import BY_MODULE

    differ = plain = 0
    for params in BY_MODULE.values():
        for _, default, extras in params.values():
            for value in [default, *[v for k, v in extras.items() if k != "dynamic"]]:
                if value:
                    enum, member = value.rsplit(".", 2)[-2:]
                    assert member in members[enum], value
            if default:
                enum, member = default.rsplit(".", 2)[-2:]
                differ += defaults[enum] != member
                plain += defaults[enum] != member and not extras
    # The facts' 42 pairs (24 `weights`, 18 `weights_backbone`), plus 4 quantization builders
    # whose non-quantized legacy default (IMAGENET1K_V1) is not their float model's DEFAULT (V2).
    assert (plain, differ) == (42, 46)


def test_adv911_deprecations_are_in_0_29_2():
    classes = source("torchvision", "0.29.2", "torchvision/transforms/v2/_deprecated.py")
    functions = source("torchvision", "0.29.2", "torchvision/transforms/v2/functional/_deprecated.py")
    assert "The transform `ToTensor()` is deprecated and will be removed in a future release." in classes
    assert "The function `to_tensor(...)` is deprecated" in functions
    assert "which returns `[h, w]` instead of `[w, h]`" in functions


@pytest.mark.parametrize("api", sorted(rule_by_code("ADV912").apis))
def test_adv912_video_io_gone_in_0_26(api):
    assert binds("torchvision", "0.25.0", api), api
    for version in ("0.26.0", "0.27.0"):
        assert not binds("torchvision", version, api), (api, version)


def test_adv912_video_deprecated_in_0_22():
    assert "deprecated from version 0.22" in source(
        "torchvision", "0.22.0", "torchvision/io/_video_deprecation_warning.py"
    )


def test_adv913_renames():
    from advisor.rules.torchvision._v2_renames import all_renames

    for old, (new, _) in all_renames().items():
        assert binds("torchvision", "0.15.1", old) and not binds("torchvision", "0.16.0", old), old
        assert binds("torchvision", "0.16.0", new) and binds("torchvision", "0.29.2", new), new


def test_adv914_image_io_deprecated_in_0_29():
    new = source("torchvision", "0.29.0", "torchvision/io/image.py")
    old = source("torchvision", "0.28.0", "torchvision/io/image.py")
    assert "deprecated since torchvision 0.29" in new and "deprecated since torchvision 0.29" not in old
    assert "[DEPRECATED] Use TorchCodec instead." in new
    tree = ast.parse(new)
    warned = {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef) and not n.name.startswith("_") and "_warn_deprecated()" in ast.unparse(n)
    }
    from advisor.rules.torchvision.image_io import _DECODERS, _OTHERS

    assert warned == set(_DECODERS) | set(_OTHERS)


def test_adv915_functional_tensor_gone_in_0_17():
    assert source("torchvision", "0.16.0", "torchvision/transforms/functional_tensor.py")
    assert source("torchvision", "0.17.0", "torchvision/transforms/functional_tensor.py") is None
    assert source("torchvision", "0.17.0", "torchvision/transforms/functional_pil.py") is None
    assert binds("torchvision", "0.29.2", "torchvision.transforms.functional.rgb_to_grayscale")


def test_adv916_datapoints_became_tv_tensors():
    assert binds("torchvision", "0.15.1", "torchvision.datapoints.BoundingBox")
    assert not binds("torchvision", "0.16.0", "torchvision.datapoints")
    for name in ("BoundingBoxes", "TVTensor", "Image", "Video", "Mask", "BoundingBoxFormat"):
        assert binds("torchvision", "0.16.0", f"torchvision.tv_tensors.{name}"), name
    assert "canvas_size" in source("torchvision", "0.16.0", "torchvision/tv_tensors/_bounding_boxes.py")


def test_adv919_prototype_only_in_0_16_and_0_22():
    for version, present in (
        ("0.16.0", True),
        ("0.17.0", False),
        ("0.21.0", False),
        ("0.22.0", True),
        ("0.23.0", False),
        ("0.29.2", False),
    ):
        assert binds("torchvision", version, "torchvision.prototype") is present, version


def test_adv920_future_warning_is_in_0_29_2():
    for path, text in (
        ("googlenet.py", "The default weight initialization of GoogleNet will be changed"),
        ("inception.py", "The default weight initialization of inception_v3 will be changed"),
    ):
        assert text in source("torchvision", "0.29.2", f"torchvision/models/{path}")


def _body(dist, version, path, name):
    tree = ast.parse(source(dist, version, path))
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
    return [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]


def test_adv917_noops():
    assert all(
        isinstance(s, ast.Pass)
        for s in _body("torchvision", "0.29.2", "torchvision/__init__.py", "disable_beta_transforms_warning")
    )
    assert all(
        isinstance(s, ast.Pass) for s in _body("torchvision", "0.26.0", "torchvision/__init__.py", "set_video_backend")
    )
    assert not all(
        isinstance(s, ast.Pass) for s in _body("torchvision", "0.25.0", "torchvision/__init__.py", "set_video_backend")
    )


def test_adv921_legacy_apis():
    from advisor.rules.torchvision.legacy_apis import ARCHS

    for arch in ARCHS:
        assert not binds("torchvision", "0.15.1", f"torchvision.models.{arch}.model_urls"), arch
    assert binds("torchvision", "0.29.2", "torchvision.models.video.resnet.model_urls")
    utils = source("torchvision", "0.29.2", "torchvision/models/_utils.py")
    assert "Accessing the model URLs via the internal dictionary of the module is deprecated since 0.13" in utils
    for m in ("_functional_video", "_transforms_video"):
        assert "is deprecated since 0.12" in source("torchvision", "0.29.2", f"torchvision/transforms/{m}.py"), m
    for path in ("torchvision/transforms/v2/_misc.py", "torchvision/transforms/v2/functional/_misc.py"):
        assert "[DEPRECATED]" in source("torchvision", "0.29.2", path), path
        assert "[DEPRECATED]" not in source("torchvision", "0.15.1", path), path


def test_adv922_dataset_changes():
    video = source("torchvision", "0.26.0", "torchvision/datasets/video_utils.py")
    assert "Video decoding capabilities were removed from torchvision and migrated " in video
    assert "import torchcodec" in video and "import torchcodec" not in source(
        "torchvision", "0.25.0", "torchvision/datasets/video_utils.py"
    )
    assert "no longer available" in source("torchvision", "0.23.0", "torchvision/datasets/lfw.py")
    assert "no longer available" not in source("torchvision", "0.22.0", "torchvision/datasets/lfw.py")


def test_every_companion_rule_has_a_truth_check():
    from advisor.analysis.registry import all_rules

    checked = {name.split("_")[1].upper() for name in globals() if name.startswith("test_adv")}
    style_only = {"ADV918"}  # TorchFix's TOR203 import style: no claim about the library
    companions = {r.code for r in all_rules() if getattr(r, "library", None)}
    assert companions - style_only <= checked, sorted(companions - style_only - checked)
