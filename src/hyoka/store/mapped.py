"""Large read-only files memory-mapped, so that a process reads only the pages it touches.

The pfgen index cache holds hundreds of megabytes of arrays; a process that scores one run
needs a small part of them. Mapping the file instead of reading it makes loading cost
nothing up front: the arrays are views of the mapping, read from disk (or the page cache)
when used. The mapping is read-only, so nothing can write through it; a file replaced by
``atomic_write_bytes`` while mapped leaves the mapping on the old, unchanged bytes.
"""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Callable
from pathlib import Path


def map_readonly(
    path: Path | str,
    *,
    dir_fd: int | None = None,
    follow_links: bool = True,
    problem: Callable[[os.stat_result], str | None] | None = None,
) -> mmap.mmap:
    """``path``'s bytes mapped read-only; ``OSError`` if it cannot be opened or is not a
    regular file, ``ValueError`` if it is empty (an empty file cannot be mapped).

    Opened without blocking: a FIFO left where a cache file should be would otherwise
    wait for a writer forever, and every wait hyoka makes is bounded. ``dir_fd`` and
    ``follow_links=False``: a name in an open folder, a link there refused (``OSError``), as
    the cache folder reads it (``cache_folder``); ``problem``: what refuses the file opened,
    judged by its ``fstat`` (the cache folder's trust in its owner and mode), an
    ``OSError``."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= os.O_NOFOLLOW
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path}: not a regular file")
        found = None if problem is None else problem(info)
        if found is not None:
            raise OSError(f"{path}: {found}")
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
