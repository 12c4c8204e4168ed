"""Output folders: hyoka writes a folder only when it is empty or holds hyoka's own output.

``-o report`` may name a folder that already holds someone's ``index.html``; an output data
directory may already hold pfgen-bench's published ``Q01.json``. Writing "our" files there
would replace theirs without a word. So every folder output goes through one decision,
``owned_folder``: a folder that does not exist or is empty may be written; so may one that
holds a previous hyoka output *of the same kind*, recognised by the marker file
``.hyoka-output.json`` that hyoka writes into every folder output; anything else is refused
with one line naming the folder and what is in it, before any work is done.

A folder replaced as a whole (the report's site) is built aside, in a hidden folder beside
the target, and swapped in only when complete (``replacing_folder``): the old output is
renamed away, the new one renamed in, the old one deleted. On any failure before the swap
the old output is untouched, and a half-built one never appears under the target's name.
Its marker lists the files it holds, so a file the user put into it later is found and the
folder refused, rather than deleted with the old output.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import shutil
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from hyoka import __version__
from hyoka.errors import InputError
from hyoka.store.files import (
    _TMP_MARK,
    _TMP_SUFFIX,
    _pid_alive,
    atomic_write_text,
    current_umask,
    temp_path_for,
)
from hyoka.store.regular import NotReadError, read_regular

#: The file that marks a folder as hyoka's output, naming which kind.
OUTPUT_MARKER = ".hyoka-output.json"
#: A marker larger than this is not one of ours (it lists a site's files: thousands).
_MARKER_MAX_BYTES = 16 * 1024 * 1024
#: Entries named in a refusal; the rest are counted.
_SHOWN = 3


def owned_folder(path: Path, kind: str, *, flag: str = "-o", legacy: Sequence[str] = ()) -> bool:
    """Whether ``path`` may receive a ``kind`` output: ``True`` when it holds a previous one
    (so it may be replaced), ``False`` when it is absent or empty; ``InputError`` otherwise.

    ``legacy`` names files that only an older hyoka, writing this kind before markers
    existed, put there (the refset's ``refset-build.json``): their presence counts as the
    marker. A previous output holding a file the user made read-only is refused too: read-only
    is how people protect a file, and replacing the folder would replace that file.
    """
    shown = f"{flag} {path}"
    try:
        info = path.stat()
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise InputError(f"{shown}: cannot be used: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise InputError(f"{shown}: exists and is not a folder")
    try:
        entries = sorted(entry.name for entry in path.iterdir())
    except OSError as exc:
        raise InputError(f"{shown}: cannot be read: {exc.strerror}") from None
    if not entries:
        return False
    marked, listed = _read_marker(path / OUTPUT_MARKER, shown)
    if marked is None and any(name in entries for name in legacy):
        marked = kind
    if marked is None:
        raise InputError(
            f"{shown}: holds files hyoka did not write ({_listing(entries)}); "
            "choose an empty or new folder"
        )
    if marked != kind:
        raise InputError(
            f"{shown}: holds a hyoka {marked} output, not a {kind} one; choose another folder"
        )
    if listed is not None:
        added = sorted(set(_files(path)) - listed - {OUTPUT_MARKER})
        if added:
            raise InputError(
                f"{shown}: a hyoka {kind} output, but it also holds files hyoka did not write "
                f"({_listing(added)}); move them out or choose another folder"
            )
    protected = _read_only_file(path)
    if protected is not None:
        raise InputError(f"{shown}: {protected} is read-only; hyoka does not replace it")
    return True


def claim_folder(path: Path, kind: str, *, flag: str = "-o", legacy: Sequence[str] = ()) -> None:
    """Make ``path`` a ``kind`` output folder that files may then be written into one by
    one (each atomically): refused as ``owned_folder`` refuses, else created and marked."""
    previous = owned_folder(path, kind, flag=flag, legacy=legacy)
    try:
        path.mkdir(parents=True, exist_ok=True)
        if not previous or not (path / OUTPUT_MARKER).is_file():
            _write_marker(path, kind)
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot be written: {exc.strerror}") from None


@contextlib.contextmanager
def replacing_folder(path: Path, kind: str, *, flag: str = "-o") -> Iterator[Path]:
    """Yield an empty folder to build a ``kind`` output in; on a normal exit it replaces
    ``path`` (checked first with ``owned_folder``, and again just before the swap).

    The folder is hidden beside ``path`` (so the renames stay on one file system); a
    symlink named ``path`` is followed, and its target replaced. If the block raises, or the
    swap fails, ``path`` keeps what it held and the new folder is removed.
    """
    target = path.resolve() if path.is_symlink() else path.absolute()
    owned_folder(target, kind, flag=flag)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        _clean_stale_folders(target)
        staging = temp_path_for(target)
        staging.mkdir()
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write beside it: {exc.strerror}") from None
    try:
        yield staging
        _write_marker(staging, kind, files=_files(staging))
        previous = owned_folder(target, kind, flag=flag)
        _swap_in(staging, target, previous, f"{flag} {path}")
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, target: Path, previous: bool, shown: str) -> None:
    """Rename ``staging`` to ``target``; a previous output is renamed away first and
    deleted after, and renamed back if the new one cannot go in."""
    try:
        staging.chmod(_folder_mode(target))
        if not previous:
            # over an absent or empty folder, one rename (POSIX replaces an empty folder)
            staging.rename(target)
            return
        aside = temp_path_for(target)
        target.rename(aside)
        try:
            staging.rename(target)
        except OSError:
            aside.rename(target)
            raise
    except OSError as exc:
        raise InputError(f"{shown}: cannot be replaced: {exc.strerror}") from None
    shutil.rmtree(aside, ignore_errors=True)


def _folder_mode(target: Path) -> int:
    """The replaced folder's permission bits, else what the umask gives a new folder."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return 0o777 & ~current_umask()


def _write_marker(folder: Path, kind: str, files: list[str] | None = None) -> None:
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    marker: dict[str, object] = {"kind": kind, "hyoka": __version__, "written": now}
    if files is not None:
        marker["files"] = files
    atomic_write_text(folder / OUTPUT_MARKER, json.dumps(marker, ensure_ascii=False) + "\n")


def _read_marker(marker: Path, shown: str) -> tuple[str | None, set[str] | None]:
    """The kind a marker names and the files it lists (``None``: not listed). No marker,
    or a file by that name that is not one of ours, gives no kind: the folder is then
    refused as not ours."""
    try:
        raw = read_regular(marker, limit=_MARKER_MAX_BYTES, what="an output folder's marker")
    except NotReadError as exc:
        if exc.refused or not marker.exists():  # a FIFO, a device, too large: not ours
            return None, None
        raise InputError(f"{shown}: cannot read {marker.name}: {exc.reason}") from None
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        parsed = None
    kind = parsed.get("kind") if isinstance(parsed, dict) else None
    if not isinstance(kind, str) or not kind:
        return None, None
    files = parsed.get("files") if isinstance(parsed, dict) else None
    listed = {f for f in files if isinstance(f, str)} if isinstance(files, list) else None
    return kind, listed


def _files(folder: Path) -> list[str]:
    """Every entry under ``folder`` but its folders, relative, ``/``-separated, sorted: files
    and symlinks (a symlink to a folder is listed, not followed)."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder):
        top = Path(root)
        links = [d for d in dirs if (top / d).is_symlink()]
        found.extend((top / name).relative_to(folder).as_posix() for name in [*files, *links])
    return sorted(found)


def _listing(entries: Sequence[str]) -> str:
    named = ", ".join(entries[:_SHOWN])
    more = len(entries) - _SHOWN
    return named + (f" and {more} more" if more > 0 else "")


def _read_only_file(folder: Path) -> str | None:
    """The first regular file under ``folder`` without write bits, relative; symlinks are
    not followed (what they point to is not in the folder)."""
    for root, _, files in os.walk(folder):
        for name in files:
            path = Path(root) / name
            info = path.lstat()
            if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o222:
                return str(path.relative_to(folder))
    return None


def _clean_stale_folders(target: Path) -> None:
    """Remove staging and set-aside folders of ``target`` left by a killed hyoka (named as
    ``temp_path_for`` names them, with a process id that is no longer running)."""
    prefix = f".{target.name}{_TMP_MARK}"
    for entry in target.parent.iterdir():
        name = entry.name
        if not (name.startswith(prefix) and name.endswith(_TMP_SUFFIX)):
            continue
        pid = name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _pid_alive(int(pid)) and entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
