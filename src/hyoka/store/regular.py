"""Inputs opened only as regular files, and read within a bound: the store's one opener.

A FIFO named ``trials.jsonl`` (or a judgment file, a questions file, a table) makes ``open``
wait for a writer that never comes: the command hangs, saying nothing. A link to
``/dev/zero``, or a sparse file of gigabytes, is read until memory runs out: a traceback.
So every input the store reads is opened here (``open_regular``, and ``read_regular`` on
it): without waiting (``O_NONBLOCK``), checked to be a regular file on the descriptor it
was opened as (``fstat``: no second look-up a swap could slip past), and read within a
bound its kind sets, counted as the bytes arrive (a ``/proc`` file says it holds 0 bytes, a
file may grow while read: its size on opening is no bound). Anything else is one
``NotReadError`` (an ``InputError``) naming the file. A symlink to a regular file is
followed: links to inputs are how people share them.

The bounds per kind are generous defaults (the largest published file hyoka reads is a
4.2 MB judgment log, the largest JSON document a 1.2 MB Shaberi judgment file): they
stop a device or a runaway file, never a real one. A caller that knows its format's size
passes a tighter one (a pfgen run's trials, an inflated file).
"""

from __future__ import annotations

import contextlib
import io
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from hyoka.errors import InputError

#: A log or table read line by line or whole: answer and judgment logs, trials, question
#: files, ``--table`` and label files, data files hashed. 4 GiB: a thousand times the
#: largest published one.
LOG_MAX_BYTES = 4 << 30
#: A whole JSON document parsed in memory: results, configs, reports' data, Shaberi's
#: judgment files. 256 MiB: two hundred times the largest published one.
DOCUMENT_MAX_BYTES = 256 << 20
#: A file of settings or bookkeeping: TOML settings, the manifest beside a log, an output
#: folder's marker, a lock's note. 16 MiB: kilobytes in practice.
SETTINGS_MAX_BYTES = 16 << 20


class NotReadError(InputError):
    """An input refused unread (no regular file, or past its bound), or one that cannot be
    read: ``path`` and the ``reason``, for callers that word the message their own way."""

    def __init__(self, path: Path, reason: str, *, refused: bool = False) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason
        #: refused unread for what it is (no regular file, past its bound), not missing or
        #: failing to open
        self.refused = refused


_READ = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _too_large(size: int | None, limit: int, what: str) -> str:
    held = f"{size:,} bytes" if size is not None else "more bytes"
    return f"{held}, more than {what} holds ({limit:,} bytes); not read"


class _Bounded(io.FileIO):
    """A regular file's descriptor read raw, every byte counted: past ``limit`` the read
    is one ``NotReadError`` (each way ``FileIO`` reads is counted here)."""

    def __init__(self, fd: int, path: Path, limit: int, what: str) -> None:
        super().__init__(fd, "rb", closefd=True)
        self._path, self._limit, self._count = path, limit, 0
        self._past = _too_large(None, limit, what)

    def _counted(self, got: int) -> None:
        self._count += got
        if self._count > self._limit:
            raise NotReadError(self._path, self._past, refused=True)

    def readinto(self, buffer: bytearray | memoryview) -> int | None:  # type: ignore[override]
        got = super().readinto(buffer)
        if got:
            self._counted(got)
        return got

    def read(self, size: int | None = -1) -> bytes:
        if size is None or size < 0:
            return self.readall()
        data = super().read(size) or b""  # one allocation, as FileIO reads
        self._counted(len(data))
        return data

    def readall(self) -> bytes:
        parts = []
        while chunk := self.read(_CHUNK):
            parts.append(chunk)
        return b"".join(parts)


def _descriptor(path: Path, follow_links: bool) -> int:
    """``path`` opened for reading without waiting, only when it is a regular file."""
    flags = _READ if follow_links else _READ | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise NotReadError(path, "no such file") from None
    except OSError as exc:
        if not follow_links and path.is_symlink():
            raise NotReadError(path, "a link; not followed, not read", refused=True) from None
        raise NotReadError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotReadError(path, f"{_kind(mode)}, not a regular file; not read", refused=True)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


@contextlib.contextmanager
def open_regular(
    path: Path,
    *,
    limit: int = LOG_MAX_BYTES,
    what: str = "a log or table",
    follow_links: bool = True,
    buffer_size: int = 1 << 16,
) -> Iterator[io.BufferedReader[_Bounded]]:
    """``path`` open for reading in binary, only when it is a regular file (a FIFO is not
    waited on, a device not read), refused as soon as it holds more than ``limit`` bytes
    (its size first, then the bytes as they are read), ``what`` saying what could hold that
    much; every problem one ``NotReadError`` naming the file. ``follow_links=False``: a
    link is refused (a file hyoka wrote itself, never reached through one)."""
    fd = _descriptor(path, follow_links)
    try:
        size = os.fstat(fd).st_size
        if size > limit:
            raise NotReadError(path, _too_large(size, limit, what), refused=True)
        raw = _Bounded(fd, path, limit, what)
    except BaseException:
        os.close(fd)
        raise
    with io.BufferedReader(raw, buffer_size) as handle:
        try:
            yield handle
        except OSError as exc:
            raise NotReadError(path, f"cannot read: {exc.strerror or exc}") from None


def read_regular(
    path: Path,
    *,
    limit: int = LOG_MAX_BYTES,
    what: str = "a log or table",
    follow_links: bool = True,
) -> bytes:
    """The bytes of regular file ``path`` (``open_regular``), refused past ``limit`` bytes
    (a file that grows while read is refused too); every problem one ``NotReadError``."""
    with open_regular(path, limit=limit, what=what, follow_links=follow_links) as handle:
        size = os.fstat(handle.fileno()).st_size
        data = handle.read(size + 1) if size else b""  # as its size says, in one piece
        if len(data) > size or not size:  # it grew since (or its size says nothing: /proc)
            data += handle.read()
        return data
