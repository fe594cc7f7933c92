"""The 2.14 / 2.15 facts, checked against the real torch releases.

Each check of tests/truth/checks.py runs inside every interpreter given (one per torch
release) whose version its window covers, in a subprocess: this test process never
imports torch. Interpreters come from ADVISOR_TRUTH_PYTHONS, a comma-separated list of
LABEL=PATH (the label is for the test ids; the window uses the torch version the
interpreter reports), e.g.

    ADVISOR_TRUTH_PYTHONS="2.13=.venv/bin/python,2.14.1=~/.cache/advisor-truth/t2141/bin/python"

Without it, the venvs tests/truth/setup_envs.sh makes are used where they exist
($ADVISOR_TRUTH_DIR, default ~/.cache/advisor-truth: t2130, t2141, t2150). With
none, every test skips and says how to get one.
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

from tests.truth.checks import CHECKS, FACT_ITEMS, by_id, expectation, judge, release

RUNNER = Path(__file__).resolve().parent / "runner.py"
DEFAULT_DIR = Path(os.environ.get("ADVISOR_TRUTH_DIR") or Path.home() / ".cache" / "advisor-truth").expanduser()
DEFAULT_ENVS = {"2.13": "t2130", "2.14.1": "t2141", "2.15.0": "t2150"}
TIMEOUT = float(os.environ.get("ADVISOR_TRUTH_TIMEOUT", "900"))
HOW = (
    "no torch interpreter for the truth matrix: run `bash tests/truth/setup_envs.sh` "
    "or set ADVISOR_TRUTH_PYTHONS='2.15.0=/path/to/python,...'"
)


def interpreters() -> dict[str, str]:
    """label -> python path, from ADVISOR_TRUTH_PYTHONS or the default venvs."""
    spec = os.environ.get("ADVISOR_TRUTH_PYTHONS", "").strip()
    if spec:
        out = {}
        for part in spec.split(","):
            label, sep, path = part.strip().partition("=")
            if not sep or not label or not path:
                raise pytest.UsageError(f"ADVISOR_TRUTH_PYTHONS: expected LABEL=PATH, got {part!r}")
            out[label] = str(Path(path).expanduser())
        return out
    found = {}
    for label, name in DEFAULT_ENVS.items():
        py = DEFAULT_DIR / name / "bin" / "python"
        if py.exists():
            found[label] = str(py)
    return found


PYTHONS = interpreters()


@lru_cache(maxsize=None)
def _observe(label: str) -> dict:
    """Run every check once in the interpreter `label`: the runner's JSON, or {"error": why}.

    Cached, failures included, so a broken interpreter costs one run, not one per check.
    """
    python = PYTHONS[label]
    if not Path(python).exists():
        return {"error": f"{label}: interpreter {python} does not exist"}
    payload = json.dumps(
        {"checks": [{"id": c.id, "code": c.code, "isolate": c.isolate} for c in CHECKS], "timeout": 300}
    )
    env = {**os.environ, "PYTHONWARNINGS": "", "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES", "")}
    env.pop("PYTHONPATH", None)  # the runner must see the venv's torch, not ours
    try:
        p = subprocess.run(
            [python, str(RUNNER)], input=payload, capture_output=True, text=True, timeout=TIMEOUT, env=env, cwd="/"
        )
    except subprocess.TimeoutExpired:
        return {"error": f"{label}: runner timed out after {TIMEOUT}s"}
    try:
        out = json.loads(p.stdout)
    except ValueError:
        return {"error": f"{label}: runner failed (rc={p.returncode}):\n{p.stderr[-3000:]}"}
    if "torch_error" in out:
        return {"error": f"{label}: torch does not import in {python}: {out['torch_error']}"}
    return out


def observe(label: str) -> dict:
    out = _observe(label)
    if "error" in out:
        pytest.fail(out["error"])
    return out


def _cases():
    if not PYTHONS:
        yield pytest.param(None, None, marks=pytest.mark.skip(reason=HOW), id="no-interpreter")
        return
    for label in PYTHONS:
        for check in CHECKS:
            yield pytest.param(label, check.id, id=f"{label}:{check.id}")


@pytest.mark.parametrize("label,check_id", list(_cases()))
def test_release_truth(label, check_id):
    obs = observe(label)
    version = obs["torch"]
    check = by_id()[check_id]
    exp = expectation(check, version)
    if exp is None:
        pytest.skip(f"{check_id} has no expectation for torch {version}")
    if check.needs_cuda_build and not obs["cuda_build"]:
        pytest.skip(f"{check_id} reads a CUDA build's files; torch {version} here is a CPU build")
    problems = judge(exp, obs["results"][check_id])
    assert not problems, f"torch {version} ({PYTHONS[label]}), {check.what}:\n" + "\n".join(problems)


@pytest.mark.parametrize("label", list(PYTHONS) or [pytest.param(None, marks=pytest.mark.skip(reason=HOW))])
def test_label_matches_torch(label):
    """A label that looks like a version must be the interpreter's torch release."""
    version = observe(label)["torch"]
    try:
        want = release(label)
    except ValueError:
        return
    assert release(version)[: len(label.split("."))] == want[: len(label.split("."))], (label, version)


def test_every_facts_item_has_a_check():
    items = {c.item for c in CHECKS}
    assert set(FACT_ITEMS) <= items, sorted(set(FACT_ITEMS) - items)
    by_id()  # no duplicate ids


def test_every_check_is_well_formed():
    for c in CHECKS:
        assert c.kind in ("runtime", "source"), c.id
        assert c.expect, c.id
        for v in ("2.13.0", "2.14.1", "2.15.0"):
            expectation(c, v)  # raises on overlapping windows
        if c.kind == "source":
            # a source check reads the wheel's files and never imports torch (no GPU code path runs)
            assert "import torch" not in c.code and ("src(" in c.code or "binary_has(" in c.code), c.id
