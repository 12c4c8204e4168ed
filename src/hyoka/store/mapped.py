"""Large read-only files memory-mapped, so that a process reads only the pages it touches.

The pfgen index cache holds hundreds of megabytes of arrays; a process that scores one run
needs a small part of them. Mapping the file instead of reading it makes loading cost
nothing up front: the arrays are views of the mapping, read from disk (or the page cache)
when used. The mapping is read-only, so nothing can write through it; a file replaced by
``atomic_write_bytes`` while mapped leaves the mapping on the old, unchanged bytes.
"""

from __future__ import annotations

import mmap
from pathlib import Path


def map_readonly(path: Path) -> mmap.mmap:
    """``path``'s bytes mapped read-only; ``OSError`` if it cannot be opened, ``ValueError``
    if it is empty (an empty file cannot be mapped)."""
    with path.open("rb") as file:
        return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
