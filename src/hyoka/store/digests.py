"""SHA-1s of large input files, taken without keeping their bytes; the bytes read back later
only as they were hashed.

Every ``hyoka pfgen score`` needs the SHA-1 of each of the 50 question files (39 MB): they
make upstream's ``metadata_hash`` and key the index cache, while the bytes themselves are
needed only where an index is built or a question's details are not cached. So the files
are hashed as streams on two threads (``hashlib.file_digest`` releases the GIL) and
nothing is kept; what needs the bytes later reads them then (``read_as_hashed``) and checks
them against the digest, so a file replaced in between is one ``DataError``, never bytes
filed under a digest that is not theirs.

The digests are taken again by every process. Keeping them by file status, as git's index
does, was tried and left out: a file's status does not always change with its bytes (two
file-system images made with fixed times and mounted in turn at one path give equal status
to different files; writes through a shared mapping may leave mtime and ctime as they
were), and a digest kept wrongly would sign modified data as the pinned release.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from hyoka.errors import DataError
from hyoka.store.regular import LOG_MAX_BYTES, NotReadError, open_regular, read_regular


@dataclass(frozen=True)
class HashedFile:
    """A file's path and the SHA-1 (hex) of its bytes when it was hashed."""

    path: Path
    sha1: str


def sha1_files(paths: Sequence[Path]) -> list[HashedFile]:
    """The SHA-1 of each file, in order, hashed as streams on two threads. A file that
    cannot be read is a ``DataError`` naming it."""
    if len(paths) < 2:
        return [_hash(path) for path in paths]
    with ThreadPoolExecutor(2, thread_name_prefix="hyoka-hash") as threads:
        return list(threads.map(_hash, paths))


def sha256_file(path: Path, *, limit: int = LOG_MAX_BYTES, what: str = "a data file") -> str:
    """The SHA-256 (hex) of regular file ``path``, read as a stream within ``limit`` bytes
    (``open_regular``: a FIFO is not waited on, a device not read); ``NotReadError``
    naming the file otherwise."""
    with open_regular(path, limit=limit, what=what) as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def read_as_hashed(file: HashedFile) -> bytes:
    """The file's bytes, which must still have the SHA-1 it was hashed with: a file changed
    since is a ``DataError`` (nothing is built from bytes under a digest not theirs)."""
    content = _read(file.path)
    if hashlib.sha1(content).hexdigest() != file.sha1:
        raise DataError(f"{file.path}: changed while hyoka was using it; run the command again")
    return content


def _hash(path: Path) -> HashedFile:
    try:
        with open_regular(path, limit=LOG_MAX_BYTES, what=_WHAT) as handle:
            digest = hashlib.file_digest(handle, "sha1").hexdigest()
    except NotReadError as exc:
        raise _unread(exc) from None
    return HashedFile(path, digest)


def _read(path: Path) -> bytes:
    try:
        return read_regular(path, limit=LOG_MAX_BYTES, what=_WHAT)
    except NotReadError as exc:
        raise _unread(exc) from None


_WHAT = "a data file hyoka reads"


def _unread(exc: NotReadError) -> DataError:
    """A data file the store would not read (a FIFO, a device, past its bound) or could
    not: a ``DataError``, as damaged data is."""
    return DataError(str(exc))
