"""SHA-1s of large input files, remembered by the files' status so that they are hashed once.

Every ``hyoka pfgen score`` needs the SHA-1 of each of the 50 question files (39 MB): they
make upstream's ``metadata_hash`` and key the index cache. Hashing them took a tenth of
scoring one run. As git's index and Bazel's digest cache do, the digest of a file is kept
with its device, inode, size, mtime and ctime (ns), and used again only while all five are
unchanged:

- Every write to a file, and every rename onto its name, changes its ctime or its inode;
  a program can set mtime back (``touch -d``, ``rsync -t``) but never ctime, so a file
  changed after its digest was kept never matches the kept entry.
- A change within the same clock tick as the hashed version would keep both times (Linux
  stamps files with a coarse clock; FAT counts in 2 s). So a digest is kept only for a
  file whose times were at least ``SETTLED_S`` old when it was hashed, and only when the
  file's status was the same before and after reading it; a file written a moment ago is
  simply hashed again next time.
- What reads a file's bytes later, having taken its digest from here, checks them against
  it (``read_as_hashed``): a file replaced in between is one ``DataError``, never bytes
  filed under the old digest.

The kept digests of one folder are one small JSON file under the cache folder, replaced
whole (``write_json``) when a digest was added or changed; it is only a cache: one that is
missing, unreadable or of another shape is ignored (and rewritten).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.store.files import WriteError
from hyoka.store.jsonl import read_json, write_json

#: How old a file's times must be when it is hashed for its digest to be kept: longer than
#: the coarsest timestamp in common use (FAT's 2 s), with room for a skewed file server.
SETTLED_S = 5.0
#: The layout of a kept-digests file; another is ignored and replaced.
FORMAT = 1
#: A kept-digests file larger than this is not read (it holds one line per file).
_MAX_BYTES = 4 << 20

_Status = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class HashedFile:
    """A file's path and SHA-1 (hex), with its bytes when they were read to hash it."""

    path: Path
    sha1: str
    content: bytes | None


def _status(stat: os.stat_result) -> _Status:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def kept_digests_file(cache_root: Path, folder: Path) -> Path:
    """Where the digests of the files in ``folder`` are kept: one file per folder, named by
    the SHA-1 of its resolved path."""
    key = hashlib.sha1(os.fsencode(folder.resolve())).hexdigest()[:24]
    return cache_root / f"file-digests-v{FORMAT}" / f"{key}.json"


def sha1_files(paths: Sequence[Path], kept_in: Path | None) -> list[HashedFile]:
    """The SHA-1 of each file, in order: from ``kept_in`` (see ``kept_digests_file``) where
    a file's status matches, else read and hashed (two threads: both release the GIL), and
    kept there when settled. ``kept_in=None`` hashes every file. A file that cannot be read
    is a ``DataError`` naming it."""
    kept = _read_kept(kept_in) if kept_in is not None else {}
    found: dict[int, HashedFile] = {}
    missing: list[int] = []
    for number, path in enumerate(paths):
        entry = kept.get(path.name)
        if entry is not None:
            try:
                status = _status(path.stat())
            except OSError:
                status = None
            if status is not None and status == entry[0]:
                found[number] = HashedFile(path, entry[1], None)
                continue
        missing.append(number)
    if missing:
        with ThreadPoolExecutor(2, thread_name_prefix="hyoka-hash") as threads:
            hashed = list(threads.map(_hash, [paths[number] for number in missing]))
        changed = False
        for number, (done, settled) in zip(missing, hashed, strict=True):
            found[number] = done
            if settled is not None and kept.get(done.path.name) != (settled, done.sha1):
                kept[done.path.name] = (settled, done.sha1)
                changed = True
        if changed and kept_in is not None:
            _write_kept(kept_in, kept)
    return [found[number] for number in range(len(paths))]


def read_as_hashed(file: HashedFile) -> bytes:
    """The file's bytes, which must still have its SHA-1: read now when they were not kept
    from hashing. A file changed since is a ``DataError`` (nothing is built from bytes
    under a digest that is not theirs)."""
    if file.content is not None:
        return file.content
    content = _read(file.path)[0]
    if hashlib.sha1(content).hexdigest() != file.sha1:
        raise DataError(f"{file.path}: changed while hyoka was using it; run the command again")
    return content


def _read(path: Path) -> tuple[bytes, _Status | None]:
    """The file's bytes, and its status when it was the same before and after reading."""
    try:
        with path.open("rb") as handle:
            before = _status(os.fstat(handle.fileno()))
            content = handle.read()
            after = _status(os.fstat(handle.fileno()))
    except OSError as exc:
        raise DataError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return content, before if before == after else None


def _hash(path: Path) -> tuple[HashedFile, _Status | None]:
    """The file hashed, and its status if its digest may be kept (settled, unchanged)."""
    content, status = _read(path)
    done = HashedFile(path, hashlib.sha1(content).hexdigest(), content)
    settled_before_ns = time.time_ns() - int(SETTLED_S * 1e9)
    if status is None or max(status[3], status[4]) > settled_before_ns:
        return done, None
    return done, status


def _read_kept(path: Path) -> dict[str, tuple[_Status, str]]:
    """The digests kept in ``path``: empty when it is missing or not of this format."""
    try:
        raw = read_json(path, max_bytes=_MAX_BYTES)
    except InputError:
        return {}
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        return {}
    files = raw.get("files")
    if not isinstance(files, dict):
        return {}
    kept: dict[str, tuple[_Status, str]] = {}
    for name, entry in files.items():
        parsed = _entry(entry)
        if parsed is not None:
            kept[name] = parsed
    return kept


def _entry(entry: Any) -> tuple[_Status, str] | None:
    """An entry ``[dev, ino, size, mtime_ns, ctime_ns, sha1]``, or ``None`` if malformed."""
    if not isinstance(entry, list) or len(entry) != 6:
        return None
    *numbers, digest = entry
    if not all(type(n) is int and n >= 0 for n in numbers):
        return None
    if not isinstance(digest, str) or len(digest) != 40 or digest.strip("0123456789abcdef"):
        return None
    dev, ino, size, mtime, ctime = numbers
    return (dev, ino, size, mtime, ctime), digest


def _write_kept(path: Path, kept: dict[str, tuple[_Status, str]]) -> None:
    """Replace the kept digests; a cache that cannot be written is left as it is."""
    files = {name: [*status, digest] for name, (status, digest) in sorted(kept.items())}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, {"format": FORMAT, "files": files}, indent=None)
    except (OSError, WriteError, InputError):
        pass
