"""Ctrl-C: one line on stderr, exit 130, no traceback, no worker left behind.

The parent process alone decides what an interrupt means; worker processes ignore SIGINT
(see `advisor.run.workers`). The first SIGINT (or SIGTERM) raises KeyboardInterrupt in the main
thread, so `finally` blocks run (a file being written is left whole). Then `run_cli` stops
every worker pool and leaves with `os._exit`: the interpreter's own exit would wait for the
pools' manager threads, which is where an interrupted run used to hang.

A second signal while that cleanup runs is ignored, since the cleanup is bounded; if the
first one has not ended the run within a few seconds, the next one forces the exit.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    import signal
else:  # the C module `signal` wraps: the same functions and numbers, without building its enums (~3.5M instructions)
    import _signal as signal

EXIT_CODE = 130
FORCE_AFTER = 3.0  # seconds: a later signal forces the exit when the first has not ended the run

_first_at: float | None = None
_announced = False
_owner = os.getpid()  # the process whose interrupts these are (install() sets it)


def interrupted() -> bool:
    return _first_at is not None


def announce(line: str = "advisor: interrupted") -> None:
    """Write the run's one interrupt line to stderr (only the first call writes)."""
    global _announced
    if _announced:
        return
    _announced = True
    try:
        os.write(2, (line.rstrip("\n") + "\n").encode("utf-8", "replace"))
    except OSError:
        pass


def _handler(signum, frame):
    global _first_at
    if os.getpid() != _owner:
        # A worker forked with this handler, before its own set-up replaced it: the
        # parent's stop_all() ends it with SIGTERM, and SIGINT is the parent's business.
        if signum == signal.SIGTERM:
            os._exit(128 + signum)
        return
    if _first_at is None:
        _first_at = time.monotonic()
        raise KeyboardInterrupt
    if time.monotonic() - _first_at >= FORCE_AFTER:
        _force_exit()
    # Otherwise: the run is already stopping; interrupting its cleanup would only print tracebacks.


def _force_exit() -> None:
    from advisor.run import workers

    workers.kill_all()
    announce()
    os._exit(EXIT_CODE)


def install() -> None:
    """Route SIGINT and SIGTERM through `_handler` (main thread only, as `signal` requires)."""
    global _owner
    _owner = os.getpid()
    signal.signal(signal.SIGINT, _handler)
    signal.signal(signal.SIGTERM, _handler)


def exit_on_first_signal() -> None:
    """For `advisor server`: the first SIGINT or SIGTERM ends the process at once. The language-server library
    catches the KeyboardInterrupt that `_handler` raises, so editors and supervisors, which send one SIGTERM and
    wait, saw a server that stayed alive; it has nothing to save (every write it makes is atomic)."""
    global _owner
    _owner = os.getpid()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda signum, frame: leave())


def leave() -> NoReturn:
    from advisor.run import workers

    workers.stop_all()
    announce()
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    # stdout is not flushed: the reader may have stopped reading (a blocked write is often
    # what was interrupted), and a partial listing is no result anyway.
    os._exit(EXIT_CODE)


def leave_if_interrupted() -> None:
    """`leave` where a signal has come: for an exception that is the interrupt in another form. Python wraps a
    KeyboardInterrupt raised in `__set_name__` in a RuntimeError, which a Ctrl-C while a module defines its
    classes (LibCST's, imported mid-run) raises instead."""
    if interrupted():
        leave()


def run_cli(app, **kwargs) -> None:
    """Run the Typer `app`; an interrupt at any point ends it with `leave`."""
    install()
    try:
        app(**kwargs)
    except KeyboardInterrupt:
        leave()
    except SystemExit:
        leave_if_interrupted()  # Typer turns KeyboardInterrupt into a silent Exit(130)
        raise
