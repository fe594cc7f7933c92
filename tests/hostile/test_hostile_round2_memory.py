"""A hostile pull request, round two (issue 41), item 8: memory before the size cap.

A 1.9 MB one-line file (under the 2 MB parse cap) took 4.2 GB in `scan` and `fix`; a 10 MB file cost 1.85 GB
(Python's own parse) before it was refused; the language server peaked at 4.1 GB, and called a 20 MB flat
buffer "too deeply nested". Now a file over the cap is refused by its size before any parse, with that reason,
and a large file is analysed and fixed (editors and stdin too) in a process whose address space is capped
(`RLIMIT_AS`, ADVISOR_MAX_PARSE_MEMORY_MB): past the cap it loses that file, never the machine.
The figures (peak memory of whole runs) are measured by hand, not here: see docs/security.md.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

import pytest

import advisor.analysis.analyse as analyse
from advisor.core.lazy import cst
from advisor.core.settings import settings_at
from advisor.analysis.registry import select_rules
from advisor.run.project import Project

resource = pytest.importorskip("resource")
FLAT = b"import torch\nx = [" + b"torch.cuda.memory_cached()," * (3 * 2**20 // 27) + b"]\n"  # 3 MB, one line


def _no_parse(*_args, **_kwargs):
    raise AssertionError("a file over the size cap was parsed before it was refused")


def test_a_file_over_the_cap_is_refused_by_size_before_any_parse(monkeypatch, tmp_path):
    monkeypatch.setattr(analyse, "guard_tree", _no_parse)
    monkeypatch.setattr(analyse, "decode", _no_parse)
    result, _ = analyse.analyse_source(FLAT, "flat.py", select_rules(), settings_at("2.15"))
    assert [e.message for e in result.errors] == [
        "file is 3.0 MB, over the 2 MB advisor parses (raise ADVISOR_MAX_FILE_MB to analyse it)"
    ]
    # The editor's door: the true reason, not "too deeply nested" (the child is forked: the patch holds there).
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    project = Project.for_editor(str(tmp_path))
    found = project.analyse_bytes(str(tmp_path / "flat.py"), FLAT, use="editor")
    assert [e.message for e in found.errors] == [
        "file is 3.0 MB, over the 2 MB advisor parses (raise ADVISOR_MAX_FILE_MB to analyse it)"
    ]


def _address_space(_job) -> int:
    return resource.getrlimit(resource.RLIMIT_AS)[0]


def test_every_worker_runs_under_the_memory_cap(monkeypatch):
    from advisor.run.workers import isolated, memory_cap

    monkeypatch.setenv("ADVISOR_MAX_PARSE_MEMORY_MB", "800")
    assert memory_cap() == 800 * 2**20
    limit = isolated(_address_space, None, lambda *_: None, 60)
    assert limit != resource.RLIM_INFINITY and limit <= max(memory_cap(), 4 * 2**30)


ONE_LINE = b"import torch\n" + b"x=torch.cuda.memory_cached();" * (400 * 1024 // 29) + b"\n"  # 0.4 MB, one line


@pytest.fixture
def tight(monkeypatch, tmp_path):
    """A child capped at what it maps plus the 64 MB headroom (the cap asked is lower): a 0.4 MB one-line file
    needs several hundred MB, so its parse runs out at once."""
    monkeypatch.setenv("ADVISOR_MAX_PARSE_MEMORY_MB", "1")
    monkeypatch.setenv("ADVISOR_ISOLATE_MIN_BYTES", "100000")
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'p'\ndependencies = ['torch>=2.0']\n")
    (tmp_path / "big.py").write_bytes(ONE_LINE)
    (tmp_path / "small.py").write_text("import torch\ny = torch.cuda.memory_cached()\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _in_a_fresh_interpreter(check, *args) -> None:
    """Run `check` in a new interpreter (the environment and folder are this one's). This process's heap holds
    what earlier tests freed but kept mapped (a large file sliced, say): a child forked from it may parse within
    that memory, whatever its cap, so the outcome would depend on which tests ran before."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
        pool.submit(check, *args).result()


MEMORY = "of memory advisor gives one file"


def _scan_and_fix() -> None:
    from advisor.fix.fixrun import fix_project

    cst.parse_module  # noqa: B018  (LibCST loaded before the fork, as in a real run's parent)
    project = Project.load(["."], no_cache=True, jobs=1)
    result = project.scan()
    assert [e.path for e in result.errors] == ["big.py"] and MEMORY in result.errors[0].message
    assert [f.path for f in result.findings] == ["small.py"]  # the run goes on
    run = fix_project(project, diff=True)
    assert [p for p, _ in run.errors] == ["big.py"] and MEMORY in run.errors[0][1] and "not fixed" in run.errors[0][1]
    assert run.changed == ["small.py"]


def test_scan_and_fix_analyse_a_large_file_in_a_capped_child(tight):
    _in_a_fresh_interpreter(_scan_and_fix)


def _editor_buffer(root: str) -> None:
    cst.parse_module  # noqa: B018
    big = os.path.join(root, "big.py")
    project = Project.for_editor(root)
    found = project.analyse_bytes(big, ONE_LINE, use="editor")
    assert len(found.errors) == 1 and MEMORY in found.errors[0].message
    outcome = project.fix_bytes(big, ONE_LINE)
    assert outcome.fixed == ONE_LINE and MEMORY in outcome.error
    assert project.fix_bytes(big, ONE_LINE, at=["ADV713", 1, 2]) is None


def test_an_editors_buffer_is_analysed_and_fixed_in_a_capped_child(tight):
    _in_a_fresh_interpreter(_editor_buffer, str(tight))
