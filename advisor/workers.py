"""Worker processes for scan and fix: a pool, results in job order, and crash isolation.

LibCST can crash the interpreter on input we failed to guard. When a worker dies,
the job we were waiting for is retried alone in a fresh process, so one bad file
costs only itself, and the jobs after it go on in a new pool.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 12
# Seconds one file may take when retried alone after a worker crash (scan and fix alike).
ISOLATED_TIMEOUT = 300


def start_pool(workers: int, initializer: Callable[[], None] | None = None):
    """A process pool; with an initializer, all workers start (and initialise) right away."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=initializer)
    if initializer is not None:
        for _ in range(workers):
            pool.submit(int)  # processes start on demand: ask for all of them now
    return pool


def run(
    fn: Callable[[Any], Any],
    jobs: Sequence[Any],
    pool: Any,
    new_pool: Callable[[], Any],
    failed: Callable[[Any, str], Any],
    timeout: int,
) -> Iterator[tuple[Any, Any]]:
    """(job, fn(job)) for each job, in order; in `pool`, or here when `pool` is None.

    `failed(job, why)` stands in for the result of a job whose process crashed
    (why "crashed") or ran past `timeout` seconds on its own (why "timeout").
    """
    if pool is None:
        for job in jobs:
            yield job, fn(job)
        return

    finished = False
    try:
        futures = [pool.submit(fn, job) for job in jobs]
        for i, job in enumerate(jobs):
            try:
                result = futures[i].result()
            except BrokenProcessPool:
                result = isolated(fn, job, failed, timeout)
                pool.shutdown(wait=False, cancel_futures=True)
                pool = new_pool()
                futures[i + 1:] = [pool.submit(fn, j) for j in jobs[i + 1:]]
            yield job, result
        finished = True
    finally:
        # Interrupted: drop what is queued. Finished: every future is done, so waiting is free
        # and leaves no manager thread racing the interpreter's exit.
        pool.shutdown(wait=finished, cancel_futures=not finished)


def isolated(fn: Callable[[Any], Any], job: Any, failed: Callable[[Any, str], Any], timeout: int) -> Any:
    """fn(job) alone in a fresh process."""
    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(fn, job).result(timeout=timeout)
    except BrokenProcessPool:
        return failed(job, "crashed")
    except TimeoutError:
        return failed(job, "timeout")
