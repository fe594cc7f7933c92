"""A hostile checkout can't make advisor write outside the tree, hide findings, or run its code (docs/security.md).

Each test builds the hostile repository in a temp dir (committed links, a committed cache, a forged report
marker, a shadowing `torch.py`) and drives the real CLI.
"""

from __future__ import annotations

import glob
import json
import os

import pytest

BAD = "import torch\nx = torch.cuda.is_current_stream_capturing()\n"


@pytest.fixture
def home(tmp_path):
    """This machine's advisor key lives here (XDG_CACHE_HOME), apart from the user's."""
    path = tmp_path / "victim-home"
    path.mkdir()
    return {"XDG_CACHE_HOME": str(path)}


def _repo(tmp_path, name="repo"):
    root = tmp_path / name
    root.mkdir()
    (root / "a.py").write_text(BAD)
    return root


def _findings(proc):
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["findings"]


def _scan(cli, root, env, *extra):
    return cli("scan", ".", "--output-format", "json", *extra, cwd=root, env=env)


def _cache_files(root, name):
    return glob.glob(str(root / ".advisor_cache" / "*" / name))


# -- 1. cache writes never follow links ---------------------------------------------------------


def test_a_linked_cache_folder_is_neither_read_nor_written(cli, tmp_path, home):
    root = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / ".advisor_cache")
    assert len(_findings(_scan(cli, root, home))) == 1
    assert os.listdir(outside) == []
    assert os.path.islink(root / ".advisor_cache")


def test_cache_files_that_are_links_are_replaced_not_followed(cli, tmp_path, home):
    root = _repo(tmp_path)
    _scan(cli, root, home)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    for name in ("index.json", "results.json"):
        [path] = _cache_files(root, name)
        os.unlink(path)
        os.symlink(victim, path)
    gitignore = root / ".advisor_cache" / ".gitignore"
    gitignore.unlink()
    os.symlink(tmp_path / "new-file-outside", gitignore)  # dangling: a plain open() would create its target
    (root / "b.py").write_text(BAD)  # something new to cache, so the run writes
    assert len(_findings(_scan(cli, root, home))) == 2
    assert victim.read_text() == "precious\n"
    assert not (tmp_path / "new-file-outside").exists()
    for name in ("index.json", "results.json"):
        [path] = _cache_files(root, name)
        assert not os.path.islink(path) and isinstance(json.load(open(path)), dict)


# -- 2. a committed cache hides nothing ---------------------------------------------------------


def test_a_committed_cache_does_not_hide_findings(cli, tmp_path, home):
    root = _repo(tmp_path)
    # The attacker scans on their own machine, then edits the cache to say "nothing here" and commits it.
    attacker = {"XDG_CACHE_HOME": str(tmp_path / "attacker-home")}
    assert len(_findings(_scan(cli, root, attacker))) == 1
    for path in _cache_files(root, "results.json"):
        forged = {digest: {**entry, "findings": []} for digest, entry in json.load(open(path)).items()}
        with open(path, "w") as f:
            json.dump(forged, f)
    assert _findings(_scan(cli, root, attacker)) == []  # the forgery works where it was made...
    default = _scan(cli, root, home)  # ...not on a fresh clone elsewhere
    assert _findings(default) == _findings(_scan(cli, root, home, "--no-cache"))
    assert len(_findings(default)) == 1


# -- 12. a cache of valid JSON but the wrong shape is a miss ------------------------------------


@pytest.mark.parametrize("shape", ["[]", "5", '{"x": 5}', '{"x": [1, 2]}', '{"x": {"findings": 5, "errors": []}}',
                                   '{"x": {"findings": [5], "errors": []}}'])
def test_a_cache_of_the_wrong_shape_is_a_miss_and_rewritten(cli, tmp_path, home, shape):
    root = _repo(tmp_path)
    expected = _findings(_scan(cli, root, home))
    [results] = _cache_files(root, "results.json")
    [index] = _cache_files(root, "index.json")
    digest = next(iter(json.load(open(results))))
    for path in (results, index):
        with open(path, "w") as f:
            f.write(shape.replace('"x"', json.dumps(digest) if path == results else json.dumps(str(root / "a.py"))))
    proc = _scan(cli, root, home)
    assert "Traceback" not in proc.stderr
    assert _findings(proc) == expected
    assert isinstance(json.load(open(results))[digest]["findings"], list)


def test_a_result_entry_with_unknown_fields_is_a_miss(cli, tmp_path, home):
    root = _repo(tmp_path)
    expected = _findings(_scan(cli, root, home))
    [results] = _cache_files(root, "results.json")
    data = json.load(open(results))
    for entry in data.values():
        entry["findings"] = [{"no_such_field": 1}]
    with open(results, "w") as f:
        json.dump(data, f)
    proc = _scan(cli, root, home)
    assert "Traceback" not in proc.stderr and _findings(proc) == expected
