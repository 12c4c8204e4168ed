"""Files in hyoka's cache folder, which others may be able to write: never through a link,
and trusted only when no one else could have written them.

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

Whoever can write a cache file can also write whatever checks it carries, so a file is
trusted, as OpenSSH trusts ``authorized_keys``, only where no one but the user (and root)
could have written it. Both are judged by ``fstat`` of what was opened, not of a path:

- the folder that holds the files (``pfgen-index-v4``; the cache folder itself for the
  response cache) is owned by the user or by root, and is writable by no one else (group or
  others) unless it is sticky (``/tmp``'s mode, 1777), where no one can remove or rename
  another's file and whatever they make is theirs (``folder_problem``); in any other folder
  hyoka neither reads nor writes cache files, and says so once (``warning:``);
- the file is a regular file owned by the user (hyoka's effective user id) and writable by no
  one else (``file_problem``); any other file counts as absent: the next write replaces it
  (its owner's, in a sticky folder they may keep: then it is left, once said, and the cache
  works from memory). Something else than a file there (a FIFO, a socket, a device) is
  never opened to be read (a FIFO would wait for a writer) and is replaced likewise, never
  written through; a folder there is not removed: the cache keeps that file in memory, and
  one line says so.

Hyoka makes its folders 0755 and its cache files 0644 at most (less what the umask takes),
whatever the umask allows, so that what it writes passes these rules. The parent of the
folder that holds the files is not judged: whoever could write it can only swap the whole
folder, for one that is not the user's (refused) or a link (not followed).
"""

from __future__ import annotations

import contextlib
import errno
import mmap
import os
import stat
import warnings
from collections.abc import Iterator
from pathlib import Path

from hyoka.errors import HyokaWarning, InputError
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
#: what anyone but the owner may write: group and others
_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH
#: the most a folder or a cache file hyoka makes allows (less what the umask takes)
FOLDER_MODE = 0o755
FILE_MODE = 0o644


class UntrustedCacheError(WriteError):
    """A cache file that hyoka would not trust could not be replaced, or the folder it would
    be written to is not trusted (module docstring): what it holds is used from memory."""


def folder_problem(info: os.stat_result) -> str | None:
    """Why a folder with this ``stat`` is no place for cache files, or ``None``: one owned by
    someone else than the user and root, or writable by group or others and not sticky."""
    if info.st_uid not in (os.geteuid(), 0):
        return f"owned by another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    if mode & _OTHERS_WRITE and not mode & stat.S_ISVTX:
        return f"writable by others than its owner (mode {mode:04o}, not sticky)"
    return None


#: what something else than a regular file at a cache file's name is, by ``stat.S_IFMT``
_KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFLNK: "a link",
}


def file_problem(info: os.stat_result) -> str | None:
    """Why a cache file with this ``stat`` is not trusted, or ``None``: one that is not a
    regular file (named: a FIFO, a folder ...), owned by someone else than the user, or
    writable by group or others."""
    if not stat.S_ISREG(info.st_mode):
        return f"not a regular file ({_KINDS.get(stat.S_IFMT(info.st_mode), 'of no known kind')})"
    if info.st_uid != os.geteuid():
        return f"owned by another user (uid {info.st_uid})"
    mode = stat.S_IMODE(info.st_mode)
    if mode & _OTHERS_WRITE:
        return f"writable by others than its owner (mode {mode:04o})"
    return None


class CacheFolder:
    """Folder ``name`` of the cache folder ``root`` (``root`` itself when ``name`` is empty),
    read and written without following a link below ``root``, its files trusted only when
    no one else could have written them (module docstring)."""

    def __init__(self, root: Path, name: str = "") -> None:
        if name and (name in (".", "..") or "/" in name or "\0" in name):
            raise ValueError(f"{name!r} is not one folder name")
        self.root = root
        self.name = name
        self.path = root / name if name else root
        self._said: set[str] = set()

    def read_file(self, name: str, max_bytes: int) -> bytes | None:
        """The bytes of file ``name``; ``None`` when it is absent, a link, not a regular file
        (a FIFO is never waited on), not trusted, larger than ``max_bytes`` or unreadable."""
        with self._opened(create=False) as folder:
            if folder is None:
                return None
            try:
                fd = os.open(name, _READ, dir_fd=folder)
            except OSError:
                return None
            try:
                info = os.fstat(fd)
                if file_problem(info) is not None or info.st_size > max_bytes:
                    return None  # a folder too: opened, but no file to read
                with os.fdopen(fd, "rb", closefd=False) as handle:
                    data = handle.read(max_bytes + 1)
            except OSError:
                return None
            finally:
                os.close(fd)
            return data if len(data) <= max_bytes else None

    def map(self, name: str) -> mmap.mmap | None:
        """File ``name`` mapped read-only (so a process reads only the pages it touches);
        ``None`` when it is absent, a link, not a regular file, not trusted, empty or
        unreadable."""
        with self._opened(create=False) as folder:
            if folder is None:
                return None
            try:
                return map_readonly(name, dir_fd=folder, follow_links=False, problem=file_problem)
            except (OSError, ValueError):  # ValueError: an empty file cannot be mapped
                return None

    def write_file(self, name: str, content: bytes) -> None:
        """Replace file ``name`` with ``content`` whole or not at all, never through a link or
        a FIFO (whatever is there, a link, a FIFO, a socket, is replaced itself, never
        opened). ``UntrustedCacheError`` (said in one line) when the folder is not trusted,
        a folder is at ``name`` (never removed) or an untrusted file there cannot be
        replaced (another user's, in a sticky folder), ``WriteError`` (the old file kept)
        when the write fails, ``OSError`` when the folder cannot be made."""
        with self._opened(create=True) as folder:
            assert folder is not None, "a folder opened to write exists"
            target = self.path / name
            try:
                info = os.stat(name, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                info = None
            except OSError as exc:
                raise write_error(target, exc) from None
            if info is not None and stat.S_ISDIR(info.st_mode):
                raise self._unreplaceable(target, info)
            clean_stale_temp_files(target, dir_fd=folder)
            temp = temp_path_for(target).name
            try:
                fd = os.open(temp, _NEW_FILE, 0o600, dir_fd=folder)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(content)
                    handle.flush()
                    os.fchmod(handle.fileno(), new_file_mode() & FILE_MODE)
                    os.fsync(handle.fileno())
                os.rename(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                if info is not None and exc.errno in (errno.EPERM, errno.EACCES):
                    raise self._unreplaceable(target, info) from None
                raise write_error(target, exc) from None
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp, dir_fd=folder)
                raise

    def remove(self, *names: str) -> None:
        """Remove files ``names`` (the links themselves, where links are there), as far as
        possible: a cache entry found damaged goes, so the next run rebuilds it. Nothing is
        removed from a folder that is not trusted."""
        with self._opened(create=False) as folder:
            if folder is None:
                return
            for name in names:
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=folder)

    def claim(self, name: str, companions: tuple[str, ...] = ()) -> Path | None:
        """The path of file ``name``, made a regular file if absent, for a program that opens
        it by its path (SQLite): a link at ``name`` or at a companion name (``name`` with
        each suffix: its ``-wal``, ``-shm``) is removed first, never followed, and so is a
        file at any of them that is not trusted (all of them then: a database and its logs
        go together; one line says so), and so is something else than a file at any of them
        (a FIFO, a socket: SQLite would wait on it, or fail), alone at a log's name.
        ``None``, with one line saying why, where no file there can be trusted: the folder
        is not trusted, or an untrusted file or a folder at one of the names cannot be
        removed (the caller keeps its data in memory). ``WriteError`` when a link cannot be
        removed or the file cannot be made."""
        try:
            with self._opened(create=True) as folder:
                assert folder is not None, "a folder opened to write exists"
                return self._claim_in(folder, name, companions)
        except UntrustedCacheError:
            return None

    def _claim_in(self, folder: int, name: str, companions: tuple[str, ...]) -> Path | None:
        names = (name, *(name + suffix for suffix in companions))
        for each in names:
            _remove_link(folder, each, self.path / each)
        for each in names:
            try:
                info = os.stat(each, dir_fd=folder, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise write_error(self.path / each, exc) from None
            problem = file_problem(info)
            if problem is None:
                continue
            if not self._unclaimed(folder, names, each, info, problem):
                return None
            if each == name or stat.S_ISREG(info.st_mode):
                break  # all of them gone
        try:
            fd = os.open(name, _CLAIM, new_file_mode() & FILE_MODE, dir_fd=folder)
        except OSError as exc:
            raise write_error(self.path / name, exc) from None
        info = os.fstat(fd)
        os.close(fd)
        problem = file_problem(info)
        if problem is not None:  # put there since: only root (or the user) could
            self._say(f"{self.path / name}: {problem}: the cache works from memory")
            return None
        return self.path / name

    def _unclaimed(
        self, folder: int, names: tuple[str, ...], each: str, info: os.stat_result, problem: str
    ) -> bool:
        """Remove ``each`` (one of ``names``, the database and its logs), which has
        ``problem``, saying so in one line; ``False`` (said too) where it cannot be removed.
        A file someone else could have written goes with all of ``names`` (a log of theirs
        could be replayed into the database); something else than a file (a FIFO, a socket)
        held nothing, so at a log's name it alone goes. A folder is never removed."""
        where = self.path / each
        regular = stat.S_ISREG(info.st_mode)
        gone = names if regular or each == names[0] else (each,)
        if stat.S_ISDIR(info.st_mode):
            self._say(
                f"{where}: {problem}, and hyoka does not remove it: the cache works from "
                "memory (remove it to cache again)"
            )
            return False
        try:
            for other in gone:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(other, dir_fd=folder)
        except OSError:
            self._say(
                f"{where}: {problem}, so it is not trusted, and hyoka cannot remove it: the "
                "cache works from memory (remove it to cache again)"
            )
            return False
        if regular:
            self._say(
                f"{where}: {problem}, so it was not trusted: removed "
                f"(with {', '.join(names[1:]) or 'nothing else'}), and a new one made"
            )
        elif len(gone) > 1:
            others = ", ".join(gone[1:])
            self._say(f"{where}: {problem}: removed (with {others}), and a new one made")
        else:
            self._say(f"{where}: {problem}: removed")
        return True

    def _unreplaceable(self, target: Path, info: os.stat_result) -> UntrustedCacheError:
        """The error (and the one line) for an untrusted file hyoka may not replace, or a
        folder, which it does not."""
        problem = "a link" if stat.S_ISLNK(info.st_mode) else file_problem(info)
        may = "does not replace" if stat.S_ISDIR(info.st_mode) else "may not replace"
        message = (
            f"{target}: {problem or 'not writable'}, and hyoka {may} it: what it "
            "would hold is kept in memory (remove it to cache again)"
        )
        self._say(message)
        return UntrustedCacheError(message)

    def _say(self, message: str) -> None:
        """One ``warning:`` line, once per folder object (a cache of 50 entries says once
        why none of them is used)."""
        if message not in self._said:
            self._said.add(message)
            warnings.warn(message, HyokaWarning, stacklevel=4)

    @contextlib.contextmanager
    def _opened(self, *, create: bool) -> Iterator[int | None]:
        """The folder's descriptor (made first when ``create``); ``None`` when a reader finds
        no folder there, or one that is not trusted (``folder_problem``: said once), where a
        writer gets an ``UntrustedCacheError``."""
        folder = self._open(create)
        try:
            problem = None if folder is None else folder_problem(os.fstat(folder))
            if problem is not None:
                self._say(
                    f"{self.path}: {problem}, so hyoka neither uses nor writes cache files "
                    f"there (the cache works from memory): {_advice(problem, self.path)}"
                )
                if create:
                    raise UntrustedCacheError(f"{self.path}: {problem}; no cache file written")
                yield None
            else:
                yield folder
        finally:
            if folder is not None:
                os.close(folder)

    def _open(self, create: bool) -> int | None:
        if create:
            self.root.mkdir(FOLDER_MODE, parents=True, exist_ok=True)
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
                    os.mkdir(self.name, FOLDER_MODE, dir_fd=root)
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
        os.mkdir(self.name, FOLDER_MODE, dir_fd=root)
        return os.open(self.name, _FOLDER | os.O_NOFOLLOW, dir_fd=root)


def _advice(problem: str, path: Path) -> str:
    """What makes a folder with ``problem`` trusted again."""
    if problem.startswith("owned by"):
        return "set HYOKA_CACHE_DIR to a folder of your own"
    return f"`chmod go-w {path}` (or make it sticky) to cache again"


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
