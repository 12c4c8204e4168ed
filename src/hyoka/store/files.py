"""Whole-or-nothing file writes that respect the file they replace.

A reader, or a crash, sees the old file or the new one, never a mix: the text goes to a
temporary file in the same folder, is flushed to disk, and renamed over the target. The
temporary file is named ``.<target>.hyoka-<pid>-<random>.tmp``, so one left behind by a
killed process is recognisably ours and the next write to the same target removes it (an
older hyoka's ``.<target>.<random>.tmp`` too, once it is an hour old).

A replaced file keeps its permission bits; a new one gets what the umask allows (0666 less
the umask, like any other program's files, not mkstemp's private 0600). A symlink is
written through, so the link stays a link. A file the user made read-only is refused, not
silently replaced: read-only is how people protect results.

A write that fails (a full disk, a quota, an I/O error) is one ``WriteError`` naming the file
and leaving it as it was: an atomic write leaves the old file, an append (``append_bytes``)
is cut back to where it started, so no torn record is left for the next one to be glued to.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from pathlib import Path

from hyoka.errors import HyokaError, InputError
from hyoka.store.regular import read_regular

_TMP_MARK = ".hyoka-"
_TMP_SUFFIX = ".tmp"


class WriteError(HyokaError):
    """A file could not be written (disk full, quota, I/O error); it was left as it was."""


def truncate_to(path: Path, size: int) -> None:
    """Cut ``path`` to its first ``size`` bytes (dropping a damaged tail); ``WriteError``
    when it cannot be."""
    try:
        os.truncate(path, size)
    except OSError as exc:
        raise write_error(path, exc) from None


def write_error(path: Path, exc: OSError) -> WriteError:
    """``exc`` as one line naming ``path``, saying the file is unchanged (a full disk or a
    quota says so, and that freeing space and running again continues the run)."""
    reason = exc.strerror or str(exc)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return WriteError(
            f"{path}: cannot write: {reason} (the disk or quota is full); the file is left as "
            "it was before this write: free some space and run the same command again"
        )
    return WriteError(f"{path}: cannot write: {reason}; the file is left as it was")


def current_umask() -> int:
    """The process umask, read without changing it where the OS allows."""
    try:
        status = read_regular(Path("/proc/self/status"), limit=1 << 20, what="a process status")
        for line in status.decode("ascii", errors="replace").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (InputError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: An older hyoka named its temporary files ``.<target>.<8 characters>.tmp`` (``mkstemp``),
#: without the writer's pid: one is removed only once it is this old (seconds), when no
#: write can still be going on.
LEGACY_TEMP_AGE_S = 3600.0
_LEGACY_TEMP = re.compile(r"[a-z0-9_]{8}")


def _is_legacy_temp(name: str, target: Path) -> bool:
    prefix = f".{target.name}."
    if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
        return False
    return _LEGACY_TEMP.fullmatch(name[len(prefix) : -len(_TMP_SUFFIX)]) is not None


def clean_stale_temp_files(target: Path, *, dir_fd: int | None = None) -> int:
    """Remove temporary files of ours for ``target`` whose writer is dead (and an older
    hyoka's, once they are ``LEGACY_TEMP_AGE_S`` old); how many. With ``dir_fd``, ``target``'s
    folder is that open folder (``cache_folder``): listed and cleaned through it, no path
    looked up again, no link followed."""
    removed = 0
    prefix = f".{target.name}{_TMP_MARK}"
    try:
        names = os.listdir(target.parent if dir_fd is None else dir_fd)  # noqa: PTH208 (a descriptor)
    except OSError:
        return 0
    now = time.time()
    for name in names:
        entry = target.parent / name if dir_fd is None else name
        if _is_legacy_temp(name, target):
            with contextlib.suppress(OSError):
                info = os.stat(entry, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and now - info.st_mtime >= LEGACY_TEMP_AGE_S:
                    os.unlink(entry, dir_fd=dir_fd)
                    removed += 1
            continue
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid_text = name[len(prefix) :].split("-", 1)[0]
        if pid_text.isdigit() and not _pid_alive(int(pid_text)):
            with contextlib.suppress(OSError):
                os.unlink(entry, dir_fd=dir_fd)
                removed += 1
    return removed


def new_file_mode() -> int:
    """The mode a new file gets: 0666 less the umask, as ``open`` would give it."""
    return 0o666 & ~current_umask()


def temp_path_for(target: Path) -> Path:
    """A fresh temporary file name beside ``target``, of the naming that
    ``clean_stale_temp_files`` recognises once its writer is dead."""
    return target.with_name(
        f".{target.name}{_TMP_MARK}{os.getpid()}-{secrets.token_hex(4)}{_TMP_SUFFIX}"
    )


def _target_mode(target: Path) -> int:
    try:
        info = target.stat()
    except FileNotFoundError:
        return new_file_mode()
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{target} is not a regular file; not replaced")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        # the write bits, not os.access: root may write anything, but a file made read-only
        # says "keep this" whoever runs hyoka
        raise InputError(f"{target} is read-only; hyoka does not replace it")
    return stat.S_IMODE(info.st_mode)


def atomic_write_bytes(path: Path, content: bytes) -> None:
    """Replace ``path`` (or the file its symlink points to) with ``content`` atomically;
    ``WriteError`` (the old file kept) when it cannot be written."""
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise write_error(target, exc) from None
    mode = _target_mode(target)
    clean_stale_temp_files(target)
    tmp = temp_path_for(target)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise write_error(target, exc) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def append_bytes(path: Path, data: bytes, *, sync: bool = True) -> int:
    """Append ``data`` whole and flush it to disk, or leave the file as it was; the file's
    size before it (where the data starts).

    ``os.write`` may write less than asked (a nearly full disk writes what fits): the rest
    is written in further calls, and when one fails the file is cut back to its size before
    this append and a ``WriteError`` names it. A new file gets the umask's mode. Appends to
    one file come from its one writer (``writer_lock``), so the size read first is the
    size to go back to. ``sync=False``: written whole but not yet flushed to disk; the
    caller flushes it (``GroupSync``: one flush for many appends, off the event loop).
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        start = os.fstat(fd).st_size
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                if written <= 0:  # pragma: no cover - POSIX reports an error instead
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                view = view[written:]
            if sync:
                os.fsync(fd)
        except OSError as exc:
            raise _cut_back(fd, path, start, exc) from None
    finally:
        os.close(fd)
    return start


def sync_appended(path: Path, start: int) -> None:
    """Flush to disk what was appended to ``path`` (``append_bytes(sync=False)``) from
    ``start`` on; when that fails, the file is cut back to ``start`` (so no line that
    may not be on disk stays in it) and a ``WriteError`` names it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        os.fsync(fd)
    except OSError as exc:
        raise _cut_back(fd, path, start, exc) from None
    finally:
        os.close(fd)


def _cut_back(fd: int, path: Path, start: int, exc: OSError) -> WriteError:
    """The file behind ``fd`` cut back to ``start`` (no byte of an append that failed, or
    may not be on disk, stays in it) and the error that names it: the one undo of
    ``append_bytes`` and ``sync_appended``."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, start)
        os.fsync(fd)
    return write_error(path, exc)


def atomic_write_text(path: Path, text: str) -> None:
    """``atomic_write_bytes`` of ``text`` as UTF-8 (a lone surrogate is an ``InputError``)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{path}: cannot be written: the text holds a character UTF-8 cannot encode "
            f"({exc.object[exc.start : exc.end]!a} at offset {exc.start})"
        ) from None
    atomic_write_bytes(path, data)
