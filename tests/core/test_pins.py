"""The project's declared torch/torchvision/torchaudio bounds, from every packaging layout
(advisor.core.pins). Fixtures are written here, one small project per layout."""

import json
import os
import textwrap

import pytest

from advisor.core.pins import (
    COMPANIONS,
    companion_targets,
    find_bounds,
    find_pins,
    parse_target_overrides,
    resolve_companions,
)
from advisor.core.versions import lowest_supported, resolve_target


def write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(root)


def torch_bounds(root):
    b = find_bounds(root).get("torch")
    return b and (b.lower_text, b.source_lower, b.upper_text, b.source_upper)


# --- requirements trees ---------------------------------------------------------------------


def test_requirements_tree_with_includes_and_a_cycle(tmp_path):
    root = write(
        tmp_path,
        {
            "requirements.txt": "-r requirements/app/base.txt\nnumpy\n",
            "requirements/app/base.txt": "# core\n-r ../../requirements.txt\nrequests\ntorch >=2.1.0, <2.10.0  # tested\n",
            "requirements/app/gpu.txt": "--requirement base.txt\n-c ../pins.txt\n",
            "requirements/pins.txt": "torch==2.9.1\n",
        },
    )
    assert torch_bounds(root) == ("2.1", "requirements/app/base.txt:4", "2.9", "requirements/app/base.txt:4")


def test_lowest_lower_and_highest_upper_across_files(tmp_path):
    root = write(
        tmp_path,
        {
            "requirements/runtime_a.txt": "torch>=2.3.1,<2.10.0\n",
            "requirements/runtime_b.txt": "einops\ntorch<=2.12.1,>=2.0.0\n",
            "requirements/docs.txt": "torch\n",  # unpinned: bounds nothing
        },
    )
    assert torch_bounds(root) == ("2.0", "requirements/runtime_b.txt:2", "2.12", "requirements/runtime_b.txt:2")


def test_requirement_lines_markers_extras_continuations_and_options(tmp_path):
    root = write(
        tmp_path,
        {
            "requirements-dev.txt": (
                "--index-url https://example.invalid/simple\n"
                "-e .\n"
                "torch-tb-profiler>=0.4\n"
                "pytorch-lightning>=1.0\n"
                "torch[opt] >= 2.4 ; python_version >= '3.9' \\\n"
                "    --hash=sha256:abc\n"
                "torchvision==0.19.1+cu121\n"
            ),
        },
    )
    pins = find_pins(root)
    assert [(p.library, p.spec, p.source) for p in pins] == [
        ("torch", ">=2.4", "requirements-dev.txt:5"),
        ("torchvision", "==0.19.1+cu121", "requirements-dev.txt:7"),  # as written; bounds ignore the local tag
    ]
    assert find_bounds(root)["torchvision"].lower_text == "0.19"


def test_root_constraints_file(tmp_path):
    root = write(tmp_path, {"constraints.txt": "torch>=2.2,<2.5\n"})
    assert torch_bounds(root) == ("2.2", "constraints.txt:1", "2.4", "constraints.txt:1")


# --- setup.py (ast only), setup.cfg ---------------------------------------------------------


def test_setup_py_literals_names_fstrings_join_never_executed(tmp_path):
    root = write(
        tmp_path,
        {
            "setup.py": """
            import pathlib
            pathlib.Path("EXECUTED").write_text("setup.py ran")
            TORCH_MIN = "2.2"
            vision = "0.17"
            reqs = [">=".join(["torch", TORCH_MIN]), "torchvision>={}".format(vision), "torchaudio" + ">=2.2,<2.9"]
            setup(name="x", install_requires=reqs)
        """,
        },
    )
    b = find_bounds(root)
    assert (b["torch"].lower_text, b["torch"].source_lower) == ("2.2", "setup.py:5")
    assert b["torchvision"].lower_text == "0.17"
    assert (b["torchaudio"].lower_text, b["torchaudio"].upper_text) == ("2.2", "2.8")
    assert not (tmp_path / "EXECUTED").exists()


def test_setup_py_reads_requirements_files(tmp_path):
    root = write(
        tmp_path,
        {
            "setup.py": """
            def parse_requirements(path):
                return [l for l in open(path).read().splitlines() if l]
            device = os.environ.get("DEVICE", "cuda")
            setup(install_requires=parse_requirements(f"deps/runtime_{device}.txt"))
        """,
            "deps/runtime_cuda.txt": "torch>=2.3,<=2.12.1\n",
            "deps/runtime_npu.txt": "torch>=2.5\n",
            "deps/unrelated.txt": "torch==2.0\n",  # not a file setup.py reads
        },
    )
    assert torch_bounds(root) == ("2.3", "deps/runtime_cuda.txt:1", "2.12", "deps/runtime_cuda.txt:1")


def test_setup_py_extras_rank_below_install_requires(tmp_path):
    root = write(
        tmp_path,
        {
            "setup.py": """
            setup(install_requires=["torch>=2.4"], extras_require={"old": ["torch>=2.0"]},
                  setup_requires=["torch>=1.13"])
        """,
        },
    )
    assert torch_bounds(root)[:2] == ("2.4", "setup.py:1")
    only_extras = write(
        tmp_path / "extras", {"setup.py": 'deps = ["torch>=2.6"]\nsetup(extras_require={"torch": deps})\n'}
    )
    assert torch_bounds(only_extras)[:2] == ("2.6", "setup.py:1")


def test_setup_cfg_install_extras_and_file_directive(tmp_path):
    root = write(
        tmp_path,
        {
            "setup.cfg": """
            [metadata]
            name = x
            [options]
            install_requires =
                numpy
                torch>=2.2
            [options.extras_require]
            vision = torchvision>=0.17
        """,
        },
    )
    assert torch_bounds(root)[:2] == ("2.2", "setup.cfg:6")
    assert find_bounds(root)["torchvision"].lower_text == "0.17"
    other = write(
        tmp_path / "f",
        {
            "setup.cfg": "[options]\ninstall_requires = file: deps/run.txt\n",
            "deps/run.txt": "torch~=2.5.0\n",
        },
    )
    assert torch_bounds(other) == ("2.5", "deps/run.txt:1", "2.5", "deps/run.txt:1")


# --- conda, pixi, pyproject, locks ---------------------------------------------------------


def test_environment_yml_conda_and_pip_sections(tmp_path):
    root = write(
        tmp_path,
        {
            "environment.yml": """
            name: env
            channels:
              - pytorch  # a channel, not a package
              - conda-forge
            dependencies:
              - python=3.11
              - pytorch::pytorch=2.3
              - pytorch-cuda=12.1
              - pip:
                  - torchvision>=0.18,<0.21
        """,
        },
    )
    b = find_bounds(root)
    assert (b["torch"].lower_text, b["torch"].upper_text, b["torch"].source_lower) == (
        "2.3",
        "2.3",
        "environment.yml:7",
    )
    assert (b["torchvision"].lower_text, b["torchvision"].source_lower) == ("0.18", "environment.yml:10")


def test_pixi_toml_conda_pypi_and_features(tmp_path):
    root = write(
        tmp_path,
        {
            "pixi.toml": """
            [workspace]
            name = "x"
            [dependencies]
            pytorch = "2.4.*"
            [pypi-dependencies]
            torchaudio = { version = ">=2.4" }
            [feature.old.dependencies]
            pytorch = ">=2.0"
        """,
        },
    )
    b = find_bounds(root)
    assert (b["torch"].lower_text, b["torch"].upper_text, b["torch"].source_lower) == ("2.4", "2.4", "pixi.toml:4")
    assert b["torchaudio"].lower_text == "2.4"


def test_pyproject_pep621_groups_poetry_and_tiers(tmp_path):
    root = write(
        tmp_path,
        {
            "pyproject.toml": """
            [build-system]
            requires = ["setuptools", "torch>=1.13"]
            [project]
            name = "x"
            dependencies = ["numpy", "torch>=2.3"]
            [project.optional-dependencies]
            legacy = ["torch>=2.0"]
            [dependency-groups]
            typing = ["torch==2.9.1", {include-group = "legacy"}]
            [[tool.uv.dependency-metadata]]
            name = "other-package"
            requires-dist = ["torch>=2.1"]
        """,
        },
    )
    assert torch_bounds(root) == ("2.3", "pyproject.toml:5", None, None)
    poetry = write(
        tmp_path / "p",
        {
            "pyproject.toml": """
            [tool.poetry.dependencies]
            python = "^3.10"
            torch = {version = "^2.2", source = "pytorch"}
            [tool.poetry.group.vision.dependencies]
            torchvision = "~0.17"
        """,
        },
    )
    b = find_bounds(poetry)
    assert (b["torch"].lower_text, b["torch"].upper_text, b["torch"].source_lower) == (
        "2.2",
        "2.99",
        "pyproject.toml:3",
    )
    assert (b["torchvision"].lower_text, b["torchvision"].upper_text) == ("0.17", "0.17")


def test_lock_only_when_nothing_is_declared(tmp_path):
    lock = '[[package]]\nname = "numpy"\nversion = "2.0.0"\ndependencies = [{ name = "torch" }]\n\n[[package]]\nname = "torch"\nversion = "2.6.0"\n'
    root = write(tmp_path, {"uv.lock": lock})
    assert torch_bounds(root) == ("2.6", "uv.lock:7", "2.6", "uv.lock:7")
    both = write(tmp_path / "b", {"uv.lock": lock, "requirements.txt": "torch>=2.1\n"})
    assert torch_bounds(both) == ("2.1", "requirements.txt:1", None, None)


def test_a_lock_read_a_table_at_a_time_gives_what_the_whole_file_gives(tmp_path):
    from advisor.core import pinfiles
    from advisor.core.pins import _library

    lock = (
        'version = 1\n\n[[package]]\nname = "numpy"\nversion = "2.0.0"\n\n[package.metadata]\nrequires-dist = [\n'
        '    { name = "torch", specifier = ">=2" },\n]\n\n[[package]]\nname = \'torchvision\'\nversion = "0.21.0"\n'
        'wheels = [{ url = "https://x/torchvision.whl" }]\n\n[[package]]\nversion = "2.6.0"\nname = "torch"\n'
    )
    root = write(tmp_path, {"uv.lock": lock})
    path = os.path.join(root, "uv.lock")
    whole = [r for r in pinfiles.lock(path, pinfiles.Reader(root, [])) if _library(r[0])]
    assert whole == [("torchvision", "==0.21.0", 1, "lock"), ("torch", "==2.6.0", 19, "lock")]
    assert list(pinfiles.lock(path, pinfiles.Reader(root, []), _library)) == whole


def test_broken_files_are_skipped(tmp_path):
    root = write(
        tmp_path,
        {
            "pyproject.toml": "[project\n",
            "setup.py": "def (:\n",
            "setup.cfg": "no section\n",
            "requirements.txt": "-r missing.txt\ntorch>=2.2\n",
        },
    )
    assert torch_bounds(root) == ("2.2", "requirements.txt:2", None, None)


# --- versions.py wiring, CLI ---------------------------------------------------------------


def test_resolve_target_and_lowest_supported(tmp_path):
    root = write(tmp_path, {"requirements/pytorch/base.txt": "numpy\nlightning-utilities\ntorch >=2.1.0, <2.10.0\n"})
    assert resolve_target(None, root) == (
        "2.9",
        "2.1",
        "torch pin 'torch>=2.1.0,<2.10.0' in requirements/pytorch/base.txt:3",
    )
    assert lowest_supported(root) == ("2.1", "Lowest supported torch 2.1 (requirements/pytorch/base.txt:3)")
    assert lowest_supported(str(tmp_path / "nothing")) == (None, None)


def test_cli_prints_where_the_lower_bound_came_from(cli, tmp_path):
    write(
        tmp_path,
        {"m.py": "import torch\n", "setup.py": 'torch_min = "2.1"\nsetup(install_requires=[f"torch>={torch_min}"])\n'},
    )
    (tmp_path / ".git").mkdir()
    proc = cli("scan", "m.py", "--no-cache", cwd=tmp_path)
    assert "lowest supported torch 2.1 (torch pin 'torch>=2.1' in setup.py:2)." in proc.stdout, (
        proc.stdout + proc.stderr
    )


# --- companions ------------------------------------------------------------------------------


def test_companion_map_follows_the_wheels():
    assert companion_targets("2.14.1") == {"torchvision": "0.29", "torchaudio": "2.11"}
    assert companion_targets("2.9") == {"torchvision": "0.24", "torchaudio": "2.9"}
    assert companion_targets("2.15")["torchvision"] == "0.29"  # no torchvision 0.30 on the registry
    assert all(
        audio == "2.11" for torch, (_, audio) in COMPANIONS.items() if tuple(map(int, torch.split("."))) >= (2, 11)
    )
    with pytest.raises(ValueError, match="no companion versions known for torch 3.0"):
        companion_targets("3.0")


def test_target_overrides():
    assert parse_target_overrides(["torchvision=0.29", "torch=2.14,torchaudio=2.11"]) == {
        "torchvision": "0.29",
        "torch": "2.14",
        "torchaudio": "2.11",
    }
    assert parse_target_overrides(["2.13"]) == {"torch": "2.13"}
    assert resolve_companions("2.14", {"torchvision": "0.28"}) == {"torchvision": "0.28", "torchaudio": "2.11"}
    for bad in ("torchtext=0.18", "torchvision=latest", "torchvision="):
        with pytest.raises(ValueError, match="expected LIB=X.Y"):
            parse_target_overrides([bad])
    with pytest.raises(ValueError, match="twice"):
        parse_target_overrides(["torchvision=0.28", "torchvision=0.29"])


# --- ground truth on real repositories (hand-read; skipped where the checkouts are absent) ------

REPOS = "/work/repos"
TRUTH = "/work/realcode/lower_bounds.json"


@pytest.mark.skipif(
    not (os.path.isdir(REPOS) and os.path.isfile(TRUTH)), reason="real repositories not on this machine"
)
@pytest.mark.parametrize(
    "repo",
    [
        "apex",
        "lmdeploy",
        "pytorch-lightning",
        "diffusers",
        "gpytorch",
        "Megatron-LM",
        "TransformerEngine",
        "DeepSpeed",
        "torchtune",
        "torchtitan",
        "ao",
    ],
)
def test_real_repositories_match_the_hand_read_bounds(repo):
    with open(TRUTH) as f:
        want = json.load(f)[repo]
    if not os.path.isdir(os.path.join(REPOS, repo)):
        pytest.skip(f"{repo} not checked out")
    b = find_bounds(os.path.join(REPOS, repo)).get("torch")

    def minor(v):
        return ".".join(v.split(".")[:2]) if v else None

    assert (b.lower_text if b else None) == minor(want["min"])
    if want.get("max"):
        assert b.upper_text == minor(want["max"])
    if want.get("max_exclusive"):
        major, minor_ = map(int, want["max_exclusive"].split(".")[:2])
        assert b.upper == (major, minor_ - 1)


def test_cli_target_option_sets_companions_and_rejects_bad_values(cli, tmp_path):
    write(tmp_path, {"m.py": "import torch\n", "requirements.txt": "torch>=2.4,<2.12\n"})
    (tmp_path / ".git").mkdir()
    proc = cli("scan", "m.py", "--no-cache", "--target", "torchvision=0.25", cwd=tmp_path)
    assert "Companion targets: torchvision 0.25 (--target), torchaudio 2.11 (from torch 2.11)." in proc.stdout
    bad = cli("scan", "m.py", "--no-cache", "--target", "torchtext=0.18", cwd=tmp_path)
    assert bad.returncode == 2 and "expected LIB=X.Y" in bad.stderr
    clash = cli("fix", "m.py", "--diff", "--target", "torch=2.9", "--target-version", "2.10", cwd=tmp_path)
    assert clash.returncode == 2 and "disagree" in clash.stderr
