"""`advisor audit`: 20 generated repositories, local process pool vs a Dask LocalCluster, faults, the dashboard."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from advisor.audit.runner import AuditError, read_manifest, run_audit, write_dashboard
from advisor.audit.executors import DaskExecutor, LocalExecutor

PINS = ["torch==2.11.0", "torch>=2.10,<2.13", "torch==2.12.1", None]
SNIPPETS = [
    "import torch\nx = torch.cuda.is_current_stream_capturing()\n",  # ADV101 (2.12+)
    "import torch\ny = torch.range(0, 3)\n",  # ADV718, fixable
    "import torch\nstate = torch.load('ckpt.pt')\n",  # ADV716, safe fix
    "import torch\nt = torch.export.export(m, args)\ntorch.export.save(t, 'p.pt2')\n",
    "def helper():\n    return 1\n",  # nothing
    "import torch\nimport torch.nn.functional as F\nz = F.upsample(x, scale_factor=2)\n",
]


def _crash_once(marker, fn, *args):
    """Runs in a worker: the first chunk task to find `marker` without a `crashed` file dies as a killed worker would."""
    if fn.__name__ == "scan_files":
        try:
            fd = os.open(os.path.join(marker, "crashed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            pass
        else:
            os.close(fd)
            os._exit(17)
    return fn(*args)


class CrashOnce:
    """An executor whose tasks kill their worker process once, mid-run (fault injection lives in the tests)."""

    def __init__(self, inner, marker):
        self.inner, self.marker = inner, str(marker)

    def submit(self, fn, *args):
        return self.inner.submit(_crash_once, self.marker, fn, *args)

    def __getattr__(self, name):  # wait_any, is_crash, close, description: the real executor's
        return getattr(self.inner, name)


def make_repos(root, count=20):
    """`count` small git repositories with varied pins, configs and findings; returns the manifest path."""
    lines = []
    for i in range(count):
        repo = root / f"svc-{i:02d}"
        (repo / "src").mkdir(parents=True)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        pin = PINS[i % len(PINS)]
        if pin:
            (repo / "requirements.txt").write_text(pin + "\n")
        for k in range(1 + i % 4):
            (repo / "src" / f"m{k}.py").write_text(SNIPPETS[(i + k) % len(SNIPPETS)])
        if i % 5 == 0:  # a repository's own config is honoured
            (repo / "pyproject.toml").write_text('[tool.advisor]\nignore = ["ADV718"]\n')
        if i == 7:  # a file that does not parse: reported, not dropped
            (repo / "src" / "broken.py").write_text("import torch\ndef f(:\n    torch.range(1, 2)\n")
        if i == 11:  # a ROCm repository
            (repo / "src" / "rocm.py").write_text(
                "import torch\nif torch.version.hip:\n    print(torch.cuda.temperature(0))\n"
            )
        if i == 13:  # bigger than one chunk (chunk_files=4 in the tests)
            for k in range(10):
                (repo / "src" / f"extra{k}.py").write_text(SNIPPETS[k % len(SNIPPETS)])
        lines.append(f"{repo.name} owner=team-{i % 3} tags=t{i % 2}")
    lines.append("does-not-exist owner=team-x")  # a missing checkout is reported
    manifest = root / "repos.txt"
    manifest.write_text("# the org\n" + "\n".join(lines) + "\n")
    return manifest


@pytest.fixture(scope="module")
def org(tmp_path_factory):
    root = tmp_path_factory.mktemp("org")
    return root, make_repos(root)


def _options(out, **extra):
    return {"out": str(out), "target_version": None, "no_cache": True, "chunk_files": 4, **extra}


@pytest.fixture(scope="module")
def local_audit(org, tmp_path_factory):
    root, manifest = org
    out = tmp_path_factory.mktemp("local")
    audit = run_audit(read_manifest(str(manifest)), LocalExecutor(2), _options(out))
    write_dashboard(str(out), audit)
    return out, audit


def _comparable(audit):
    """The results, less `failed_on` (which host or worker saw a failure)."""
    return [{k: v for k, v in r.items() if k != "failed_on"} for r in json.loads(json.dumps(audit["repositories"]))]


def test_every_manifest_line_is_reported(local_audit, org):
    _, audit = local_audit
    names = [r["name"] for r in audit["repositories"]]
    assert names == [f"svc-{i:02d}" for i in range(20)] + ["does-not-exist"]
    missing = audit["repositories"][-1]
    assert (
        missing["status"] == "failed"
        and "not a directory" in missing["error"]
        and "shared filesystem" in missing["error"]
    )
    assert missing["failed_on"].startswith("host ")
    assert audit["totals"]["failed"] == 1


def test_each_repository_is_scanned_as_advisor_scan_would(local_audit, org, cli):
    """Same findings as `advisor scan` run inside the checkout (own config, own pin)."""
    root, _ = org
    _, audit = local_audit
    for r in audit["repositories"][:20]:
        proc = cli("scan", ".", "--format", "json", "--no-cache", cwd=r["path"])
        data = json.loads(proc.stdout)
        assert r["by_rule"] == data["summary"]["by_rule"], r["name"]
        assert r["target"] == data["target_version"] and r["target_source"] == data["target_source"]
        assert len(r["errors"]) == len(data["errors"])
    by_name = {r["name"]: r for r in audit["repositories"]}
    assert by_name["svc-00"]["torch_pin"] == "torch==2.11.0" and by_name["svc-03"]["torch_pin"] is None
    assert "ADV718" not in by_name["svc-05"]["by_rule"]  # its pyproject ignores it
    assert by_name["svc-07"]["errors"] and "syntax error" in by_name["svc-07"]["errors"][0]["message"]
    assert by_name["svc-11"]["rocm"] and "rocm_runtime" in by_name["svc-11"]["validation_checks"]
    assert by_name["svc-13"]["files"] > 4  # scanned in several chunks, merged into one entry


def test_dask_local_cluster_gives_identical_results(local_audit, org, tmp_path):
    distributed = pytest.importorskip("distributed")
    root, manifest = org
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            audit = run_audit(read_manifest(str(manifest)), DaskExecutor(client=client), _options(tmp_path))
    assert _comparable(audit) == _comparable(local_audit[1])
    assert audit["totals"] == local_audit[1]["totals"]
    assert audit["run"]["executor"].startswith("Dask scheduler")


def test_a_worker_that_dies_mid_run_is_retried_on_dask(local_audit, org, tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    root, manifest = org
    marker = tmp_path / "crash"
    marker.mkdir()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            executor = CrashOnce(DaskExecutor(client=client), marker)
            audit = run_audit(read_manifest(str(manifest)), executor, _options(tmp_path / "out"))
    assert (marker / "crashed").exists(), "no worker was killed: the test proves nothing"
    assert _comparable(audit) == _comparable(local_audit[1])


def test_a_worker_that_dies_mid_run_is_retried_locally(local_audit, org, tmp_path, monkeypatch):
    root, manifest = org
    marker = tmp_path / "crash"
    marker.mkdir()
    audit = run_audit(read_manifest(str(manifest)), CrashOnce(LocalExecutor(2), marker), _options(tmp_path / "out"))
    assert (marker / "crashed").exists()
    assert _comparable(audit) == _comparable(local_audit[1])


def test_dashboard_numbers_match_audit_json(local_audit):
    out, _ = local_audit
    audit = json.loads((out / "audit.json").read_text())
    html = (out / "audit.html").read_text()
    md = (out / "audit.md").read_text()
    totals = audit["totals"]
    for key in ("blocked", "failed", "findings", "blocking"):
        assert re.search(rf'id="{key}">{totals[key]}<', html), key
    assert f'id="share">{100 * totals["auto_fixable_share"]:.0f}%<' in html
    rows = re.findall(
        r'<tr data-name="([^"]+)">.*?class="n blocking">(\d+)</td><td class="n findings">(\d+)</td>', html, re.S
    )
    by_name = {r["name"]: r for r in audit["repositories"]}
    assert len(rows) == len(audit["repositories"])
    for name, blocking, findings in rows:
        assert (int(blocking), int(findings)) == (by_name[name]["blocking"], by_name[name]["findings"])
    # Ranked: failed first, then most blocking findings.
    ranked = [name for name, _, _ in rows]
    assert ranked[0] == "does-not-exist"
    keys = [(-by_name[n]["blocking"], -by_name[n]["findings"]) for n in ranked[1:]]
    assert keys == sorted(keys)
    for code, n in totals["by_rule"].items():
        assert re.search(rf'data-rule="{code}">.*?class="n count">{n}<', html), code
        assert f"| {code} |" in md
    assert sum(totals["by_rule"].values()) == totals["findings"] == sum(r["findings"] for r in audit["repositories"])
    # Each repository's own report is linked and exists.
    for link in re.findall(r'href="([^"]+)"', html):
        assert (out / link).exists(), link


def test_cli_audit_and_cache_reuse(org, tmp_path, cli):
    root, manifest = org
    first = cli("audit", str(manifest), "--out", str(tmp_path / "a"), "-j", "2")
    assert first.returncode == 1, first.stderr  # a missing checkout and a broken file
    assert "Audited 21 repositories" in first.stdout and "does-not-exist: error:" in first.stderr
    cli("audit", str(manifest), "--out", str(tmp_path / "b"), "-j", "2")
    a = json.loads((tmp_path / "a" / "audit.json").read_text())
    b = json.loads((tmp_path / "b" / "audit.json").read_text())
    assert a["repositories"] == b["repositories"]
    assert b["run"]["files_from_cache"] > 0 and b["run"]["files_from_cache"] >= a["run"]["files_from_cache"]
    assert os.path.isdir(os.path.join(root, "svc-01", ".advisor_cache"))


def test_manifest_formats_and_errors(tmp_path, cli):
    (tmp_path / "a").mkdir()
    toml = tmp_path / "org.toml"
    toml.write_text(
        '[[repo]]\npath = "a"\nname = "alpha"\nowner = "ml-infra"\ntags = ["serving"]\n[[repo]]\npath = "a"\n'
    )
    repos = read_manifest(str(toml))
    assert [(r.name, r.owner, r.tags) for r in repos] == [("alpha", "ml-infra", ["serving"]), ("a", None, [])]
    toml.write_text('[[repo]]\npath = "a"\nbranch = "main"\n')
    with pytest.raises(AuditError, match="unknown key"):
        read_manifest(str(toml))
    text = tmp_path / "org.txt"
    text.write_text("a colour=blue\n")
    with pytest.raises(AuditError, match="org.txt:1"):
        read_manifest(str(text))
    text.write_text("# nothing\n")
    proc = cli("audit", str(text))
    assert proc.returncode == 2 and "lists no repositories" in proc.stderr
    proc = cli("audit", str(tmp_path / "nope.txt"))
    assert proc.returncode == 2 and "cannot read manifest" in proc.stderr
    text.write_text("a\n")
    proc = cli("audit", str(text), "--executor", "dask")
    assert proc.returncode == 2 and "--scheduler" in proc.stderr
