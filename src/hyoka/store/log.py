"""Append-only JSONL logs with a manifest: the one rule for continuing a file.

Answer and judgment files are logs that a run appends to as items finish, so an interrupted
run keeps what it finished. Continuing a file is only right when the file holds *this*
run's records: the same benchmark, answering model, judge, settings and template. That is
what the manifest says. It sits beside the log as ``<log>.manifest.json``, so the log itself
keeps the exact line format other tools (FastChat's scripts) read.

``JsonlLog.open`` decides, before anything is written or any call is made:

- a non-empty file without our manifest is not ours: it is left byte-identical and the run
  stops with one line (hyoka never "repairs" a file it did not write);
- a manifest whose kind or identity differs stops the run and names every difference
  (another judge's scores never continue under this judge's name);
- the log is locked for this run (``writer_lock``) before it is read, and stays locked until
  the run closes it: a second run on the same file waits a bounded time, then stops naming
  the first (two writers would both pay for every call and leave conflicting records);
- only then is a torn last line (a write cut short by a crash) cut off, and the records
  read: a line repeated identically (a file concatenated or re-run) is dropped with a
  warning, as upstream's scripts do; two different lines for the same key are an error
  naming both lines.
"""

from __future__ import annotations

import contextlib
import json
import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hyoka import __version__
from hyoka.errors import HyokaWarning, InputError
from hyoka.printable import printable
from hyoka.signature import migrate
from hyoka.store import kept
from hyoka.store.files import atomic_write_text
from hyoka.store.group_sync import GroupSync
from hyoka.store.jsonl import append_line, read_records, record_line, whole_lines
from hyoka.store.locks import LOG_LOCK_WAIT_S, writer_lock
from hyoka.store.regular import SETTINGS_MAX_BYTES, read_regular

R = TypeVar("R", bound=BaseModel)
T = TypeVar("T")

MANIFEST_SUFFIX = ".manifest.json"
#: the note of a log's batches in flight (``providers.batch``): requests paid for whose
#: replies only this log's own settings may read back
IN_FLIGHT_NOTE = "batches"


class Manifest(BaseModel):
    """What a log holds: its ``kind`` (e.g. ``judgments/single``) and the ``identity`` every
    record shares (everything that, if changed, would make the records another run's).
    ``hyoka`` (the writer's version), ``signature`` and ``notes`` (what runs learnt on the
    way, such as the snapshots that served a judge named by a moving alias; written only
    when there is one) are informative, never compared."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: str
    identity: dict[str, Any] = Field(default_factory=dict)
    hyoka: str = __version__
    signature: dict[str, Any] | None = None
    notes: dict[str, Any] = Field(default_factory=dict)

    def text(self) -> str:
        """The manifest file's text (``notes`` left out while empty)."""
        return self.model_dump_json(indent=1, exclude=None if self.notes else {"notes"}) + "\n"

    def differences(self, other: Manifest) -> list[str]:
        """``what: mine vs theirs`` for the kind and every identity field that differs."""
        found = [f"kind: {self.kind} vs {other.kind}"] if self.kind != other.kind else []
        mine, theirs = _flatten(self.identity), _flatten(other.identity)
        for key in dict.fromkeys([*mine, *theirs]):
            if mine.get(key) != theirs.get(key):
                found.append(f"{key}: {_shown(mine.get(key))} vs {_shown(theirs.get(key))}")
        return found


def _flatten(value: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, dict):
            flat.update(_flatten(item, f"{name}."))
        else:
            flat[name] = item
    return flat


def _shown(value: Any) -> str:
    return "(none)" if value is None else json.dumps(value, ensure_ascii=False)


class OtherRunError(InputError):
    """A log holds another run's records: its manifest (``theirs``, as read) differs from
    this run's in ``differences``. A caller that knows what a difference means (a judge's
    edited script) may say so in its own line, from this one read of the manifest."""

    def __init__(self, path: Path, theirs: Manifest, differences: list[str]) -> None:
        super().__init__(
            f"{path} holds another run's records ({'; '.join(differences)}, "
            "file vs this run); choose another output"
        )
        self.path = path
        self.theirs = theirs
        self.differences = differences


def _refuse_restart_in_flight(path: Path, theirs: Manifest, manifest: Manifest) -> None:
    """An empty log is started afresh under other settings, its notes dropped; not while
    they note batches in flight: their replies would be lost and the same requests, asked
    again under the old settings later, paid twice. One line naming the file and batches."""
    noted = theirs.notes.get(IN_FLIGHT_NOTE)
    differences = theirs.differences(manifest)
    if not differences or not isinstance(noted, list) or not noted:
        return
    ids = ", ".join(
        printable(str(entry.get("id")), limit=80) if isinstance(entry, dict) else "?"
        for entry in noted
    )
    raise InputError(
        f"{path}: its batch(es) in flight ({ids}) were submitted under other settings "
        f"({'; '.join(differences)}, file vs this run); run the command that submitted "
        "them until they are read back (hyoka batch status lists them), or choose another "
        "output"
    )


def manifest_path(path: Path) -> Path:
    return path.with_name(path.name + MANIFEST_SUFFIX)


def read_manifest(path: Path) -> Manifest | None:
    """The manifest beside the log ``path``; ``None`` if there is none. Its signature is
    in the current format (an older one migrated in memory, ``hyoka.signature.migrate``);
    one of a newer format is an ``InputError`` naming the manifest."""
    side = manifest_path(path)
    if not side.exists():
        return None
    data = read_regular(side, limit=SETTINGS_MAX_BYTES, what="a hyoka manifest")
    try:
        manifest = Manifest.model_validate_json(data)
    except (ValidationError, ValueError) as exc:
        raise InputError(f"{side}: not a hyoka manifest ({str(exc).splitlines()[0]})") from None
    if manifest.signature is None:
        return manifest
    return manifest.model_copy(update={"signature": migrate(manifest.signature, side)})


def _ownership(path: Path, manifest: Manifest) -> tuple[bool, Manifest | None]:
    """Whether ``path`` can be continued as ``manifest``'s log (``InputError`` if it
    cannot): ``True`` when it exists with our matching manifest, ``False`` when it is new
    or empty; and the manifest beside it as read for that (``None``: none). Nothing is
    changed either way."""
    if path.exists() and not path.is_file():
        raise InputError(f"{path} is not a file")
    has_content = path.exists() and path.stat().st_size > 0
    theirs = read_manifest(path)
    if has_content and theirs is None:
        raise InputError(
            f"{path} exists and was not written by hyoka (no {manifest_path(path).name} beside "
            f"it, as every {manifest.kind} log has); it is left as it is: choose another output"
        )
    if theirs is not None and has_content:
        differences = theirs.differences(manifest)
        if differences:
            raise OtherRunError(path, theirs, differences)
    return has_content, theirs


class JsonlLog(Generic[R]):
    """An append-only log of ``R`` records, one per ``key``, continued only by its own run.

    An open log holds its file's writer lock until ``close`` (or the end of a ``with``
    block): one writer per log."""

    def __init__(
        self,
        path: Path,
        manifest: Manifest,
        record_type: type[R],
        key: Callable[[R], Hashable],
        records: dict[Hashable, R],
        lock: contextlib.ExitStack | None = None,
        written: Manifest | None = None,
    ) -> None:
        self.path = path
        self.manifest = manifest
        #: the manifest beside the file as it is (an earlier run's, when continued)
        self.written = written or manifest
        self.record_type = record_type
        self.key = key
        self.records = records
        self._lock = lock or contextlib.ExitStack()
        self._syncs = GroupSync(path)

    @classmethod
    def open(
        cls,
        path: Path,
        manifest: Manifest,
        record_type: type[R],
        *,
        key: Callable[[R], Hashable],
        lock_wait: float = LOG_LOCK_WAIT_S,
    ) -> JsonlLog[R]:
        """Lock the log, check ownership, then repair and read it (see the module docstring)."""
        with contextlib.ExitStack() as lock:
            lock.enter_context(writer_lock(path, what="log", timeout=lock_wait))
            existing, theirs = _ownership(path, manifest)
            if theirs is not None and not existing:
                _refuse_restart_in_flight(path, theirs, manifest)
            records: dict[Hashable, R] = {}
            if existing:  # read once: its torn tail cut, then parsed from these bytes
                data = whole_lines(path)
                numbered = read_records(path, record_type, data)
                records = {key(r): r for r in unique_records(path, numbered, key)}
            written = manifest
            if theirs is None or not existing:
                if theirs is not None and theirs.notes and not theirs.differences(manifest):
                    # this run's log, still empty: what its runs learnt stays (batches
                    # in flight, ``providers.batch``)
                    written = manifest.model_copy(update={"notes": theirs.notes})
                path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write_text(manifest_path(path), written.text())
            else:
                written = theirs
            log = cls(path, manifest, record_type, key, records, lock.pop_all(), written)
            kept.remember(
                path, manifest.kind.partition("/")[0] or "records", lambda: len(log.records)
            )
            return log
        raise AssertionError("unreachable")  # pragma: no cover - the block returns or raises

    def close(self) -> None:
        """Release the log's writer lock (the file stays as written)."""
        self._lock.close()

    def __enter__(self) -> JsonlLog[R]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __contains__(self, key: Hashable) -> bool:
        return key in self.records

    def note(self, name: str, value: Any) -> None:
        """Keep ``value`` as the manifest's note ``name``: the manifest beside the file is
        replaced atomically with it, all else as it was."""
        notes = {**self.written.notes, name: value}
        self.written = self.written.model_copy(update={"notes": notes})
        atomic_write_text(manifest_path(self.path), self.written.text())

    def sign(self, signature: dict[str, Any]) -> None:
        """Keep ``signature`` as the manifest's (what the file's numbers now depend on, a
        run having learnt more of it, as the snapshots that served a judge): the manifest
        beside the file is replaced atomically with it, its identity as it was."""
        self.written = self.written.model_copy(update={"signature": signature})
        atomic_write_text(manifest_path(self.path), self.written.text())

    def append(self, record: R) -> None:
        """Write ``record`` as one whole line now (a crash loses at most this one)."""
        append_line(self.path, record_line(record))
        self.records[self.key(record)] = record

    async def append_async(self, record: R) -> None:
        """``append`` for the many tasks of one event loop: the line is written whole now
        and this returns once it is on disk, the lines of every task sharing flushes made
        off the loop (``GroupSync``), so no request in flight waits for the disk."""
        self._syncs.check()
        start = append_line(self.path, record_line(record), sync=False)
        self.records[self.key(record)] = record
        await self._syncs.covered(start)

    def rewrite(self, order: Callable[[R], Any], records: Iterable[R] | None = None) -> None:
        """Replace the log, atomically, with its records (or ``records``: the same
        judgments combined otherwise) sorted by ``order`` (``records`` then lists them in
        that order too: the file's order)."""
        ordered = sorted(self.records.values() if records is None else records, key=order)
        atomic_write_text(self.path, "".join(record_line(r) for r in ordered))
        self.records = {self.key(r): r for r in ordered}


def read_jsonl(path: Path, record_type: type[R], *, key: Callable[[R], Hashable]) -> list[R]:
    """The records of ``path`` in file order, one per key (see the module docstring)."""
    return list(unique_records(path, read_records(path, record_type), key))


def unique_records(
    path: Path, numbered: Iterable[tuple[int, T]], key: Callable[[T], Hashable]
) -> Iterator[T]:
    """Drop identical repeats (with one warning per file), refuse conflicting ones: the one
    duplicate rule of every file read by key (logs, answer files, question files)."""
    first_line: dict[Hashable, tuple[int, T]] = {}
    dropped = 0
    for number, record in numbered:
        name = key(record)
        if name in first_line:
            earlier, kept = first_line[name]
            if _same(kept, record):
                dropped += 1
                continue
            raise InputError(
                f"{path}:{number}: a second, different record for {_label(name)} "
                f"(first at line {earlier}); remove one of them"
            )
        first_line[name] = (number, record)
        yield record
    if dropped:
        warnings.warn(
            f"{path}: {dropped} identical duplicate line(s) dropped", HyokaWarning, stacklevel=3
        )


def _same(a: object, b: object) -> bool:
    """Equal apart from the time stamp (a re-run writes the same judgment at another time)."""
    if not (isinstance(a, BaseModel) and isinstance(b, BaseModel)):
        return a == b
    left, right = a.model_dump(mode="json"), b.model_dump(mode="json")
    left.pop("tstamp", None)
    right.pop("tstamp", None)
    return left == right


def _label(name: Hashable) -> str:
    if isinstance(name, tuple):
        return " ".join(str(part) for part in name)
    return str(name)
