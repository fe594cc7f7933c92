"""A job that runs past the timeout in a pool is reported as timed out; the run goes on (advisor.run.workers.run)."""

from __future__ import annotations

import time

from advisor.run import workers


def _job(n: int) -> int:
    if n == 2:
        time.sleep(60)  # far past the test's timeout: only the timeout ends it
    return n * 10


def _failed(n: int, why: str) -> str:
    return f"{n} {why}"


def test_a_job_past_the_timeout_is_reported_and_the_others_are_not_lost():
    pools = []

    def new_pool():
        pools.append(workers.start_pool(2))
        return pools[-1]

    start = time.monotonic()
    got = list(workers.run(_job, [0, 1, 2, 3, 4, 5], new_pool(), new_pool, _failed, timeout=2))
    assert got == [(0, 0), (1, 10), (2, "2 timeout"), (3, 30), (4, 40), (5, 50)]
    assert time.monotonic() - start < 30  # the sleeping worker was ended, not waited for
    assert len(pools) == 2  # the pool that held it went; the rest ran in a new one


def test_a_job_alone_past_the_timeout_is_reported():
    assert workers.isolated(_job, 2, _failed, 1) == "2 timeout"
