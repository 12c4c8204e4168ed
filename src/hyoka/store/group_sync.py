"""One flush to disk for the lines many tasks appended to a log meanwhile (group commit).

A judging or generating run appends a line per finished item from many tasks of one event
loop. Flushing each line to disk (``fsync``) on the loop itself stops every request in
flight for as long as the disk takes, once per line: on a busy disk that, not the
server, set the pace. Here each line is written whole at once (so a killed process keeps
it), and its task then waits until a flush has covered it; the flush runs in a worker
thread, and the lines written while one runs are covered by the next, however many there
are. A task's append still returns only once its line is on disk, so a crash of the
machine loses no line that was reported done; the loop never waits for the disk.

A flush that fails cuts the file back to where its first unflushed line started
(``sync_appended``) and every waiting append (and every later one, before it writes)
raises the same ``WriteError``: no line that may not be on disk is reported done, and a
line is in the file whole or not at all (one written while the failing flush ran may stay,
whole).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from hyoka.store.files import WriteError, sync_appended


class GroupSync:
    """The flushes of one file, shared by the appends of one event loop."""

    def __init__(self, path: Path) -> None:
        self.path = path
        #: where the first line not yet handed to a flush starts (``None``: none waits)
        self._start: int | None = None
        self._waiting: list[asyncio.Future[None]] = []
        self._flusher: asyncio.Task[None] | None = None
        self._failed: WriteError | None = None
        #: flushes made (each covering one or more lines)
        self.flushes = 0

    def check(self) -> None:
        """Raise the ``WriteError`` of a flush that failed: nothing more is appended."""
        if self._failed is not None:
            raise self._failed

    async def covered(self, start: int) -> None:
        """Return once the line appended at ``start`` (unflushed) is on disk."""
        self.check()
        if self._start is None:
            self._start = start
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.append(done)
        if self._flusher is None:
            self._flusher = asyncio.ensure_future(self._flush())
        await done

    async def _flush(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                start, self._start = self._start, None
                assert start is not None  # set with the first waiter of a batch
                try:
                    await asyncio.to_thread(sync_appended, self.path, start)
                except WriteError as exc:
                    self._failed = exc
                    self._settle([*batch, *self._waiting], exc)
                    return
                except BaseException:  # the loop is closing: nothing waits any more
                    self._settle([*batch, *self._waiting], None)
                    self._start = None
                    raise
                self.flushes += 1
                for waiter in batch:
                    if not waiter.done():  # a waiter cancelled meanwhile is done
                        waiter.set_result(None)
        finally:
            self._flusher = None

    def _settle(self, waiters: list[asyncio.Future[None]], error: WriteError | None) -> None:
        """Fail ``waiters`` with ``error`` (``None``: cancel them); none waits after."""
        for waiter in waiters:
            if waiter.done():
                continue
            if error is None:
                waiter.cancel()
            else:
                waiter.set_exception(error)
        self._waiting = []
