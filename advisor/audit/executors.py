"""Where `advisor audit` runs its tasks: a process pool here, or a Dask cluster.

Both offer the same three calls to `advisor.audit.runner.run_audit`: `submit(fn, *args)`,
`wait_any(futures)` and `is_crash(exc)` (was this failure a dead worker, worth a retry?).
"""

from __future__ import annotations

import os
from concurrent.futures import FIRST_COMPLETED, wait
from concurrent.futures.process import BrokenProcessPool

from advisor.run.workers import start_pool

RETRIES = 2  # per task, on top of Dask's own rescheduling when a worker dies


class AuditError(ValueError):
    pass


class LocalExecutor:
    """A process pool on this machine; a pool broken by a dead worker is replaced and its tasks resubmitted."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1
        self._pool = None
        self.description = f"local process pool ({self.workers} workers)"

    def _get_pool(self):
        if self._pool is None:
            self._pool = start_pool(self.workers)  # workers ignore Ctrl-C; advisor.interrupt stops them
        return self._pool

    def submit(self, fn, *args):
        try:
            return self._get_pool().submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):  # a dead worker broke it: stopped and replaced, once
            self.close()
            return self._get_pool().submit(fn, *args)

    def wait_any(self, futures):
        done, _ = wait(futures, return_when=FIRST_COMPLETED)
        return done

    def is_crash(self, exc: BaseException) -> bool:
        # Every task of a broken pool fails with it and comes here; the pool is replaced by the first
        # resubmission (`submit`), not once per task: each replaced pool used to stay alive, workers and all.
        return isinstance(exc, BrokenProcessPool)

    def close(self) -> None:
        from advisor.run.workers import stop

        if self._pool is not None:
            stop(self._pool)
            self._pool = None


class DaskExecutor:
    """A `distributed.Client`: its scheduler retries tasks and reschedules those of a dead worker."""

    def __init__(self, scheduler: str | None = None, client=None) -> None:
        try:
            from distributed import Client
        except ImportError:
            raise AuditError(
                "--executor dask needs the audit extra: pip install 'torch-upgrade-advisor[audit]'"
            ) from None
        if client is None:
            if not scheduler:
                raise AuditError("--executor dask needs --scheduler tcp://HOST:PORT")
            try:
                client = Client(scheduler, timeout="20s")
            except (OSError, TimeoutError) as e:
                raise AuditError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
            self._own = True
        else:
            self._own = False
        self.client = client
        self.description = f"Dask scheduler {client.scheduler.address}"
        self.dashboard = client.dashboard_link

    def submit(self, fn, *args):
        return self.client.submit(fn, *args, pure=False, retries=RETRIES)

    def wait_any(self, futures):
        from distributed import wait

        done, _ = wait(list(futures), return_when="FIRST_COMPLETED")
        return done

    def is_crash(self, exc: BaseException) -> bool:
        return False  # Dask already rescheduled and retried; what reaches us is final

    def close(self) -> None:
        if self._own:
            self.client.close()
