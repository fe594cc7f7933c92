#!/usr/bin/env python3
"""Benchmark `advisor audit` on 20 generated repositories: local process pool vs a Dask LocalCluster.

Generates the same 20 small git repositories the test suite uses (varied pins,
configs, findings; one broken file, one ROCm repository, one split into
chunks, one missing checkout), then audits them cold (no cache) with each
executor and prints the wall time and the throughput in repositories and files
per second. Needs the audit extra for the Dask half (`pip install '.[audit]'`).

    python benchmarks/bench_audit.py [--workers 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from advisor.audit.runner import read_manifest, run_audit  # noqa: E402
from advisor.audit.executors import DaskExecutor, LocalExecutor  # noqa: E402
from tests.audit.test_audit import make_repos  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        manifest = make_repos(Path(tmp))
        repos = read_manifest(str(manifest))
        options = {"out": None, "target_version": None, "no_cache": True}
        rows = []

        def measure(label, make_executor):
            times, audit = [], None
            for _ in range(args.repeat):
                start = time.perf_counter()
                audit = run_audit(repos, make_executor(), options)
                times.append(time.perf_counter() - start)
            t = statistics.median(times)
            rows.append((label, t, len(repos) / t, audit["run"]["files"] / t))
            return audit

        local = measure(f"local, {args.workers} processes", lambda: LocalExecutor(args.workers))
        try:
            import distributed
        except ImportError:
            print("distributed is not installed: skipping the Dask executor", file=sys.stderr)
        else:
            with (
                distributed.LocalCluster(
                    n_workers=args.workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=40,
                ) as cluster,
                distributed.Client(cluster) as client,
            ):
                dask = measure(f"Dask LocalCluster, {args.workers} workers", lambda: DaskExecutor(client=client))
            same = [{k: v for k, v in r.items() if k != "failed_on"} for r in dask["repositories"]] == [
                {k: v for k, v in r.items() if k != "failed_on"} for r in local["repositories"]
            ]
            print(f"Dask results identical to local: {same}")
        print(f"{len(repos)} manifest entries, {local['run']['files']} files; medians of {args.repeat} cold runs")
        print(f"{'executor':34} {'seconds':>8} {'repos/s':>8} {'files/s':>8}")
        for label, t, rps, fps in rows:
            print(f"{label:34} {t:8.2f} {rps:8.1f} {fps:8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
