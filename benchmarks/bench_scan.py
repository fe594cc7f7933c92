#!/usr/bin/env python3
"""Benchmark advisor on the installed torch package's own sources (no download needed).

Measures, side by side in one run, medians of --repeat runs:
  - the single-process `ast.parse` floor (read + parse every .py file);
  - advisor cold (--no-cache) and warm (unchanged tree, cache primed);
  - one clean file, from process start to exit (goal: <= 0.10 CPU seconds, user+sys);
  - TorchFix 0.7.0 on torch/cuda, torch/backends and torch/optim, next to advisor on the
    same files, when a `torchfix` executable is given or on PATH (it needs no torch);
  - the peak resident memory of the largest advisor process (goal: <= 300 MB).
Prints the figures and the ratios the project's speed goals are stated in.

    python benchmarks/bench_scan.py [--repeat 3] [--torchfix /path/to/torchfix] [--json out.json]
    python benchmarks/bench_scan.py --tree /path/to/Megatron-LM   # any cloned repository
    python benchmarks/bench_scan.py --tree T --cold-only   # the floor and the cold scan, for A/B runs
    python benchmarks/bench_scan.py --clean-only   # python's start and one clean file (CPU seconds), for A/B runs
    python benchmarks/bench_scan.py --tree T --subset-only --torchfix TF   # advisor and TorchFix on the subset alone

A/B of two versions of advisor: run the script from each checkout's root (`python -m advisor` takes the
package from the working directory), interleaved, and compare the cold CPU seconds.

Every figure comes with the load average when it was taken: on a shared machine, only
ratios measured side by side in one run mean much. CPU seconds (user+sys of the process
tree) are printed next to wall seconds for the same reason.
"""

from __future__ import annotations

import argparse
import ast
import glob
import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ADVISOR = [sys.executable, "-m", "advisor"]
# Time what users get: Python caches bytecode normally (some CI images turn that off).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def torch_dir() -> str:
    spec = importlib.util.find_spec("torch")  # located, never imported
    if spec is None or spec.origin is None:
        sys.exit("torch is not installed: pip install torch==2.13.0")
    return os.path.dirname(spec.origin)


CPU: dict[str, list[float]] = {}  # label -> CPU seconds (user+sys) of each timed run


def timed(cmd: list[str], label: str = "", **kw) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV, **kw)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if label:
        CPU.setdefault(label, []).append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def median_of(repeat: int, fn) -> float:
    return statistics.median(fn() for _ in range(repeat))


def ast_floor(tree: str) -> float:
    cpu = time.process_time()
    start = time.perf_counter()
    for path in glob.glob(os.path.join(tree, "**", "*.py"), recursive=True):
        with open(path, "rb") as f:
            data = f.read()
        try:
            ast.parse(data)
        except (SyntaxError, ValueError):
            pass
    CPU.setdefault("ast_floor", []).append(time.process_time() - cpu)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tree", help="tree to scan (default: the installed torch package)")
    ap.add_argument("--torchfix", default=shutil.which("torchfix"), help="TorchFix 0.7.0 executable")
    ap.add_argument("--json", help="also write the figures here")
    ap.add_argument("--cold-only", action="store_true", help="time only the ast floor and the cold scan")
    ap.add_argument("--clean-only", action="store_true", help="time only python's start and the one clean file")
    ap.add_argument("--subset-only", action="store_true", help="time only advisor and TorchFix on the subset")
    args = ap.parse_args()
    if args.clean_only:
        return report_clean(args.repeat)
    tree = args.tree or torch_dir()
    if args.subset_only:
        return report_subset(tree, args.repeat, args.torchfix)
    files = len(glob.glob(os.path.join(tree, "**", "*.py"), recursive=True))
    out: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "tree": tree,
        "files": files,
    }

    out["load_average_start"] = os.getloadavg()
    out["python_start_s"] = median_of(
        max(5, args.repeat), lambda: timed([sys.executable, "-c", "pass"], "python_start")
    )
    out["ast_floor_s"] = median_of(args.repeat, lambda: ast_floor(tree))
    scan = ADVISOR + ["scan", tree, "--format", "json", "-o", os.devnull, "--exit-zero"]
    # The cold runs' report says how many files were scanned: a tree under a virtual environment
    # (the installed torch) is excluded by discovery, and every figure would time an empty scan.
    with tempfile.TemporaryDirectory() as d:
        report = os.path.join(d, "report.json")
        cold = [*ADVISOR, "scan", tree, "--format", "json", "-o", report, "--exit-zero", "--no-cache"]
        out["cold_s"] = median_of(args.repeat, lambda: timed(cold, "cold"))
        with open(report) as f:
            out["files_scanned"] = json.load(f)["summary"]["files"]
    if not out["files_scanned"]:
        sys.exit(
            f"advisor scanned no file under {tree} (excluded by discovery?): copy the tree elsewhere and pass --tree"
        )
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if args.cold_only:
        return report_cold(out, tree, args.json)
    with tempfile.TemporaryDirectory() as cache:
        timed(scan + ["--cache-dir", cache])
        out["warm_s"] = median_of(args.repeat, lambda: timed(scan + ["--cache-dir", cache], "warm"))
    with tempfile.TemporaryDirectory() as d:
        clean = os.path.join(d, "clean.py")
        with open(clean, "w") as f:
            f.write("import torch\n\nx = torch.ones(3)\n")
        out["clean_file_s"] = clean_file(clean, args.repeat)

    time_subset(out, tree, args.repeat, args.torchfix)
    out["cpu_s"] = {k: statistics.median(v) for k, v in CPU.items()}
    out["load_average_end"] = os.getloadavg()

    ratio = lambda a, b: out[a] / out[b]  # noqa: E731
    cpu = out["cpu_s"]
    print(f"{out['files']} files under {tree} ({out['machine']}, {out['date']})")
    print(
        f"  load average                  {' '.join(f'{x:.2f}' for x in out['load_average_start'])} at start, "
        f"{' '.join(f'{x:.2f}' for x in out['load_average_end'])} at end"
    )
    print(f"  python -c pass                {out['python_start_s']:8.2f} s")
    print(f"  ast.parse floor (1 process)   {out['ast_floor_s']:8.2f} s")
    print(
        f"  advisor cold (--no-cache)     {out['cold_s']:8.2f} s   = {ratio('cold_s', 'ast_floor_s'):.2f} x floor   (goal <= 2.0); CPU {cpu['cold']:.2f} s = {cpu['cold'] / cpu['ast_floor']:.2f} x the floor's CPU"
    )
    print(
        f"  advisor warm                  {out['warm_s']:8.2f} s   (goal <= 0.3 s) = {ratio('warm_s', 'python_start_s'):.1f} x python start; CPU {cpu['warm']:.2f} s"
    )
    print(
        f"  one clean file, start to exit CPU {cpu['clean_file']:.3f} s (goal <= 0.10 CPU-s) = "
        f"{cpu['clean_file'] / cpu['python_start']:.1f} x python start's CPU {cpu['python_start']:.3f} s; wall {out['clean_file_s']:.2f} s"
    )
    print(f"  peak memory, largest process  {out['peak_rss_mb']:8.0f} MB  (goal <= 300 MB)")
    print(
        f"  advisor on {' + '.join(os.path.basename(p) for p in out['subset'])} ({out['subset_files']} files) {out['advisor_subset_s']:.2f} s"
    )
    if "torchfix_subset_s" in out:
        print(
            f"  TorchFix 0.7.0 on the same    {out['torchfix_subset_s']:8.2f} s   = {ratio('torchfix_subset_s', 'advisor_subset_s'):.1f} x slower than advisor (goal >= 30 on torch's cuda+backends+optim, >= 20 on apex)"
        )
    else:
        print("  TorchFix not found: pip install torchfix==0.7.0 (in its own venv) and pass --torchfix")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)


def time_subset(out: dict, tree: str, repeat: int, torchfix: str | None) -> None:
    """TorchFix's comparison set: torch's cuda+backends+optim, or with --tree the whole tree; advisor's median of
    `repeat` runs, TorchFix's one run (it takes a minute or more)."""
    subset = [os.path.join(tree, p) for p in ("cuda", "backends", "optim")]
    subset = subset if all(os.path.isdir(p) for p in subset) else [tree]
    out["subset"] = subset
    out["subset_files"] = sum(len(glob.glob(os.path.join(p, "**", "*.py"), recursive=True)) for p in subset)
    out["advisor_subset_s"] = median_of(
        repeat,
        lambda: timed(
            ADVISOR + ["scan", *subset, "--no-cache", "--format", "json", "-o", os.devnull, "--exit-zero"], "subset"
        ),
    )
    if torchfix:
        out["torchfix_subset_s"] = median_of(1, lambda: timed([torchfix, *subset], "torchfix_subset"))


def report_subset(tree: str, repeat: int, torchfix: str | None) -> None:
    out: dict = {"load_average_start": os.getloadavg()}
    time_subset(out, tree, repeat, torchfix)
    cpu = {k: statistics.median(v) for k, v in CPU.items()}
    print(
        f"load average {' '.join(f'{x:.2f}' for x in out['load_average_start'])} at start, "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at end, cwd {os.getcwd()}"
    )
    print(
        f"  advisor on {' + '.join(os.path.basename(p) for p in out['subset'])} ({out['subset_files']} files): "
        f"wall {out['advisor_subset_s']:.2f} s, CPU {cpu['subset']:.2f} s (runs: {', '.join(f'{x:.2f}' for x in CPU['subset'])})"
    )
    if "torchfix_subset_s" in out:
        tf_wall, tf_cpu = out["torchfix_subset_s"], cpu["torchfix_subset"]
        print(
            f"  TorchFix 0.7.0: wall {tf_wall:.2f} s, CPU {tf_cpu:.2f} s = {tf_wall / out['advisor_subset_s']:.1f} x by wall, "
            f"{tf_cpu / cpu['subset']:.1f} x by CPU (goal >= 30)"
        )


def clean_file(path: str, repeat: int) -> float:
    """Median wall seconds of `advisor scan FILE --no-cache` from process start to exit (CPU seconds in CPU):
    at least 11 runs, the CPU clock's ticks being 10 ms."""
    return median_of(max(11, repeat), lambda: timed(ADVISOR + ["scan", path, "--no-cache"], "clean_file"))


def report_clean(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as d:
        clean = os.path.join(d, "clean.py")
        with open(clean, "w") as f:
            f.write("import torch\n\nx = torch.ones(3)\n")
        timed(ADVISOR + ["scan", clean, "--no-cache"])  # bytecode written once, as a user's second run finds it
        start = median_of(max(11, repeat), lambda: timed([sys.executable, "-c", "pass"], "python_start"))
        wall = clean_file(clean, repeat)
    cpu = {k: statistics.median(v) for k, v in CPU.items()}
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, cwd {os.getcwd()}")
    print(f"  python -c pass                CPU {cpu['python_start']:.3f} s, wall {start:.3f} s")
    print(
        f"  one clean file, start to exit CPU {cpu['clean_file']:.3f} s (goal <= 0.10 CPU-s; runs: "
        f"{', '.join(f'{x:.2f}' for x in CPU['clean_file'])}), wall {wall:.3f} s"
    )


def report_cold(out: dict, tree: str, json_path: str | None) -> None:
    out["cpu_s"] = {k: statistics.median(v) for k, v in CPU.items()}
    out["cpu_runs_s"] = CPU
    out["load_average_end"] = os.getloadavg()
    cpu = out["cpu_s"]
    print(f"{out['files']} files under {tree} ({out['machine']}, {out['date']}), cwd {os.getcwd()}")
    print(
        f"  load average {' '.join(f'{x:.2f}' for x in out['load_average_start'])} at start, "
        f"{' '.join(f'{x:.2f}' for x in out['load_average_end'])} at end"
    )
    print(f"  ast.parse floor CPU {cpu['ast_floor']:.2f} s")
    print(
        f"  advisor cold CPU    {cpu['cold']:.2f} s (runs: {', '.join(f'{x:.2f}' for x in CPU['cold'])}), "
        f"wall {out['cold_s']:.2f} s, {out['files_scanned']} files scanned, peak {out['peak_rss_mb']:.0f} MB"
    )
    if json_path:
        with open(json_path, "w") as f:
            json.dump(out, f, indent=2)


if __name__ == "__main__":
    main()
