"""The content-hash cache shared by the repositories of one `advisor audit`."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess

from advisor.analysis.registry import select_rules
from advisor.audit.executors import LocalExecutor
from advisor.audit.runner import read_manifest, run_audit
from advisor.run.engine import ScanOptions, scan
from advisor.core.settings import settings_at

VENDORED = "import torch\nx = torch.cuda.is_current_stream_capturing()\ny = torch.range(0, 3)\n"


def _org(root, names):
    for name in names:
        (root / name / "third_party").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(root / name)], check=True)  # its own project root and cache
        (root / name / "third_party" / "util.py").write_text(VENDORED)  # the same file in each repository
        (root / name / f"{name}.py").write_text(f"import torch\nstate_{name} = torch.load('ckpt.pt')\n")
    manifest = root / "repos.txt"
    manifest.write_text("\n".join(names) + "\n")
    return read_manifest(str(manifest))


def _audit(repos, out, **extra):
    return run_audit(repos, LocalExecutor(1), {"out": str(out), "target_version": "2.12", "no_cache": False, **extra})


def test_a_vendored_file_is_analysed_once_across_repositories(tmp_path):
    repos = _org(tmp_path, ["alpha", "beta", "gamma"])
    shared = _audit(repos, tmp_path / "out")
    for name in ("alpha", "beta", "gamma"):
        shutil.rmtree(tmp_path / name / ".advisor_cache")
    alone = _audit(repos, tmp_path / "out2", shared_cache=None)
    # The same findings either way, and the two later copies of util.py came from the shared store.
    assert shared["repositories"] == alone["repositories"]
    assert shared["run"]["files_from_cache"] == 2 and alone["run"]["files_from_cache"] == 0
    assert shared["totals"]["findings"] >= 6  # util.py flags in every repository, not only the first
    assert len(glob.glob(str(tmp_path / "out" / ".advisor_cache" / "*" / "*" / "*.json"))) == 4  # util.py + 3 own files


def test_same_content_with_other_options_is_not_reused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "m.py").write_text(VENDORED)
    (tmp_path / "b" / "m.py").write_text(VENDORED)
    store = str(tmp_path / "shared")

    def run(repo, target):
        options = ScanOptions(
            select_rules(),
            settings_at(target),
            cache_dir=str(tmp_path / repo / "cache"),
            jobs=1,
            shared_cache_dir=store,
        )
        return scan([str(tmp_path / repo / "m.py")], options)

    first = run("a", "2.12")
    assert first.files_cached == 0 and first.findings
    other = run("b", "2.11")  # another target: another options key
    assert other.files_cached == 0
    again = run("b", "2.12")  # same content, same options: reused, with this repository's path
    assert again.files_cached == 1
    assert [(f.rule, f.line, f.path) for f in again.findings] == [
        (f.rule, f.line, str(tmp_path / "b" / "m.py")) for f in first.findings
    ]


def test_per_file_ignores_keep_same_content_apart(tmp_path):
    for sub in ("src", "tests"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "m.py").write_text(VENDORED)
    paths = [str(tmp_path / "src" / "m.py"), str(tmp_path / "tests" / "m.py")]
    options = ScanOptions(
        select_rules(),
        settings_at("2.12", per_file_ignores=(("tests/*", ("ADV101",)),), root=str(tmp_path)),
        cache_dir=str(tmp_path / "cache"),
        jobs=1,
    )
    cold = scan(paths, options)
    by_path = {p: sorted(f.rule for f in cold.findings if f.path == p) for p in paths}
    assert "ADV101" in by_path[paths[0]] and "ADV101" not in by_path[paths[1]]
    warm = scan(paths, options)
    assert {p: sorted(f.rule for f in warm.findings if f.path == p) for p in paths} == by_path
    assert os.path.isdir(tmp_path / "cache")
