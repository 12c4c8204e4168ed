"""Stopping cells that run side by side on threads (``RayExecutor``) from the sweep's own
thread: on Ctrl-C (or a bug in one cell) every running cell's asyncio work is cancelled at
once, as Ctrl-C cancels a cell run on the main thread, instead of each running to its end,
asking and paying for replies no one keeps.

A cell runs the single commands' entry points, each of which starts its own event loop
(``asyncio.run``) on the cell's thread. While cells run, the event loop policy is wrapped
(``CellLoops``) so that each loop made on a cell's thread is known; ``stop`` cancels every
task of each such loop from the calling thread (``call_soon_threadsafe``), and a loop a
stopped cell makes later has its tasks cancelled as it starts. The entry points' own
clean-up (closing clients, logs) runs as it does on Ctrl-C; what the cell wrote stays, and
the next run resumes it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import weakref
from collections.abc import Iterator
from typing import Any


def _cancel_all(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        task.cancel()


class CellLoops(asyncio.AbstractEventLoopPolicy):
    """The event loop policy in force while cells run on threads: the policy it wraps
    does everything, and each loop it makes on a cell's thread (``cell``) is noted, so
    that ``stop`` can cancel its tasks."""

    def __init__(self, wrapped: asyncio.AbstractEventLoopPolicy) -> None:
        self.wrapped = wrapped
        self.lock = threading.Lock()
        self.threads: set[int] = set()
        self.loops: weakref.WeakSet[asyncio.AbstractEventLoop] = weakref.WeakSet()
        self.stopped = False

    def get_event_loop(self) -> asyncio.AbstractEventLoop:
        return self.wrapped.get_event_loop()

    def set_event_loop(self, loop: asyncio.AbstractEventLoop | None) -> None:
        self.wrapped.set_event_loop(loop)

    def new_event_loop(self) -> asyncio.AbstractEventLoop:
        loop = self.wrapped.new_event_loop()
        with self.lock:
            if threading.get_ident() in self.threads:
                self.loops.add(loop)
                if self.stopped:  # a stopped cell's next entry point ends as it starts
                    loop.call_soon(_cancel_all, loop)
        return loop

    def get_child_watcher(self) -> Any:  # the wrapped policy's (subprocesses)
        return self.wrapped.get_child_watcher()

    def set_child_watcher(self, watcher: Any) -> None:
        self.wrapped.set_child_watcher(watcher)

    @contextlib.contextmanager
    def cell(self) -> Iterator[None]:
        """Inside the block, this thread runs a cell: its loops are the ones ``stop``
        cancels."""
        me = threading.get_ident()
        with self.lock:
            self.threads.add(me)
        try:
            yield
        finally:
            with self.lock:
                self.threads.discard(me)

    def stop(self) -> None:
        """Cancel every task of every cell's loop now, and of each loop a cell makes
        later."""
        with self.lock:
            self.stopped = True
            loops = list(self.loops)
        for loop in loops:
            with contextlib.suppress(RuntimeError):  # closed meanwhile: nothing to stop
                loop.call_soon_threadsafe(_cancel_all, loop)


@contextlib.contextmanager
def cell_loops() -> Iterator[CellLoops]:
    """``CellLoops`` in force inside the block, the policy before it restored after."""
    before = asyncio.get_event_loop_policy()
    policy = CellLoops(before)
    asyncio.set_event_loop_policy(policy)
    try:
        yield policy
    finally:
        asyncio.set_event_loop_policy(before)
