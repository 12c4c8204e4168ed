"""Forked worker processes that never outlive the process that started them.

Workers are forked so that they inherit what their parent has loaded (scorers) instead of
loading it again. They must never outlive that parent: a ``kill -9`` of ``hyoka pfgen
score`` gives the executor no chance to stop them, and orphaned workers (hundreds of MB
each) would run on forever. So every worker asks the kernel to kill it when its parent dies
(Linux's ``PR_SET_PDEATHSIG``) and, where that is not available or the parent died before
it asked, a watcher thread ends it as soon as its parent is gone.

This module knows nothing of pfgen: the benchmark builds its scorers in these workers and
``_measure`` measures answers in them.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # multiprocessing and ctypes load when a pool starts: scoring one run
    # with the kernel starts none, and they cost it 6 ms to import
    from concurrent.futures import ProcessPoolExecutor

#: How often a worker's watcher thread looks for its parent (seconds).
PARENT_POLL_S = 0.5
_PR_SET_PDEATHSIG = 1

Item = TypeVar("Item")
Value = TypeVar("Value")
#: Tasks handed to the workers at a time, per worker: enough to keep each one busy, few
#: enough that waiting tasks and finished results never pile up.
IN_FLIGHT_PER_WORKER = 2


def die_with_parent(parent: int) -> None:
    """Run in a worker as it starts: end this process when process ``parent`` ends."""
    if sys.platform.startswith("linux"):
        import ctypes
        import ctypes.util

        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass  # the watcher below still ends the worker
    if os.getppid() != parent:  # the parent died before the request could be made
        os._exit(1)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(1)

    threading.Thread(target=watch, name="hyoka-parent-watch", daemon=True).start()


def worker_pool(workers: int, fork: bool = False) -> ProcessPoolExecutor:
    """A process pool whose workers die with this process."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork") if fork else None
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


def can_fork() -> bool:
    """Whether worker processes can be forked here (and so inherit what is loaded)."""
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


def imap_forked(
    items: Sequence[Item], work: Callable[[Item], Value], workers: int
) -> Iterator[tuple[Item, Value]]:
    """``(item, work(item))`` for every item, each yielded as soon as its worker finishes.

    ``work`` runs in forked worker processes that inherit it (and whatever it uses, such as
    loaded scorers): it is never pickled, only its results are. At most
    ``IN_FLIGHT_PER_WORKER * workers`` items are handed out at a time and a result is
    forgotten once yielded, so memory grows with the workers, never with the number of
    items. An exception ``work`` raises ends the iteration with that exception.
    """
    global _FORK_JOB
    _FORK_JOB = (items, work)
    try:
        with worker_pool(workers, fork=True) as pool:
            pending: set[Future[tuple[int, Any]]] = set()
            queued = iter(range(len(items)))
            limit = IN_FLIGHT_PER_WORKER * workers
            while True:
                for index in queued:
                    pending.add(pool.submit(_run_job, index))
                    if len(pending) >= limit:
                        break
                if not pending:
                    return
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    index, value = future.result()
                    yield items[index], value
    finally:
        _FORK_JOB = None


_FORK_JOB: tuple[Sequence[Any], Callable[[Any], Any]] | None = None


def _run_job(index: int) -> tuple[int, Any]:
    assert _FORK_JOB is not None, "workers are forked from imap_forked"
    items, work = _FORK_JOB
    return index, work(items[index])
