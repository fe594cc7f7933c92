"""Without --python: an isolated environment with the target torch, the project and pytest, kept in the cache.

`uv` where it is on PATH (`uv venv` + `uv pip install`), else `python -m venv` + pip. The environment is
keyed by the target, the base interpreter and the project's dependency files, so an unchanged project
reuses it; one whose creation failed or was interrupted is removed, never reused half-made.
Package indexes are the installer's own settings (PIP_INDEX_URL, UV_INDEX_URL, pip.conf, uv.toml).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from typing import Callable, Sequence

from advisor.core.machine_key import key_path, sign
from advisor.rehearse.runner import RehearseError

READY = "advisor-env.json"  # written last: an environment without it is unfinished
DEPENDENCY_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "requirements-dev.txt")
COMPANIONS = ("torchvision", "torchaudio")

Installer = Callable[[Sequence[str]], int]


def _run(argv: Sequence[str]) -> int:
    """Run one installer step, its output on advisor's stderr (stdout stays for the results)."""
    return subprocess.run(list(argv), stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno(), check=False).returncode


def interpreter(env_dir: str) -> str:
    return os.path.join(env_dir, "Scripts", "python.exe") if os.name == "nt" else os.path.join(env_dir, "bin", "python")


def _dependency_text(root: str) -> str:
    texts = []
    for name in DEPENDENCY_FILES:
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                texts.append(f"{name}\0{f.read()}")
        except OSError:
            continue
    return "\0".join(texts)


def requirements(root: str, target: str, companions: dict[str, str]) -> list[str]:
    """What goes in: the target torch, the companions the project names (at the matching release), pytest, the project."""
    deps = _dependency_text(root)
    specs = [f"torch=={target}.*"]
    specs += [f"{name}=={companions[name]}.*" for name in COMPANIONS if name in deps and name in companions]
    specs.append("pytest")
    if os.path.isfile(os.path.join(root, "pyproject.toml")) or os.path.isfile(os.path.join(root, "setup.py")):
        specs += ["-e", root]  # editable: the tests' frames are the project's own files
    return specs


def _key(root: str, target: str, companions: dict[str, str], base: str) -> str:
    """The environment's folder name: an HMAC under this machine's key, as the scan cache's, so an
    environment committed into the project's `.advisor_cache/` is never taken for one advisor made."""
    parts = (os.path.abspath(root), target, json.dumps(companions, sort_keys=True), base, _dependency_text(root))
    signed = sign("\0".join(parts).encode("utf-8", "surrogateescape"))
    if signed is None:
        raise RehearseError(
            f"no machine key at {key_path()} to name a cached environment safely; pass --python with an "
            "interpreter that has the target torch"
        )
    return signed[:16]


def _steps(env_dir: str, base: str, specs: list[str], uv: str | None) -> list[list[str]]:
    if uv:
        return [
            [uv, "venv", "--python", base, env_dir],
            [uv, "pip", "install", "--python", interpreter(env_dir), *specs],
        ]
    return [[base, "-m", "venv", env_dir], [interpreter(env_dir), "-m", "pip", "install", *specs]]


def ensure(
    root: str,
    cache: str,
    target: str,
    companions: dict[str, str],
    say: Callable[[str], None],
    base: str | None = None,
    installer: Installer = _run,
    uv: str | None = None,
) -> str:
    """The interpreter of the cached environment for `root` and `target`, made first if needed."""
    base = base or sys.executable
    uv = uv if uv is not None else (shutil.which("uv") or "")
    env_dir = os.path.join(cache, "rehearse-envs", _key(root, target, companions, base))
    specs = requirements(root, target, companions)
    ready = os.path.join(env_dir, READY)
    if os.path.isfile(ready):
        say(f"advisor: reusing the environment {env_dir} ({' '.join(specs)})")
        return interpreter(env_dir)
    shutil.rmtree(env_dir, ignore_errors=True)  # an unfinished one from an earlier, interrupted run
    say(f"advisor: creating an environment in {env_dir} with {'uv' if uv else 'venv and pip'}: {' '.join(specs)}")
    try:
        for step in _steps(env_dir, base, specs, uv):
            code = installer(step)
            if code != 0:
                raise RehearseError(f"could not create the environment: `{' '.join(step)}` exited {code}")
        with open(ready, "w", encoding="utf-8") as f:
            json.dump({"installed": specs, "target": target, "base": base}, f)
    except BaseException:  # failed or interrupted: nothing half-made stays behind
        shutil.rmtree(env_dir, ignore_errors=True)
        raise
    say(f"advisor: installed {' '.join(specs)} into {env_dir}")
    return interpreter(env_dir)
