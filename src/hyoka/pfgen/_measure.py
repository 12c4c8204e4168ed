"""Measuring many distinct answers, question by question, in forked worker processes;
and working through many runs, one run per task (``imap_forked``), results as they come.

Workers are forked so that they inherit the loaded scorers instead of loading them again.
They must never outlive the scorer: a ``kill -9`` of ``hyoka pfgen score`` gives the
executor no chance to stop them, and orphaned workers (hundreds of MB each) would run on
forever. So every worker asks the kernel to kill it when its parent dies (Linux's
``PR_SET_PDEATHSIG``) and, where that is not available or the parent died before it asked,
a watcher thread ends it as soon as its parent is gone.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING, Any, TypeVar

from hyoka.pfgen.scorer import Measurement

if TYPE_CHECKING:
    from hyoka.pfgen.benchmark import PfgenBenchmark

#: Below this many distinct answers, starting worker processes costs more than it saves.
PARALLEL_THRESHOLD = 1000
#: How often a worker's watcher thread looks for its parent (seconds).
PARENT_POLL_S = 0.5
_PR_SET_PDEATHSIG = 1

Progress = Callable[[int, int], None]

Item = TypeVar("Item")
Value = TypeVar("Value")
#: Tasks handed to the workers at a time, per worker: enough to keep each one busy, few
#: enough that waiting tasks and finished results never pile up.
IN_FLIGHT_PER_WORKER = 2


def die_with_parent(parent: int) -> None:
    """Run in a worker as it starts: end this process when process ``parent`` ends."""
    if sys.platform.startswith("linux"):
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
    context = multiprocessing.get_context("fork") if fork else None
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=context,
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )


def measure_answers(
    benchmark: PfgenBenchmark,
    wanted: dict[str, dict[str, None]],
    workers: int | None,
    progress: Progress | None,
) -> dict[str, dict[str, Measurement]]:
    """Measurements of every distinct answer, questions spread over forked workers."""
    benchmark.scorers(wanted)  # load or build in this process; forked workers inherit them
    order = sorted(wanted, key=lambda q: -len(wanted[q]))  # big questions first: balance
    total_answers = sum(len(answers) for answers in wanted.values())
    workers = min(workers or os.cpu_count() or 1, len(order))
    results: dict[str, dict[str, Measurement]] = {}
    if workers > 1 and total_answers >= PARALLEL_THRESHOLD and _can_fork():
        global _FORK_STATE
        _FORK_STATE = (benchmark, wanted)
        try:
            with worker_pool(workers, fork=True) as pool:
                for done, (question_id, by_answer) in enumerate(
                    pool.map(_measure_question, order), 1
                ):
                    results[question_id] = by_answer
                    if progress is not None:
                        progress(done, len(order))
        finally:
            _FORK_STATE = None
        return results
    for done, question_id in enumerate(order, 1):
        answers = list(wanted[question_id])
        measured = benchmark.scorer(question_id).measure(answers)
        results[question_id] = dict(zip(answers, measured, strict=True))
        if progress is not None:
            progress(done, len(order))
    return results


_FORK_STATE: tuple[PfgenBenchmark, dict[str, dict[str, None]]] | None = None


def _can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def _measure_question(question_id: str) -> tuple[str, dict[str, Measurement]]:
    assert _FORK_STATE is not None, "workers are forked from measure_answers"
    benchmark, wanted = _FORK_STATE
    answers = list(wanted[question_id])
    values = benchmark.scorer(question_id).measure(answers)
    return question_id, dict(zip(answers, values, strict=True))


def can_fork() -> bool:
    """Whether worker processes can be forked here (and so inherit the loaded scorers)."""
    return _can_fork()


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
