"""Inputs opened only as regular files, and read within a bound.

A FIFO named ``trials.jsonl`` (or ``result.json``) makes ``open`` wait for a writer that
never comes: the command hangs, saying nothing. A link to ``/dev/zero``, or a sparse file of
gigabytes, is read whole until memory runs out: a traceback. So an input is opened without
waiting (``O_NONBLOCK``, as ``CacheFolder`` opens its files), checked to be a regular file
on the descriptor it was opened as (``fstat``: no second look-up a swap could slip past),
and read within a bound its kind sets; anything else is one ``InputError`` naming the file.
A symlink to a regular file is followed: links to inputs are how people share them.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from hyoka.errors import InputError


class NotReadError(InputError):
    """An input refused unread (no regular file, or past its bound), or one that cannot be
    read: ``path`` and the ``reason``, for callers that word the message their own way."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


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


@contextlib.contextmanager
def open_regular(path: Path) -> Iterator[BinaryIO]:
    """``path`` open for reading in binary, only when it is a regular file (a FIFO is not
    waited on); ``InputError`` naming it otherwise, or when it cannot be opened."""
    try:
        fd = os.open(path, _READ)
    except FileNotFoundError:
        raise NotReadError(path, "no such file") from None
    except OSError as exc:
        raise NotReadError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotReadError(path, f"{_kind(mode)}, not a regular file; not read")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        yield handle


def read_regular(path: Path, *, limit: int, what: str) -> bytes:
    """The bytes of regular file ``path`` (``open_regular``), refused unread past ``limit``
    bytes, ``what`` saying what could hold that much (a file that grows while read is
    refused too); every problem one ``InputError`` naming the file."""
    with open_regular(path) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            if size > limit:
                raise NotReadError(path, _too_large(size, limit, what))
            want = min(size, limit) + 1  # not ``limit``: read(n) may set n bytes aside
            data = handle.read(want)
            if len(data) == want:  # it grew since (or its size says nothing, as in /proc)
                parts, total = [data], len(data)
                while total <= limit and (chunk := handle.read(min(_CHUNK, limit + 1 - total))):
                    parts.append(chunk)
                    total += len(chunk)
                data = b"".join(parts)
        except OSError as exc:
            raise NotReadError(path, f"cannot read: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise NotReadError(path, _too_large(None, limit, what))
    return data


def _too_large(size: int | None, limit: int, what: str) -> str:
    held = f"{size:,} bytes" if size is not None else "more bytes"
    return f"{held}, more than {what} holds ({limit:,} bytes); not read"
