"""Files in hyoka's cache folder, which others may be able to write: never through a link.

``HYOKA_CACHE_DIR`` may be shared (a team's scratch disk). Whoever can write there could put
a link where hyoka is about to write a cache file, so that the next user who runs hyoka
overwrites the file the link points to, or a link in place of a cache's own folder, so that
hyoka writes somewhere else. So the folder the user names is taken as named (it may itself be
a link they made), and below it no link is followed:

- a cache's folder (``pfgen-index-v4``) is opened without following a link, unless the link is
  the user's own (made by whoever runs hyoka: no one else can make a link that is theirs, as
  Linux's ``protected_symlinks`` reasons in shared folders); anyone else's link is no folder to
  a reader and is removed before a write, and a write that cannot remove it is refused;
- a file is read or mapped without following a link: a link is no file (the entry is absent
  and rebuilt);
- a file is written as a new temporary file (``O_EXCL``: never an existing file, never
  through a link) and renamed over its name, which replaces a link there, not its target.

Every step goes through the opened folder's descriptor (``dir_fd``): no path is looked up
again between a check and a write. A file another program opens by its path (SQLite's) is
``claim``-ed first: links at its names removed, the file made if absent.
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from hyoka.errors import InputError
from hyoka.store.files import (
    WriteError,
    clean_stale_temp_files,
    new_file_mode,
    temp_path_for,
    write_error,
)
from hyoka.store.mapped import map_readonly

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | _CLOEXEC
#: a FIFO is opened without waiting for a writer, and then refused as no regular file
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | _CLOEXEC
_CLAIM = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | _CLOEXEC


class CacheFolder:
    """Folder ``name`` of the cache folder ``root`` (``root`` itself when ``name`` is empty),
    read and written without following a link below ``root`` (module docstring)."""

    def __init__(self, root: Path, name: str = "") -> None:
        if name and (name in (".", "..") or "/" in name or "\0" in name):
            raise ValueError(f"{name!r} is not one folder name")
        self.root = root
        self.name = name
        self.path = root / name if name else root

    def read_file(self, name: str, max_bytes: int) -> bytes | None:
        """The bytes of file ``name``; ``None`` when it is absent, a link, not a regular file
        (a FIFO is never waited on), larger than ``max_bytes`` or unreadable."""
        with self._opened(create=False) as folder:
            if folder is None:
                return None
            try:
                fd = os.open(name, _READ, dir_fd=folder)
            except OSError:
                return None
            with os.fdopen(fd, "rb") as handle:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                    return None
                try:
                    data = handle.read()
                except OSError:
                    return None
                return data if len(data) <= max_bytes else None

    def map(self, name: str) -> mmap.mmap | None:
        """File ``name`` mapped read-only (``map_readonly``); ``None`` when it is absent, a
        link, not a regular file, empty or unreadable."""
        with self._opened(create=False) as folder:
            if folder is None:
                return None
            try:
                return map_readonly(name, dir_fd=folder, follow_links=False)
            except (OSError, ValueError):
                return None

    def write_file(self, name: str, content: bytes) -> None:
        """Replace file ``name`` with ``content`` whole or not at all, never through a link (a
        link there is replaced itself). ``InputError`` when something else than a file or a
        link is there (a FIFO, a folder), ``WriteError`` (the old file kept) when the write
        fails, ``OSError`` when the folder cannot be made."""
        with self._opened(create=True) as folder:
            assert folder is not None, "a folder opened to write exists"
            target = self.path / name
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise write_error(target, exc) from None
            if info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                raise InputError(f"{target} is not a regular file; not replaced")
            clean_stale_temp_files(target, dir_fd=folder)
            temp = temp_path_for(target).name
            try:
                fd = os.open(temp, _NEW_FILE, 0o600, dir_fd=folder)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(content)
                    handle.flush()
                    os.fchmod(handle.fileno(), new_file_mode())
                    os.fsync(handle.fileno())
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise write_error(target, exc) from None
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise

    def remove(self, *names: str) -> None:
        """Remove files ``names`` (the links themselves, where links are there), as far as
        possible: a cache entry found damaged goes, so the next run rebuilds it."""
        with self._opened(create=False) as folder:
            if folder is None:
                return
            for name in names:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)

    def claim(self, name: str, companions: tuple[str, ...] = ()) -> Path:
        """The path of file ``name``, made a regular file if absent, for a program that opens
        it by its path (SQLite): a link at ``name`` or at a companion name (``name`` with
        each suffix: its ``-wal``, ``-shm``) is removed first, never followed. ``WriteError``
        when a link cannot be removed or the file cannot be made, ``InputError`` when
        something else than a file is there (a FIFO would make SQLite wait for ever)."""
        with self._opened(create=True) as folder:
            assert folder is not None, "a folder opened to write exists"
            for each in (name, *(name + suffix for suffix in companions)):
                _remove_link(folder, each, self.path / each)
            try:
                fd = os.open(name, _CLAIM, new_file_mode(), dir_fd=folder)
            except OSError as exc:
                raise write_error(self.path / name, exc) from None
            regular = stat.S_ISREG(os.fstat(fd).st_mode)
            os.close(fd)
            if not regular:
                raise InputError(f"{self.path / name} is not a regular file; not used")
        return self.path / name

    @contextlib.contextmanager
    def _opened(self, *, create: bool) -> Iterator[int | None]:
        """The folder's descriptor (made first when ``create``), or ``None`` when a reader
        finds no folder there."""
        folder = self._open(create)
        try:
            yield folder
        finally:
            if folder is not None:
                os.close(folder)

    def _open(self, create: bool) -> int | None:
        if create:
            self.root.mkdir(parents=True, exist_ok=True)
        try:
            root = os.open(self.root, _FOLDER)
        except OSError:
            if create:
                raise
            return None
        if not self.name:
            return root
        try:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(self.name, dir_fd=root)
            return self._open_below(root, create)
        finally:
            os.close(root)

    def _open_below(self, root: int, create: bool) -> int | None:
        """Folder ``name`` of the open ``root``: never through anyone else's link."""
        try:
            return os.open(self.name, _FOLDER | os.O_NOFOLLOW, dir_fd=root)
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                if create:
                    raise
                return None
        try:
            info = os.stat(self.name, dir_fd=root, follow_symlinks=False)
            if stat.S_ISLNK(info.st_mode) and info.st_uid == os.geteuid():
                return os.open(self.name, _FOLDER, dir_fd=root)  # the user's own link
        except OSError:
            if create:
                raise
            return None
        if not create:
            return None
        if not stat.S_ISLNK(info.st_mode):
            raise InputError(f"{self.path} is not a folder; hyoka does not replace it")
        _remove_link(root, self.name, self.path)
        os.mkdir(self.name, dir_fd=root)
        return os.open(self.name, _FOLDER | os.O_NOFOLLOW, dir_fd=root)


def _remove_link(folder: int, name: str, where: Path) -> None:
    """Remove ``name`` from the open ``folder`` if it is a link (never following it);
    ``WriteError`` naming ``where`` when it cannot be removed."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise write_error(where, exc) from None
    if not stat.S_ISLNK(info.st_mode):
        return
    try:
        os.unlink(name, dir_fd=folder)
    except OSError as exc:
        raise WriteError(
            f"{where} is a link in the cache folder that hyoka cannot remove "
            f"({exc.strerror or exc}); hyoka writes no cache through a link: remove it"
        ) from None
