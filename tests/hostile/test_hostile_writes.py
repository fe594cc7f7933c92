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
    # Each cache file is signed (issue 41, item 9): an edited entry is a miss even on the machine that
    # wrote it, so whoever can write a cache folder (a shared CI cache) hides nothing either.
    assert len(_findings(_scan(cli, root, attacker))) == 1
    default = _scan(cli, root, home)  # a fresh clone elsewhere
    assert _findings(default) == _findings(_scan(cli, root, home, "--no-cache"))
    assert len(_findings(default)) == 1


# -- 12. a cache of valid JSON but the wrong shape is a miss ------------------------------------


@pytest.mark.parametrize(
    "shape",
    [
        "[]",
        "5",
        '{"x": 5}',
        '{"x": [1, 2]}',
        '{"x": {"findings": 5, "errors": []}}',
        '{"x": {"findings": [5], "errors": []}}',
    ],
)
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


# -- 3. report and output writers: atomic, never through a link --------------------------------


def test_report_files_that_are_links_are_replaced_not_followed(cli, tmp_path, home):
    root = _repo(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (root / "rep" / "validation").mkdir(parents=True)
    for rel in ("report.html", "findings.json", "validation/run_all.py", "validation/stream_capture.py"):
        os.symlink(victim, root / "rep" / rel)
    os.symlink(victim, root / "out.json")
    proc = cli("scan", ".", "--report", "rep", "--output-format", "json", "-o", "out.json", cwd=root, env=home)
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "precious\n"
    for rel in ("report.html", "findings.json", "validation/run_all.py", "validation/stream_capture.py"):
        assert not os.path.islink(root / "rep" / rel)
    assert not os.path.islink(root / "out.json") and len(json.loads((root / "out.json").read_text())["findings"]) == 1


@pytest.mark.parametrize("linked", ["rep", "rep/validation", "rep/rules"])
def test_a_report_folder_that_is_a_link_is_refused(cli, tmp_path, home, linked):
    root = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "rep").mkdir(exist_ok=linked != "rep") if linked != "rep" else None
    os.symlink(outside, root / linked)
    proc = cli("scan", ".", "--report", "rep", cwd=root, env=home)
    assert proc.returncode == 2
    assert "symbolic link" in proc.stderr and "Traceback" not in proc.stderr
    assert os.listdir(outside) == []


def _full_disk_run(args, cwd, env):
    """Run the CLI with writes capped at 2 KiB, as a full disk would cap them (EFBIG instead of ENOSPC)."""
    import resource
    import signal
    import subprocess
    import sys

    def cap():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (2048, 2048))

    return subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env={**os.environ, **env, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=cap,
    )


def test_a_full_disk_keeps_the_previous_outputs(cli, tmp_path, home):
    root = _repo(tmp_path)
    assert (
        cli(
            "scan",
            ".",
            "--no-cache",
            "--report",
            "rep",
            "--output-format",
            "json",
            "-o",
            "out.json",
            cwd=root,
            env=home,
        ).returncode
        == 0
    )
    before = {p: (root / p).read_bytes() for p in ("out.json", "rep/findings.json", "rep/report.html")}
    (root / "b.py").write_text(BAD * 200)  # enough findings that no output fits in 2 KiB
    for args in (("--report", "rep"), ("--output-format", "json", "-o", "out.json")):
        proc = _full_disk_run(("scan", ".", "--no-cache", *args), root, home)
        assert proc.returncode == 2 and "cannot write" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        for p, data in before.items():
            assert (root / p).read_bytes() == data, p
    assert not glob.glob(str(root / "**" / "*.advisor-tmp"), recursive=True)


# -- 4. a report marker anyone could write hides nothing ----------------------------------------


def test_an_empty_report_marker_hides_nothing(cli, tmp_path, home):
    root = _repo(tmp_path)
    (root / "vendor").mkdir()
    (root / "vendor" / ".advisor-report").write_text("")
    (root / "vendor" / "b.py").write_text(BAD)
    for command in ("scan", "fix"):
        args = ["--no-cache", "--output-format", "json"] if command == "scan" else ["--diff", "--unsafe-fixes"]
        proc = cli(command, ".", *args, cwd=root, env=home)
        # `fix --diff` prints the diff alone on stdout, and what is left on stderr
        found = proc.stdout if command == "scan" else proc.stderr
        assert os.path.join("vendor", "b.py") in found, proc.stdout + proc.stderr
        assert "vendor: its .advisor-report was not written by advisor" in proc.stderr


def test_a_report_copied_from_another_machine_is_scanned(cli, tmp_path, home):
    root = _repo(tmp_path)
    attacker = {"XDG_CACHE_HOME": str(tmp_path / "attacker-home")}
    assert cli("scan", ".", "--no-cache", "--report", "rep", cwd=root, env=attacker).returncode == 0
    (root / "rep" / "validation" / "stream_capture.py").write_text(BAD)  # what the forged manifest now hides
    data = json.loads((root / "rep" / ".advisor-report").read_text())
    data["files"]["validation/stream_capture.py"] = __import__("hashlib").sha256(BAD.encode()).hexdigest()
    (root / "rep" / ".advisor-report").write_text(json.dumps(data))
    # Hidden where it was written (the attacker re-signs nothing: their own signature no longer matches either)...
    paths = {f["path"] for f in _findings(_scan(cli, root, home, "--no-cache"))}
    assert os.path.join("rep", "validation", "stream_capture.py") in paths
    # ...and a report written here is skipped, here.
    assert cli("scan", ".", "--no-cache", "--report", "rep", cwd=root, env=home).returncode == 0
    assert {f["path"] for f in _findings(_scan(cli, root, home, "--no-cache"))} == {"a.py"}


# -- 5, 6. validate runs only what advisor wrote, in isolated mode ------------------------------

try:  # not importorskip: the torch-free tests above must run everywhere
    import torch  # noqa: F401

    HAS_TORCH = True
except ImportError:
    HAS_TORCH = False
needs_torch = pytest.mark.skipif(not HAS_TORCH, reason="torch is not installed")


AMP = "import torch\nwith torch.cuda.amp.autocast():\n    pass\n"  # amp_migration: PASSes on the CPU


def _sentinel_code(path):
    return f"open({str(path)!r}, 'w').write('ran')\n"


@needs_torch
def test_validate_runs_only_the_scripts_advisor_wrote(cli, tmp_path, home):
    root = _repo(tmp_path)
    (root / "amp.py").write_text(AMP)  # a check that PASSes on the CPU: validate exits 0 only if one ran
    ran = tmp_path / "ran"
    val = root / "rep" / "validation"
    val.mkdir(parents=True)
    (val / "evil.py").write_text(_sentinel_code(ran / "evil"))  # shipped by the checkout
    (val / "torch.py").write_text(_sentinel_code(ran / "torch") + "raise ImportError('shadowed')\n")
    ran.mkdir()
    assert cli("scan", ".", "--report", "rep", "--exit-zero", cwd=root, env=home).returncode == 0
    assert (val / "evil.py").exists() and (val / "torch.py").exists()  # --report never removes what it did not write
    proc = cli("validate", "rep", cwd=root, env=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "validation/evil.py was not written by advisor; not run" in proc.stderr
    assert "PASS" in proc.stdout and "SKIP torch" not in proc.stdout
    assert os.listdir(ran) == []
    # run_all.py run by hand, without isolated mode: the folder's torch.py is still not imported.
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, str(val / "run_all.py")], cwd=val, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0 and "SKIP torch" not in proc.stdout and "PASS" in proc.stdout, proc.stdout + proc.stderr
    assert os.listdir(ran) == []
    # A script advisor wrote, changed afterwards, is an ERROR, never run.
    (val / "stream_capture.py").write_text(_sentinel_code(ran / "changed"))
    proc = cli("validate", "rep", cwd=root, env=home)
    assert proc.returncode == 1 and "not the script advisor wrote" in proc.stdout
    assert os.listdir(ran) == []


@needs_torch
def test_validate_never_imports_torch_from_the_current_folder(cli, tmp_path, home):
    root = _repo(tmp_path)
    (root / "amp.py").write_text(AMP)
    assert cli("scan", ".", "--report", "rep", "--exit-zero", cwd=root, env=home).returncode == 0
    (root / "torch").mkdir()
    (root / "torch" / "__init__.py").write_text(_sentinel_code(tmp_path / "ran") + "__version__ = '9.9'\n")
    proc = cli("validate", "rep", cwd=root, env=home)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (tmp_path / "ran").exists()
    assert json.loads((root / "rep" / "validation-results.json").read_text())["torch"] != "9.9"


def test_validate_without_a_manifest_runs_nothing(cli, tmp_path, home):
    root = _repo(tmp_path)
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode == 0
    (root / "rep" / ".advisor-report").unlink()
    proc = cli("validate", "rep", cwd=root, env=home)
    assert proc.returncode == 2 and "no manifest" in proc.stderr


def test_a_later_report_removes_only_its_own_stale_files(cli, tmp_path, home):
    import hashlib

    root = _repo(tmp_path)
    (root / "b.py").write_text("import torch\nw, v = torch.linalg.eigh(x.cpu())\n")
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode == 0
    val = root / "rep" / "validation"
    assert (val / "linalg_eigh.py").exists()
    (val / "notes.py").write_text("# mine\n")
    (root / "b.py").unlink()
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode == 0
    assert not (val / "linalg_eigh.py").exists()  # written by the earlier report, no longer needed
    assert (val / "notes.py").read_text() == "# mine\n" and (val / "stream_capture.py").exists()
    # A forged earlier manifest naming other files, with their real hashes, gets none of them deleted.
    manifest = json.loads((root / "rep" / ".advisor-report").read_text())
    manifest["files"].update(
        {
            "../a.py": hashlib.sha256(BAD.encode()).hexdigest(),
            "validation/notes.py": hashlib.sha256(b"# mine\n").hexdigest(),
        }
    )
    (root / "rep" / ".advisor-report").write_text(json.dumps(manifest))
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode in (0, 1)
    assert (val / "notes.py").read_text() == "# mine\n" and (root / "a.py").read_text() == BAD


# -- 7. scanned literals never size the validation workload -------------------------------------


def test_scanned_shapes_are_capped_in_bytes(cli, tmp_path, home):
    import ast

    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_text("import torch\nw, v = torch.linalg.eigh(torch.randn(100000, 4096, 4096).cpu())\n")
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode in (0, 1)
    tree = ast.parse((root / "rep" / "validation" / "linalg_eigh.py").read_text())
    values = {
        n.targets[0].id: ast.literal_eval(n.value)
        for n in tree.body
        if isinstance(n, ast.Assign)
        and isinstance(n.targets[0], ast.Name)
        and n.targets[0].id in ("SHAPES", "MAX_BYTES")
    }
    assert values["MAX_BYTES"] <= 64 << 20
    assert values["SHAPES"] and all(b * n * n * 8 <= values["MAX_BYTES"] for b, n in values["SHAPES"])
    assert any(n > 1000 for _, n in values["SHAPES"])  # shrunk to the cap, not replaced by a toy shape


# -- 15. fix keeps what it does not edit: a CR-only file's last newline, owner, mode, hard links -------

# The fixes below run with --min-torch 2.12, where ADV101's replacement exists (below it there is no fix).
FIXED = "import torch\nx = torch.cuda.current_stream().is_capturing()\n"


@pytest.mark.parametrize("ending", ["\r", "\r\r", "\r# end\r"])
def test_fix_keeps_the_final_cr_of_a_cr_only_file(cli, tmp_path, ending):
    path = tmp_path / "a.py"
    path.write_bytes(BAD.replace("\n", "\r").encode()[:-1] + ending.encode())
    for _ in range(2):  # and stays as it is on a second run
        assert cli("fix", "a.py", "--unsafe-fixes", "--min-torch", "2.12", cwd=tmp_path).returncode == 0
        assert path.read_bytes() == FIXED.replace("\n", "\r").encode()[:-1] + ending.encode()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_fix_as_root_keeps_owner_group_and_mode(cli, tmp_path):
    path = tmp_path / "a.py"
    path.write_text(BAD)
    os.chown(path, 65534, 65534)  # nobody:nogroup
    os.chmod(path, 0o640)
    assert cli("fix", "a.py", "--unsafe-fixes", "--min-torch", "2.12", cwd=tmp_path).returncode == 0
    st = os.stat(path)
    assert path.read_text() == FIXED
    assert (st.st_uid, st.st_gid, st.st_mode & 0o7777) == (65534, 65534, 0o640)


def test_fix_refuses_a_file_with_hard_links(cli, tmp_path):
    path = tmp_path / "a.py"
    path.write_text(BAD)
    os.link(path, tmp_path / "other.py.txt")
    proc = cli("fix", "a.py", "--unsafe-fixes", "--min-torch", "2.12", cwd=tmp_path)
    assert proc.returncode == 1
    assert "2 hard links" in proc.stdout + proc.stderr and "Traceback" not in proc.stderr
    assert path.read_text() == BAD and (tmp_path / "other.py.txt").read_text() == BAD
    assert os.stat(path).st_nlink == 2


def test_clean_removes_a_linked_cache_folder_not_its_target(cli, tmp_path):
    root = _repo(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("precious\n")
    os.symlink(outside, root / ".advisor_cache")
    proc = cli("clean", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert not os.path.lexists(root / ".advisor_cache") and (outside / "keep.txt").read_text() == "precious\n"


def test_audit_chunks_never_cache_below_a_linked_cache_folder(cli, tmp_path, home):
    root = _repo(tmp_path)
    (root / "pyproject.toml").write_text("[project]\nname = 'r'\n")  # the project root, where the cache goes
    for i in range(420):  # more than one chunk (advisor.audit.runner.CHUNK_FILES)
        (root / f"m{i}.py").write_text("import torch\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, root / ".advisor_cache")
    (tmp_path / "repos.txt").write_text(f"{root}\n")
    proc = cli("audit", "repos.txt", "--out", "out", "--jobs", "2", cwd=tmp_path, env=home)
    assert proc.returncode in (0, 1), proc.stderr
    assert os.listdir(outside) == []


def test_a_script_that_cannot_import_torch_does_not_pass(cli, tmp_path, home):
    import subprocess
    import sys

    root = _repo(tmp_path)
    assert cli("scan", ".", "--report", "rep", cwd=root, env=home).returncode == 0
    script = root / "rep" / "validation" / "stream_capture.py"
    (script.parent / "torch.py").write_text("raise ImportError('shadowed')\n")
    # -S: no site-packages, so no torch at all; the folder's torch.py is still not what gets imported.
    proc = subprocess.run([sys.executable, "-S", str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "SKIP torch: torch is not importable" in proc.stdout and "shadowed" not in proc.stdout


def test_a_key_file_that_anyone_could_have_written_is_not_trusted(cli, tmp_path):
    """$XDG_CACHE_HOME inside the checkout: a committed key (git writes 0644) must not let a committed cache in."""
    root = _repo(tmp_path)
    env = {"XDG_CACHE_HOME": str(root / ".cache")}
    assert len(_findings(_scan(cli, root, env))) == 1  # writes the key (0600) and the cache
    key = root / ".cache" / "torch-upgrade-advisor" / "key"
    for path in _cache_files(root, "results.json"):
        forged = {digest: {**entry, "findings": []} for digest, entry in json.load(open(path)).items()}
        with open(path, "w") as f:
            json.dump(forged, f)
    os.chmod(key, 0o644)  # what a checkout of the committed key would look like
    assert len(_findings(_scan(cli, root, env))) == 1
