"""Runtime validation scripts: generate them next to the report, run them, collect results.

Each script is rendered from `templates/validation/<check>.py.j2`, depends only
on torch and the standard library, and prints `PASS|FAIL|SKIP name: detail`
lines. Values from the scanned code (sites, literal shapes) go in as Python
literals via `repr`, never as code.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from typing import Any

from advisor import __version__
from advisor.core.atomic import real_dir, real_dirs, write_output
from advisor.run.report_marker import file_digest, read_manifest
from advisor.core.findings import Finding
from advisor.report.templating import environment
from advisor.rule import CHECKS  # the one list of checks; rules are validated against it

DEFAULT_MODELS = [["torchvision.models.resnet18", "torchvision.models.ResNet18_Weights.IMAGENET1K_V1"]]
DEFAULT_SHAPES = [[8, 16], [2, 64]]
DEFAULT_DTYPES = ["float32", "float64"]
MAX_SITES = 50
# The most one generated check allocates for its input (the float64 matrices linalg_eigh builds):
# a literal such as torch.randn(100000, 4096, 4096) in the scanned code must not ask for 13 TB.
MAX_CHECK_BYTES = 64 << 20
# Python's isolated mode for every interpreter `validate` starts: no cwd, script folder, PYTHON* variables
# or user site-packages on the path (Python 3.4+; 3.11 adds -P, which -I implies).
ISOLATED = ("-I",)


def _pair(shape: Any) -> bool:
    return isinstance(shape, list) and len(shape) == 2 and all(type(x) is int and x > 0 for x in shape)


def capped_shape(batch: int, n: int) -> tuple[int, int]:
    """(batch, n) for a batch of n x n float64 matrices of at most MAX_CHECK_BYTES: the literal
    shape from the scanned code, shrunk (n first, then batch) where it would ask for more."""
    n = min(n, math.isqrt(MAX_CHECK_BYTES // 8))
    return min(batch, MAX_CHECK_BYTES // (8 * n * n)), n


def _params(check: str, findings: list[Finding]) -> dict[str, Any]:
    mine = [f for f in findings if f.validation == check]
    params: dict[str, Any] = {
        "version": __version__,
        "sites": [[f.path, f.line] for f in mine[:MAX_SITES]],
    }
    if check == "nccl_backend":  # the attributes the scanned code uses on the NCCL backend object
        params["attrs"] = sorted({a for f in mine for a in f.data.get("attrs", [])})
    if check == "linalg_eigh":
        shapes = sorted({capped_shape(*s) for f in mine for s in f.data.get("shapes", []) if _pair(s)})
        dtypes = sorted({d for f in mine for d in f.data.get("dtypes", [])})
        params["shapes"] = [list(s) for s in shapes[:6]] or DEFAULT_SHAPES
        params["dtypes"] = dtypes or DEFAULT_DTYPES
        params["max_bytes"] = MAX_CHECK_BYTES
    if check == "vision_weights":
        models = sorted({(f.data["builder"], w) for f in mine for w in f.data.get("weights", [])})
        params["models"] = [list(m) for m in models[:MAX_SITES]] or DEFAULT_MODELS
    return params


def render_script(check: str, findings: list[Finding]) -> str:
    return environment().get_template(f"validation/{check}.py.j2").render(**_params(check, findings))


def write_scripts(
    directory: str, findings: list[Finding], checks: list[str] | None = None, files: dict[str, str] | None = None
) -> list[str]:
    """Write one script per check the findings use (or `checks`), plus run_all.py; `files` gets {rel: sha256}."""
    wanted = checks if checks is not None else sorted({f.validation for f in findings if f.validation})
    out_dir = real_dir(os.path.join(real_dirs(directory), "validation"))
    files = {} if files is None else files
    written = []
    for check in wanted:
        if check not in CHECKS:
            raise ValueError(f"no validation script for check {check!r}")
        _write(out_dir, f"{check}.py", render_script(check, findings), files)
        written.append(os.path.join(out_dir, f"{check}.py"))
    scripts = [f"{c}.py" for c in wanted]
    _write(
        out_dir,
        "run_all.py",
        environment().get_template("validation/run_all.py.j2").render(version=__version__, scripts=scripts),
        files,
    )
    return written


def _write(out_dir: str, name: str, text: str, files: dict[str, str]) -> None:
    write_output(os.path.join(out_dir, name), text)
    files[f"validation/{name}"] = hashlib.sha256(text.encode("utf-8")).hexdigest()


def runnable_scripts(directory: str) -> tuple[list[str], list[str], list[str]]:
    """(scripts `validate` may run, listed ones changed since, `*.py` files advisor did not write).

    Only what the report's manifest lists, byte for byte as written, is run: a checkout may ship
    `validation/evil.py`, or replace `validation/linalg_eigh.py` with a link.
    """
    found = read_manifest(directory)
    listed = found[0] if found else {}
    ok: list[str] = []
    changed: list[str] = []
    for rel, digest in sorted(listed.items()):
        name = rel[len("validation/") : -len(".py")] if rel.startswith("validation/") and rel.endswith(".py") else None
        if name not in CHECKS:
            continue
        (ok if file_digest(os.path.join(directory, rel)) == digest else changed).append(f"{name}.py")
    try:
        present = os.listdir(os.path.join(directory, "validation"))
    except OSError:
        present = []
    foreign = sorted(p for p in present if p.endswith(".py") and f"validation/{p}" not in listed)
    return ok, changed, foreign


def _status(results: list[dict]) -> str:
    statuses = {r["status"] for r in results}
    if "FAIL" in statuses:
        return "FAIL"
    # A sanity sub-check's PASS (marked `context` by the script) alone is not the check passing.
    if any(r["status"] == "PASS" and not r.get("context") for r in results):
        return "PASS"
    return "SKIP"


class InterpreterError(ValueError):
    """The interpreter cannot run the checks: no such file, or no torch. Nothing was run or written."""


def probe_torch(python: str | None, timeout: int = 300, option: str = "--python", wanted: str = "the upgraded") -> str:
    """The torch version `python` imports; InterpreterError (with the reason, naming `option`) when it cannot."""
    own = "advisor's own interpreter " if python is None else ""
    python = python or sys.executable
    if os.sep in python and not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise InterpreterError(f"{option} {python}: no such executable file")
    code = "import torch, sys; sys.stdout.write(torch.__version__)"
    try:
        proc = subprocess.run([python, *ISOLATED, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InterpreterError(f"{python}: `import torch` did not finish in {timeout} s") from None
    except OSError as e:
        raise InterpreterError(f"{option} {python}: cannot run it ({e.strerror or e})") from None
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        if "-I" in tail[0] and "option" in tail[0].lower():  # Python 2 or < 3.4: no isolated mode
            raise InterpreterError(
                f"{python} has no isolated mode (-I, Python 3.4+), which advisor needs so that "
                "no torch/ or torch.py in the current folder is run; use a newer interpreter"
            )
        raise InterpreterError(
            f"{own}{python} cannot import torch ({tail[0][:200]}), so no check would run; "
            f"pass {option} with the interpreter of the environment that has {wanted} torch"
        )
    return proc.stdout.strip()


def _check(script: str, status: str, detail: str, results: list | None = None) -> dict:
    """One script's entry in validation-results.json."""
    return {
        "name": script[:-3],
        "script": f"validation/{script}",
        "status": status,
        "detail": detail,
        "results": results or [],
    }


def run_scripts(directory: str, python: str | None = None, device: str | None = None, timeout: int = 900) -> dict:
    """Run the scripts advisor wrote under DIR/validation (runnable_scripts) and write DIR/validation-results.json.

    Each runs in isolated mode (`-I`): neither its folder nor the current one is on sys.path, so a
    `torch.py` or `torch/` there is never imported.
    """
    out_dir = os.path.join(directory, "validation")
    python = python or sys.executable
    scripts, changed, foreign = runnable_scripts(directory)
    stale = "not the script advisor wrote (changed, or replaced by a link): not run; write the report again"
    checks = [_check(script, "ERROR", stale) for script in changed]
    torch_version = None
    used_device = None
    with tempfile.TemporaryDirectory(prefix="advisor-validate-") as tmp:
        for script in scripts:
            name = script[:-3]
            out = os.path.join(tmp, name + ".json")
            cmd = [python, *ISOLATED, os.path.join(out_dir, script), "--json", out]
            if device:
                cmd += ["--device", device]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                checks.append(_check(script, "ERROR", f"timed out after {timeout} s"))
                continue
            except OSError as e:
                checks.append(_check(script, "ERROR", f"cannot run {python}: {e}"))
                continue
            data = None
            if os.path.exists(out):
                try:
                    with open(out, encoding="utf-8") as f:
                        data = json.load(f)
                except ValueError:
                    data = None
            if data is None or proc.returncode not in (0, 1):
                tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
                checks.append(_check(script, "ERROR", f"exit {proc.returncode}: {tail[0][:300]}"))
                continue
            torch_version = torch_version or data.get("torch")
            used_device = used_device or data.get("device")
            results = data.get("results", [])
            detail = "; ".join(f"{r['status']} {r['name']}" for r in results)
            checks.append(_check(script, _status(results), detail, results))
    summary = {"torch": torch_version, "device": used_device, "python": python, "checks": checks, "not_run": foreign}
    write_output(os.path.join(directory, "validation-results.json"), json.dumps(summary, indent=2))
    return summary
