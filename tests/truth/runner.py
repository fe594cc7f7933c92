"""Run truth-check snippets inside one interpreter and print what happened, as JSON.

This file runs under the interpreter being examined (a venv with some torch release),
not under the advisor's own: it imports nothing from the advisor and only the standard
library at the top. Usage:

    <python> runner.py < checks.json > results.json

stdin is {"checks": [{"id", "code", "isolate"}], "timeout": seconds}. Each snippet is
written to a file (so `inspect.getsource` works for decorated classes) and executed
with `runpy.run_path` under `warnings.simplefilter("always")`. What is recorded per
check: every warning (category MRO names, message), the exception if any (MRO names,
message), the snippet's global `result` (as JSON, or its repr), and, for isolated
checks, stderr, which is where C++ `TORCH_WARN` texts land when they do not reach
Python's warnings.

Checks run in order in this one process unless "isolate" is set: then the snippet gets
a fresh interpreter, for behaviour that happens once per process (a warning at first
import or first access, a C++ warn-once) or that writes to stderr. The isolated ones start
first, several at a time, and run while the others run here: each is a process of its own,
so nothing it observes depends on what runs beside it, and the matrix's wall time is not
the sum of their torch imports.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import runpy
import subprocess
import sys
import tempfile
import traceback
import warnings
from concurrent.futures import ThreadPoolExecutor

_TORCH_DIR = None


def torch_dir() -> str:
    """The installed torch package folder, found without importing torch."""
    global _TORCH_DIR
    if _TORCH_DIR is None:
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            raise ModuleNotFoundError("torch is not installed in this interpreter")
        _TORCH_DIR = list(spec.submodule_search_locations)[0]
    return _TORCH_DIR


def src(relpath: str) -> str:
    """Text of a file of the installed wheel, e.g. src("jit/_script.py"); "" if absent.

    Used for APIs that cannot run on a CPU-only machine: the wheel's own sources are
    read, never imported.
    """
    path = os.path.join(torch_dir(), relpath)
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as f:
        return f.read()


def binary_has(relpath: str, text: str) -> bool:
    """Whether a binary of the wheel (e.g. "lib/libtorch_python.so") contains `text`."""
    path = os.path.join(torch_dir(), relpath)
    if not os.path.exists(path):
        return False
    needle = text.encode()
    with open(path, "rb") as f:
        data = f.read()
    return needle in data


def dist_info_file(name: str) -> str:
    """A file of torch's .dist-info folder (e.g. "entry_points.txt"); "" if absent."""
    parent = os.path.dirname(torch_dir())
    for entry in os.listdir(parent):
        if entry.startswith("torch-") and entry.endswith(".dist-info"):
            path = os.path.join(parent, entry, name)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    return f.read()
    return ""


def gloo_group():
    """A one-rank gloo process group (idempotent), for collective calls on a CPU."""
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
    return dist


HELPERS = {"src": src, "binary_has": binary_has, "dist_info_file": dist_info_file, "gloo_group": gloo_group}


def _mro(cls) -> list[str]:
    return [c.__name__ for c in cls.__mro__ if c is not object]


def _jsonable(value):
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return {"repr": repr(value)}


def run_one(code: str, workdir: str, name: str) -> dict:
    path = os.path.join(workdir, f"{name}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    out: dict = {"warnings": [], "exc": None, "result": None}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            g = runpy.run_path(path, init_globals=dict(HELPERS), run_name=f"truth_{name}")
            out["result"] = _jsonable(g.get("result"))
        except BaseException as e:  # noqa: BLE001 - the exception is the observation
            if isinstance(e, KeyboardInterrupt):
                raise
            out["exc"] = {"mro": _mro(type(e)), "msg": str(e)[:2000], "tb": traceback.format_exc()[-1500:]}
    out["warnings"] = [{"mro": _mro(w.category), "msg": str(w.message)[:2000]} for w in rec]
    return out


def run_isolated(check: dict, timeout: float) -> dict:
    payload = json.dumps({"checks": [{**check, "isolate": False}], "timeout": timeout})
    try:
        p = subprocess.run(
            [sys.executable, os.path.abspath(__file__)], input=payload, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return {
            "warnings": [],
            "exc": {"mro": ["TimeoutExpired"], "msg": f"timed out after {timeout}s"},
            "result": None,
            "stderr": "",
        }
    try:
        res = json.loads(p.stdout)["results"][check["id"]]
    except (ValueError, KeyError):
        return {
            "warnings": [],
            "exc": {"mro": ["RunnerCrashed"], "msg": p.stderr[-2000:]},
            "result": None,
            "stderr": p.stderr,
        }
    res["stderr"] = p.stderr[-4000:]
    return res


def main() -> int:
    req = json.load(sys.stdin)
    timeout = float(req.get("timeout", 300))
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # snippets may print; keep our JSON clean
    header: dict = {"python": sys.version.split()[0]}
    try:
        import torch

        header["torch"] = torch.__version__
        header["cuda_build"] = torch.version.cuda is not None
        header["torch_dir"] = torch_dir()
    except BaseException as e:  # noqa: BLE001
        header["torch_error"] = f"{type(e).__name__}: {e}"
    results = {}
    alone = [check for check in req["checks"] if check.get("isolate")]
    # Threads only wait on the isolated checks' processes; the snippets themselves run in the main thread.
    with ThreadPoolExecutor(max(1, min(len(alone), os.cpu_count() or 1, 8))) as pool:
        started = {check["id"]: pool.submit(run_isolated, check, timeout) for check in alone}
        with tempfile.TemporaryDirectory(prefix="advisor-truth-") as workdir:
            for i, check in enumerate(req["checks"]):
                if not check.get("isolate"):
                    results[check["id"]] = run_one(check["code"], workdir, f"c{i}")
        results.update((key, future.result()) for key, future in started.items())
    results = {check["id"]: results[check["id"]] for check in req["checks"]}  # in the checks' order, as before
    sys.stdout = real_stdout
    json.dump({**header, "results": results}, real_stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
