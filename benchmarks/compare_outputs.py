#!/usr/bin/env python3
"""Run the same `advisor` command lines with two checkouts and report any difference in exit code, stdout,
stderr or the files written: the check that a start-up or CLI change leaves every output byte for byte as it was.

    python benchmarks/compare_outputs.py /path/to/base-checkout [/path/to/new-checkout]   # default: this one

Each checkout's package is taken from its root (PYTHONPATH), with its own `.venv/bin/python` where it has one, else
this interpreter, in a scratch project (two files with findings, a pyproject.toml) and on a copy of examples/demo. A
checkout whose `advisor.rules` (the top-level `rules/` folder, which an editable install maps) would come from
elsewhere is refused: its rules would not be the ones compared.
"""

from __future__ import annotations

import difflib
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STDIN = b"import torch\nx = torch.cuda.amp.GradScaler()\n"


def cases(demo: str, out: str) -> list[list[str]]:
    """Command lines; `{}` in an argument is the checkout's own tag (files each one writes)."""
    scan_demo = [
        [], ["--format", "json"], ["--output-format=full"], ["--format", "sarif"], ["--format", "github"],
        ["--format", "junit"], ["--statistics"], ["-q"], ["--select", "ADV1", "--select", "ADV2"],
        ["--select=ADV1,ADV7"], ["--ignore", "ADV1", "--extend-ignore", "ADV2"], ["--extend-select", "ALL"],
        ["--target-version", "2.12"], ["--min-torch", "2.3"], ["--fail-on", "advice"], ["--exit-zero"],
        ["-j", "1"], ["--jobs=2"], ["--device", "rocm"], ["--target", "torchvision=0.20"],
        ["--exclude", "*.ipynb"], ["--extend-include", "*.pyw"], ["--no-baseline"],
    ]  # fmt: skip
    lines = [["scan", demo, "--no-cache", *flags] for flags in scan_demo]
    lines += [
        ["scan", "a.py"], ["scan"], ["scan", "--quiet", demo], ["scan", demo, "--target-version", "9.9"],
        ["scan", demo, "--fail-on", "bogus"], ["scan", demo, "-j", "x"], ["scan", demo, "-j1"],
        ["scan", demo, "--device", "tpu"], ["scan", "a.py", "--exclude", "a.py", "--force-exclude"],
        ["scan", demo, "--show-settings"], ["scan", demo, "--show-files"], ["scan", "--show-settings"],
        ["scan", demo, "--fix"], ["scan", demo, "--format", "xml"], ["scan", demo, "--baseline", "nothere.json"],
        ["scan", "-", "--stdin-filename", "x.py"], ["scan", "--stdin-filename", "x.py"], ["scan", "-"],
        ["scan", "a.py", "--stdin-filename", "x.py"], ["scan", "-", "a.py"], ["scan", "nothere.py"],
        ["scan", "a.py", "--config", "nothere.toml"], ["scan", "a.py", "--help"], ["scan", "-h"],
        ["scan", "a.py", "--bogus"], ["scan", "a.py", "--select"], ["scan", "a.py", "--", "b.py"],
        ["scan", "a.py", "-qj1"], ["scan", "a.py", "--no-cache=1"], ["scan", "a.py", "--version"],
        ["scan", "a.py", "--select", "--ignore"], ["scan", "a.py", "--cache-dir", f"{out}/cache-{{}}"],
        ["scan", "a.py", f"--cache-dir={out}/cache2-{{}}"], ["scan", "a.py", "--report", f"{out}/rep-{{}}"],
        ["scan", "a.py", "-o", f"{out}/out-{{}}.txt"],
        ["scan", "a.py", "--output-file", f"{out}/out-{{}}.json", "--format", "json"],
        ["scan", "a.py", "--write-baseline", f"{out}/bl-{{}}.json"], ["scan", "a.py", "--select", "ADV999999"],
        ["scan", "a.py", "--output-format", "json", "--output-format", "text"], ["scan", "a.py", "--min-torch", "abc"],
        ["rules"], ["--version"], ["--help"], [], ["scna"], ["explain", "ADV701"],
        ["fix", "a.py", "--diff"], ["fix", "a.py", "--diff", "--unsafe-fixes", "--show-fixes"],
        ["fix", "a.py", "--no-unsafe-fixes", "--diff"], ["fix", "-", "--stdin-filename", "x.py"], ["fix", "--help"],
        ["fix", demo, "--diff", "--statistics", "-j", "1"], ["validate", "nothere"], ["rehearse", "--help"],
        ["audit", "nothere.toml", "--out", f"{out}/audit-{{}}"], ["clean", "--cache-dir", f"{out}/none-{{}}"],
        ["server", "--help"], ["rules", "--format", "json", "--target-version", "2.12"], ["explain", "--all"],
    ]  # fmt: skip
    return lines


def interpreter(root: str) -> str:
    own = os.path.join(root, ".venv", "bin", "python")
    return own if os.path.exists(own) else sys.executable


def check_rules(root: str) -> None:
    """Exit unless `root`'s interpreter and PYTHONPATH import `advisor.rules` from `root`."""
    env = dict(os.environ, PYTHONPATH=root)
    code = "import advisor.rules; print(advisor.rules.__file__)"
    found = subprocess.run([interpreter(root), "-c", code], capture_output=True, text=True, env=env).stdout.strip()
    if not os.path.realpath(found).startswith(os.path.realpath(root) + os.sep):
        sys.exit(
            f"{root}: advisor.rules comes from {found or '(nowhere)'}; give it a venv with its own editable install"
        )


def run(root: str, tag: str, args: list[str], cwd: str, out: str) -> tuple:
    args = [a.replace("{}", tag) for a in args]
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = root
    stdin = STDIN if "-" in args or "--stdin-filename" in args else b""
    cmd = [interpreter(root), "-m", "advisor", *args]
    p = subprocess.run(cmd, cwd=cwd, input=stdin, capture_output=True, env=env)
    written = []
    for a in args:
        path = a.split("=", 1)[-1]
        if path.startswith(out) and os.path.isfile(path):
            with open(path, "rb") as f:
                written.append(f.read().replace(tag.encode(), b"TAG"))
        elif path.startswith(out) and os.path.isdir(path):
            written.append(sorted(os.listdir(path)))
    return p.returncode, p.stdout.replace(tag.encode(), b"TAG"), p.stderr.replace(tag.encode(), b"TAG"), written


def main() -> int:
    base, new = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else ROOT)
    for root in (base, new):
        check_rules(root)
    with tempfile.TemporaryDirectory() as scratch:
        project, demo, out = (os.path.join(scratch, d) for d in ("project", "demo", "out"))
        os.makedirs(project)
        os.makedirs(out)
        shutil.copytree(os.path.join(ROOT, "examples", "demo"), demo)
        files = {
            "a.py": "import torch\nobj = torch.load('m.pt')\nx = torch.cuda.amp.GradScaler()\n",
            "b.py": "import torch\n\nx = torch.ones(3)\n",
            "pyproject.toml": '[project]\nname="p"\ndependencies=["torch>=2.1"]\n[tool.advisor]\nignore=["ADV9"]\n',
        }
        for name, text in files.items():
            with open(os.path.join(project, name), "w") as f:
                f.write(text)
        differ = 0
        lines = cases(demo, out)
        for args in lines:
            got = [run(root, tag, args, project, out) for root, tag in ((base, "qqbase"), (new, "qqnew"))]
            if got[0] == got[1]:
                continue
            differ += 1
            print("DIFF", args)
            for name, a, b in zip(("exit code", "stdout", "stderr", "files"), *got):
                if a != b and isinstance(a, bytes):
                    old, now = (x.decode(errors="replace").splitlines(True) for x in (a, b))
                    sys.stdout.writelines(list(difflib.unified_diff(old, now, name, name, n=0))[:20])
                elif a != b:
                    print(f"  {name}: {a!r:.300} != {b!r:.300}")
    print(f"{differ} of {len(lines)} command lines differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
