"""Worker processes for scan and fix: a pool, results in job order, and crash isolation.

LibCST can crash the interpreter on input we failed to guard. When a worker dies,
the job we were waiting for is retried alone in a fresh process, so one bad file
costs only itself, and the jobs after it go on in a new pool.

Workers ignore SIGINT: a Ctrl-C in a terminal reaches the whole process group, and only
the parent decides what it means (`advisor.interrupt`). On an interrupt the parent stops
its pools itself (`stop_all`): it never waits for a worker to finish a file.

Every worker's memory is capped (`RLIMIT_AS`, `ADVISOR_MAX_PARSE_MEMORY_MB`, default 800 MiB): LibCST
costs about 1 GB per MB of source, and twice that on one very long line, so a hostile pull request's
1.9 MB file took 4.2 GB. A worker over its cap loses that file ("needs more memory than ...") and the run
goes on; two such files no longer exhaust a 4 GB CI container.

Workers also die with their parent. A SIGKILL (an OOM kill, `timeout -s KILL`) gives the parent
no chance to stop them, and a worker left alive holds the caller's stdout and stderr open, so
`advisor ... | tee log` never ends. On Linux each worker asks for SIGKILL when its parent dies
(`prctl(PR_SET_PDEATHSIG)`: pools are started from the main thread, the thread that signal is
tied to); elsewhere a daemon thread watches `os.getppid()` (`tests/hostile/test_hostile_inputs.py`).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import time
from typing import Any, Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

# Not the built-in TimeoutError before Python 3.11: `result(timeout=...)` raises this one.
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool

# Below this many files, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 12
# Seconds one file may take when retried alone after a worker crash (scan and fix alike).
ISOLATED_TIMEOUT = 300
STOP_GRACE = 1.0  # seconds a terminated worker gets before it is killed

_live: list = []  # pools started and not yet shut down, for stop_all()
# Blocked while workers are forked: a Ctrl-C for the parent, or stop()'s SIGTERM, waits
# until the worker has set its own handlers (it inherits the parent's until then).
_MASKED = {signal.SIGINT, signal.SIGTERM}
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
MEMORY_MB = 800  # a worker's address space, in MiB (ADVISOR_MAX_PARSE_MEMORY_MB; 0: no cap)
_HEADROOM = 64 * 2**20  # above what a worker maps when capped, whatever the cap says
PARENT_POLL = 0.5  # seconds between two looks at os.getppid() where prctl is absent


def _die_with_parent_prctl() -> bool:
    """Linux: the kernel sends this process SIGKILL when its parent dies. False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL)
    os._exit(1)  # orphaned (re-parented to init or a subreaper): nobody reads our results


def die_with_parent(parent: int) -> None:
    """End this worker when `parent` (the pid that started it) dies, even by SIGKILL."""
    if not _die_with_parent_prctl():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="advisor-parent-watch").start()
    if os.getppid() != parent:  # the parent died before the request above was in place
        os._exit(1)


def memory_cap() -> int:
    """The bytes of address space a worker may use (0: no cap)."""
    try:
        mb = float(os.environ.get("ADVISOR_MAX_PARSE_MEMORY_MB", MEMORY_MB))
    except ValueError:
        mb = MEMORY_MB
    return max(0, int(mb * 2**20))


def limit_memory() -> None:
    """Cap this process's address space: past it an allocation fails (MemoryError, or the parser aborts)."""
    cap = memory_cap()
    try:
        import resource  # not on Windows
    except ImportError:
        return
    if not cap or not hasattr(resource, "RLIMIT_AS"):
        return
    try:  # never below what the process maps already (a fork of a big parent) and a little more: it must answer
        with open("/proc/self/statm", "rb") as f:
            cap = max(cap, int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE") + _HEADROOM)
    except (OSError, ValueError, IndexError):
        pass
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ValueError, OSError):
        pass  # below what the process already uses: it goes on uncapped rather than not at all


def _init_worker(initializer: Callable[[], None] | None, parent: int | None = None) -> None:
    die_with_parent(os.getppid() if parent is None else parent)
    limit_memory()
    # SIGINT and SIGTERM were blocked when this process was forked: none arrives before this.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's handler came along with fork
    if hasattr(signal, "pthread_sigmask"):  # not on Windows
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _MASKED)
    if initializer is not None:
        initializer()
    _quiet()  # after the initializer: if it fails, its traceback is the only clue


def start_pool(workers: int, initializer: Callable[[], None] | None = None):
    """A process pool whose workers all start (and initialise) right away, and ignore SIGINT."""
    # Blocked while the workers are forked (they inherit the mask until _init_worker); a
    # Ctrl-C meanwhile stays pending here, and arrives once the pool is known to stop_all().
    masking = hasattr(signal, "pthread_sigmask")  # not on Windows
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _MASKED) if masking else None
    try:
        # Under forkserver the worker's parent is the fork server (which ends with us), not this process.
        import multiprocessing

        forked_here = multiprocessing.get_context().get_start_method() != "forkserver"
        init = functools.partial(_init_worker, initializer, os.getpid() if forked_here else None)
        pool = ProcessPoolExecutor(max_workers=workers, initializer=init)
        _live.append(pool)
        for _ in range(workers):
            pool.submit(int)  # processes start on demand: ask for all of them now
    finally:
        if old is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return pool


def _processes(pool) -> list:
    return list((getattr(pool, "_processes", None) or {}).values())


def stop(pool) -> None:
    """End `pool` now: queued jobs are dropped, running ones are terminated, then killed."""
    processes = _processes(pool)
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        try:
            p.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    deadline = time.monotonic() + STOP_GRACE
    for p in processes:
        try:
            p.join(max(0.0, deadline - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(STOP_GRACE)
        except (OSError, ValueError, AssertionError):
            pass
    if manager is not None:
        # With its workers gone it ends at once; joined here, it never outlives the interpreter.
        manager.join(STOP_GRACE)
    if pool in _live:
        _live.remove(pool)


def stop_all() -> None:
    for pool in list(_live):
        stop(pool)


def kill_all() -> None:
    """SIGKILL every worker; safe in a signal handler that interrupted stop_all()."""
    for pool in list(_live):
        for p in _processes(pool):
            try:
                os.kill(p.pid, signal.SIGKILL)
            except (OSError, TypeError):
                pass


def _shutdown(pool, wait: bool) -> None:
    pool.shutdown(wait=wait, cancel_futures=not wait)
    if pool in _live:
        _live.remove(pool)


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
    (why "crashed") or ran past `timeout` seconds (why "timeout"). A job is waited for once every job before it
    is done, so it is running by then: its wait is at most its run. Past `timeout`, the pool's workers end (the
    jobs the others were running are run again in a new pool), so one pathological file never stops a run.
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
                result = futures[i].result(timeout=timeout)
            except BrokenProcessPool:
                result = isolated(fn, job, failed, timeout)
                _shutdown(pool, wait=False)
                pool = new_pool()
                futures[i + 1 :] = [pool.submit(fn, j) for j in jobs[i + 1 :]]
            except FutureTimeout:
                result = failed(job, "timeout")
                stop(pool)
                pool = new_pool()
                futures[i + 1 :] = [pool.submit(fn, j) for j in jobs[i + 1 :]]
            yield job, result
        finished = True
    finally:
        # Finished: every future is done, so waiting is free and leaves no manager thread
        # racing the interpreter's exit. Interrupted: end the workers, never wait for them.
        if finished:
            _shutdown(pool, wait=True)
        else:
            stop(pool)


def _quiet() -> None:
    """A worker's stderr goes nowhere: a parser out of memory aborts with a Rust backtrace there, and the file's
    error says it instead (results, exceptions included, come back to the parent as data)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)


def isolated(fn: Callable[[Any], Any], job: Any, failed: Callable[[Any, str], Any], timeout: int) -> Any:
    """fn(job) alone in a fresh process (its memory capped, as every worker's)."""
    pool = start_pool(1)
    finished = False
    try:
        result = pool.submit(fn, job).result(timeout=timeout)
        finished = True
        return result
    except (BrokenProcessPool, MemoryError):  # MemoryError: raised where `fn` does not catch it, sent back
        finished = True
        return failed(job, "crashed")
    except FutureTimeout:
        return failed(job, "timeout")
    finally:
        if finished:
            _shutdown(pool, wait=True)
        else:
            stop(pool)  # stuck or interrupted: nothing in it is worth waiting for
