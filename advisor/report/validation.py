"""Runtime validation scripts: generate them next to the report, run them, collect results.

Each script is rendered from `templates/validation/<check>.py.j2`, depends only
on torch and the standard library, and prints `PASS|FAIL|SKIP name: detail`
lines. Values from the scanned code (sites, literal shapes) go in as Python
literals via `repr`, never as code.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from typing import Any

from advisor import __version__
from advisor.core.findings import Finding
from advisor.report.templating import environment
from advisor.rule import CHECKS  # the one list of checks; rules are validated against it

DEFAULT_MODELS = [["torchvision.models.resnet18", "torchvision.models.ResNet18_Weights.IMAGENET1K_V1"]]
DEFAULT_SHAPES = [[8, 16], [2, 64]]
DEFAULT_DTYPES = ["float32", "float64"]
MAX_SITES = 50


def _params(check: str, findings: list[Finding]) -> dict[str, Any]:
    mine = [f for f in findings if f.validation == check]
    params: dict[str, Any] = {
        "version": __version__,
        "sites": [[f.path, f.line] for f in mine[:MAX_SITES]],
    }
    if check == "nccl_backend":  # the attributes the scanned code uses on the NCCL backend object
        params["attrs"] = sorted({a for f in mine for a in f.data.get("attrs", [])})
    if check == "linalg_eigh":
        shapes = sorted({tuple(s) for f in mine for s in f.data.get("shapes", [])})
        dtypes = sorted({d for f in mine for d in f.data.get("dtypes", [])})
        params["shapes"] = [list(s) for s in shapes[:6]] or DEFAULT_SHAPES
        params["dtypes"] = dtypes or DEFAULT_DTYPES
    if check == "vision_weights":
        models = sorted({(f.data["builder"], w) for f in mine for w in f.data.get("weights", [])})
        params["models"] = [list(m) for m in models[:MAX_SITES]] or DEFAULT_MODELS
    return params


def render_script(check: str, findings: list[Finding]) -> str:
    return environment().get_template(f"validation/{check}.py.j2").render(**_params(check, findings))


def write_scripts(directory: str, findings: list[Finding], checks: list[str] | None = None) -> list[str]:
    """Write one script per check the findings use (or `checks`), plus run_all.py."""
    wanted = checks if checks is not None else sorted({f.validation for f in findings if f.validation})
    out_dir = os.path.join(directory, "validation")
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for check in wanted:
        if check not in CHECKS:
            raise ValueError(f"no validation script for check {check!r}")
        path = os.path.join(out_dir, f"{check}.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(render_script(check, findings))
        written.append(path)
    scripts = [f"{c}.py" for c in wanted]
    with open(os.path.join(out_dir, "run_all.py"), "w", encoding="utf-8") as f:
        f.write(environment().get_template("validation/run_all.py.j2").render(version=__version__, scripts=scripts))
    return written


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


def probe_torch(python: str | None, timeout: int = 300) -> str:
    """The torch version `python` imports; InterpreterError (with the reason) when it cannot."""
    own = "advisor's own interpreter " if python is None else ""
    python = python or sys.executable
    if os.sep in python and not (os.path.isfile(python) and os.access(python, os.X_OK)):
        raise InterpreterError(f"--python {python}: no such executable file")
    code = "import torch, sys; sys.stdout.write(torch.__version__)"
    try:
        proc = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise InterpreterError(f"{python}: `import torch` did not finish in {timeout} s") from None
    except OSError as e:
        raise InterpreterError(f"--python {python}: cannot run it ({e.strerror or e})") from None
    if proc.returncode != 0 or not proc.stdout.strip():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise InterpreterError(
            f"{own}{python} cannot import torch ({tail[0][:200]}), so no check would run; "
            "pass --python with the interpreter of the environment that has the upgraded torch"
        )
    return proc.stdout.strip()


def run_scripts(directory: str, python: str | None = None, device: str | None = None, timeout: int = 900) -> dict:
    """Run every script under DIR/validation and write DIR/validation-results.json."""
    out_dir = os.path.join(directory, "validation")
    python = python or sys.executable
    scripts = sorted(p for p in os.listdir(out_dir) if p.endswith(".py") and p != "run_all.py")
    checks = []
    torch_version = None
    used_device = None
    with tempfile.TemporaryDirectory(prefix="advisor-validate-") as tmp:
        for script in scripts:
            name = script[:-3]
            out = os.path.join(tmp, name + ".json")
            cmd = [python, os.path.join(out_dir, script), "--json", out]
            if device:
                cmd += ["--device", device]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            except subprocess.TimeoutExpired:
                checks.append({"name": name, "script": f"validation/{script}", "status": "ERROR", "detail": f"timed out after {timeout} s", "results": []})
                continue
            except OSError as e:
                checks.append({"name": name, "script": f"validation/{script}", "status": "ERROR", "detail": f"cannot run {python}: {e}", "results": []})
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
                checks.append({"name": name, "script": f"validation/{script}", "status": "ERROR", "detail": f"exit {proc.returncode}: {tail[0][:300]}", "results": []})
                continue
            torch_version = torch_version or data.get("torch")
            used_device = used_device or data.get("device")
            results = data.get("results", [])
            detail = "; ".join(f"{r['status']} {r['name']}" for r in results)
            checks.append({"name": name, "script": f"validation/{script}", "status": _status(results), "detail": detail, "results": results})
    summary = {"torch": torch_version, "device": used_device, "python": python, "checks": checks}
    with open(os.path.join(directory, "validation-results.json"), "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=2)
    return summary
