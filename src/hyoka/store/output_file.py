"""A command's one output file (``--output FILE``, ``--radar FILE``, ``--plot STEM``): written
only where nothing of the user's is lost.

``--output`` may name any path, a run's ``trials.jsonl.xz`` or ``result.json`` or someone's
``notes.txt`` included; replacing it would lose a file hyoka did not write without a word.
So every such file goes through ``write_output``: a file that does not exist, or is empty,
may be written; so may one hyoka wrote there before and no one has changed since; anything
else is refused with one line naming it, and left byte-identical.

How hyoka knows it wrote a file: beside it, a hidden record ``.<name>.hyoka-output.json``
holds the SHA-256 and size of the bytes written, as a folder output holds its marker
(``owned``). What a file holds is no proof of who wrote it (a CSV looks like a CSV); a
record of the exact bytes is, and a file edited after hyoka wrote it no longer matches, so
the edit is kept too. Writing the same ``--output`` twice in a row (a README example run
again) replaces hyoka's own file. The file is written first and the record after: a crash
between leaves a record that does not match, which refuses (the safe side).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import stat
from pathlib import Path

from hyoka import __version__
from hyoka.errors import InputError
from hyoka.store.files import atomic_write_bytes
from hyoka.store.regular import LOG_MAX_BYTES, NotReadError, open_regular, read_regular

#: Beside ``<name>``, the record that hyoka wrote it: ``.<name>`` + this.
RECORD_SUFFIX = ".hyoka-output.json"
#: A record larger than this is not one of ours (it holds three short fields).
_RECORD_MAX_BYTES = 4096
_CHUNK = 1 << 20


def record_path(target: Path) -> Path:
    """Where the record that hyoka wrote ``target`` is kept."""
    return target.with_name(f".{target.name}{RECORD_SUFFIX}")


def check_output(path: Path | None, *, flag: str = "`output`") -> None:
    """Refuse (``InputError`` naming ``flag`` and ``path``) an output file that is there, not
    empty, and not hyoka's own unchanged output; called before any work is done, and again
    by ``write_output`` just before writing. ``None`` (no output asked for) passes."""
    if path is None:
        return
    target = _target(path)
    shown = f"{flag} {path}"
    try:
        info = target.stat()
    except (FileNotFoundError, NotADirectoryError):  # new (the write says why it cannot be)
        _check_record_free(target, shown)
        return
    except OSError as exc:
        raise InputError(f"{shown}: cannot be used: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{shown}: exists and is not a regular file; not replaced")
    if info.st_size == 0:
        _check_record_free(target, shown)
        return
    recorded = _read_record(record_path(target))
    if recorded is None or recorded != (info.st_size, _sha256(target, shown)):
        why = "hyoka did not write it" if recorded is None else "it changed since hyoka wrote it"
        raise InputError(
            f"{shown}: the file exists and {why}; hyoka does not replace it: "
            "move it away or choose another file"
        )


def write_output(path: Path, content: str | bytes, *, flag: str = "`output`") -> None:
    """Write a command's output file ``path`` atomically (``atomic_write_bytes``: a symlink
    is written through), refused as ``check_output`` refuses, and record that hyoka wrote
    it, so the next run may replace it."""
    data = _encoded(path, content) if isinstance(content, str) else content
    check_output(path, flag=flag)
    target = _target(path)
    atomic_write_bytes(target, data)
    record = {
        "sha256": hashlib.sha256(data).hexdigest(),
        "size": len(data),
        "hyoka": __version__,
        "written": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    atomic_write_bytes(record_path(target), (json.dumps(record) + "\n").encode("ascii"))


def _encoded(path: Path, text: str) -> bytes:
    """``text`` as UTF-8, a character it cannot encode one ``InputError`` (as
    ``atomic_write_text`` says it)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            f"{path}: cannot be written: the text holds a character UTF-8 cannot encode "
            f"({exc.object[exc.start : exc.end]!a} at offset {exc.start})"
        ) from None


def _target(path: Path) -> Path:
    """The file a write to ``path`` replaces: a symlink's target (the record goes beside it)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _check_record_free(target: Path, shown: str) -> None:
    """A new output's record may only replace an older record of ours, never a file of
    the user's that happens to have its name."""
    record = record_path(target)
    if os.path.lexists(record) and _read_record(record) is None:
        raise InputError(
            f"{shown}: {record.name} beside it is not hyoka's; hyoka does not replace it: "
            "move it away or choose another file"
        )


def _read_record(record: Path) -> tuple[int, str] | None:
    """The size and SHA-256 a record of ours holds, or ``None`` (absent, or not ours)."""
    try:
        raw = read_regular(
            record, limit=_RECORD_MAX_BYTES, what="an output's record", follow_links=False
        )
    except NotReadError:
        return None
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    if not isinstance(parsed, dict):
        return None
    size, digest = parsed.get("size"), parsed.get("sha256")
    if type(size) is not int or not isinstance(digest, str):
        return None
    return size, digest


def _sha256(target: Path, shown: str) -> str:
    """The SHA-256 of ``target``, read as a stream (opened only as a regular file)."""
    try:
        with open_regular(target, limit=LOG_MAX_BYTES, what="an output hyoka wrote") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except NotReadError as exc:
        raise InputError(f"{shown}: {exc.reason}; not replaced") from None
