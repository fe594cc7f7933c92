#!/usr/bin/env python3
"""Paired cold JSON scans of two checkouts, alternating, for A/B runs on a noisy machine.

    python benchmarks/ab_cold.py TREE RUNS CHECKOUT_A CHECKOUT_B [advisor scan flags...]

Each run is `python -m advisor scan TREE --format json -o OUT --exit-zero --no-cache` from a checkout's root (so
`python -m advisor` takes that checkout's package), with this interpreter; the order of the pair alternates from
run to run. Prints each run's CPU seconds (user+sys of the process tree) and wall seconds, then the medians, and
whether the two checkouts' last JSON reports are identical. Bytecode is written as users get it.
"""

from __future__ import annotations

import filecmp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    tree, runs, checkouts, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3:5], sys.argv[5:]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = tempfile.mkdtemp(prefix="ab_cold_")
    cpu: dict[str, list[float]] = {c: [] for c in checkouts}
    wall: dict[str, list[float]] = {c: [] for c in checkouts}
    for i in range(runs):
        for c in checkouts if i % 2 == 0 else checkouts[::-1]:
            report = os.path.join(out, f"{checkouts.index(c)}.json")
            cmd = [sys.executable, "-m", "advisor", "scan", tree, "--format", "json", "-o", report, "--exit-zero"]
            before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
            subprocess.run([*cmd, "--no-cache", *extra], cwd=c, env=env, stderr=subprocess.DEVNULL, check=False)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[c].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            wall[c].append(time.time() - start)
            print(f"{c}: CPU {cpu[c][-1]:.2f} s, wall {wall[c][-1]:.2f} s, load {os.getloadavg()[0]:.2f}", flush=True)
    for c in checkouts:
        print(f"{c}: median CPU {statistics.median(cpu[c]):.2f} s, wall {statistics.median(wall[c]):.2f} s")
    same = filecmp.cmp(os.path.join(out, "0.json"), os.path.join(out, "1.json"), shallow=False)
    print("JSON reports identical" if same else "JSON reports DIFFER")


if __name__ == "__main__":
    main()
