"""One writer per file: the store's only lock, held by a run for as long as it writes.

Two runs appending to one judgment file both pay for every call and leave two different
records per item, which no later run can continue. So every file a run appends to (a
judgment or answer log, a pfgen run folder's trials, a reference-set shard) is written under
``writer_lock``: an exclusive ``flock`` on a lock file beside it, ``.<name>.hyoka-lock``,
which holds the holder's pid and host. A second writer waits a bounded time and then stops
with one line naming the process that holds the file; it changes nothing.

The lock file, not the file itself, is locked because logs are replaced atomically (a new
inode) when they are rewritten in order. The lock file is removed when the lock is released;
an acquirer that finds it has locked a file that was removed meanwhile (its inode is no
longer the one at the path) tries again, so two writers never hold two different lock files
for one target. A holder killed outright releases the lock with its process (the kernel
drops ``flock`` locks); the file it leaves is taken over by the next writer.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from hyoka.errors import HyokaError, InputError
from hyoka.store.files import write_error
from hyoka.store.regular import read_regular

#: How long a second writer of a log waits for the first before it stops (seconds): long
#: enough to ride out the end of a run that is finishing, short enough to say at once that
#: two runs were started on one file.
LOG_LOCK_WAIT_S = 3.0
_POLL_S = 0.05
#: a lock's note is a process id and a host name
_NOTE_MAX_BYTES = 4096
_LOCK_SUFFIX = ".hyoka-lock"


class FileBusyError(HyokaError):
    """Another process writes the file; the message names it (pid and host)."""


def lock_path(target: Path) -> Path:
    """The lock file of ``target``: hidden, beside it, named for it."""
    return target.with_name(f".{target.name}{_LOCK_SUFFIX}")


class _Lock:
    """The lock file of one target, open; ``try_take`` is one non-blocking attempt."""

    def __init__(self, target: Path) -> None:
        self.target = target
        self.path = lock_path(target)
        self.fd: int | None = None

    def try_take(self) -> bool:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:  # a folder that cannot be written: one line, not a trace
            raise write_error(self.target, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        try:
            same = os.fstat(fd).st_ino == self.path.stat().st_ino
        except FileNotFoundError:
            same = False
        if not same:  # the holder removed it as we opened it: lock the new one
            os.close(fd)
            return False
        try:  # who holds it, for another writer's message only: a full disk must not stop us
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()} {socket.gethostname()}\n".encode())
        except OSError:
            pass
        self.fd = fd
        return True

    def holder(self) -> str:
        try:
            note = read_regular(self.path, limit=_NOTE_MAX_BYTES, what="a lock's note")
            words = note.decode("utf-8", errors="replace").split()
        except InputError:
            words = []
        if len(words) >= 2 and words[0].isdigit():
            return f"process {words[0]} on {words[1]}"
        return "another process"

    def busy(self, timeout: float, what: str) -> FileBusyError:
        return FileBusyError(
            f"{self.target}: {self.holder()} is writing this {what} (waited {timeout:g} s); "
            "two runs on one file would corrupt it: wait for that run to end, or choose "
            "another output"
        )

    def release(self) -> None:
        if self.fd is None:
            return
        with contextlib.suppress(OSError):
            self.path.unlink()  # while still locked: a waiter then sees a new inode
        os.close(self.fd)
        self.fd = None


@contextlib.contextmanager
def writer_lock(
    target: Path, *, what: str = "file", timeout: float = LOG_LOCK_WAIT_S
) -> Iterator[None]:
    """Be the only writer of ``target`` inside the block (waiting at most ``timeout`` s,
    then ``FileBusyError``). Locks are per open file: a second writer in the same process
    is refused as well."""
    lock = _Lock(target)
    deadline = time.monotonic() + timeout
    while not lock.try_take():
        if time.monotonic() >= deadline:
            raise lock.busy(timeout, what)
        time.sleep(_POLL_S)
    try:
        yield
    finally:
        lock.release()


@contextlib.asynccontextmanager
async def writer_lock_async(
    target: Path, *, what: str = "file", timeout: float = LOG_LOCK_WAIT_S
) -> AsyncIterator[None]:
    """``writer_lock`` for a coroutine: the wait sleeps without blocking the event loop."""
    import asyncio  # here: asyncio costs 14 ms to import, and most writers are not async

    lock = _Lock(target)
    deadline = time.monotonic() + timeout
    while not lock.try_take():
        if time.monotonic() >= deadline:
            raise lock.busy(timeout, what)
        await asyncio.sleep(_POLL_S)
    try:
        yield
    finally:
        lock.release()
