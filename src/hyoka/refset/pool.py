"""The answer pool between stages: distinct answers with their counts, and the audit log.

After generation every stage works on one question at a time, on a file
``<stage>/<question id>.jsonl.gz`` of records ``{"set", "text", "count"}``: each distinct
answer of a reference set (the generating model) once, with how often it was generated.
Records are sorted by (set, text), so a stage's output does not depend on the order shards
were read or workers finished: the single-machine and the Ray paths write identical bytes.

Each stage appends what it removed (or rewrote) and why to ``<stage>/audit.jsonl``, one
JSON object per question and reason, with counts and a few samples. Append-only: a re-run
adds lines, never rewrites history.
"""

from __future__ import annotations

import datetime
import gzip
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.store import (
    append_line,
    atomic_write_bytes,
    parse_lines,
    path_under,
    plain_name,
    read_decompressed,
)

POOL_SUFFIX = ".jsonl.gz"
AUDIT_FILE = "audit.jsonl"
#: Samples of removed answers kept in the audit per question and reason.
AUDIT_SAMPLES = 5
#: What one pool file may inflate to: the distinct answers of one question (half a million
#: answers of 4 KiB); more is damage or a decompression bomb, refused unread.
POOL_MAX_BYTES = 1 << 31


@dataclass(frozen=True)
class PoolRecord:
    set: str
    text: str
    count: int = 1

    def to_json(self) -> dict[str, Any]:
        return {"set": self.set, "text": self.text, "count": self.count}


def sort_records(records: Iterable[PoolRecord]) -> list[PoolRecord]:
    return sorted(records, key=lambda r: (r.set.encode(), r.text.encode()))


def merge_counts(records: Iterable[PoolRecord]) -> list[PoolRecord]:
    """Equal (set, text) pairs become one record whose count is their sum; sorted."""
    totals: dict[tuple[str, str], int] = {}
    for r in records:
        key = (r.set, r.text)
        totals[key] = totals.get(key, 0) + r.count
    return sort_records(PoolRecord(s, t, c) for (s, t), c in totals.items())


def pool_path(folder: Path, question_id: str) -> Path:
    """``<folder>/<question id>.jsonl.gz``; a question id that is not a plain file name
    (``../x``, ``.``) is refused, never joined into the path."""
    return question_file(folder, question_id, POOL_SUFFIX)


def question_file(folder: Path, question_id: str, suffix: str) -> Path:
    """The file of one question in a stage folder: ``<folder>/<question id><suffix>``."""
    return path_under(folder, plain_name(question_id, what="question id"), suffix=suffix)


def write_pool(path: Path, records: Sequence[PoolRecord]) -> None:
    lines = "".join(json.dumps(r.to_json(), ensure_ascii=False) + "\n" for r in records)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, gzip.compress(lines.encode("utf-8"), compresslevel=6, mtime=0))


def read_pool(path: Path) -> list[PoolRecord]:
    """A pool file's records, inflated within ``POOL_MAX_BYTES`` (``store.read_decompressed``)."""
    if not path.exists():
        raise DataError(f"{path}: not found (run the previous stage first)")
    try:
        text = read_decompressed(path, limit=POOL_MAX_BYTES, what="a question's answer pool")
        records: list[PoolRecord] = []
        for number, raw in parse_lines(text, str(path)):
            try:
                records.append(PoolRecord(str(raw["set"]), str(raw["text"]), int(raw["count"])))
            except (ValueError, KeyError, TypeError):
                raise DataError(f"{path}:{number}: not a pool record") from None
    except InputError as exc:
        raise DataError(f"{path}: unreadable pool file ({exc})") from None
    return records


def group_by_set(records: Sequence[PoolRecord]) -> dict[str, list[PoolRecord]]:
    groups: dict[str, list[PoolRecord]] = {}
    for r in records:
        groups.setdefault(r.set, []).append(r)
    return groups


@dataclass
class Audit:
    """What one stage did to one question; becomes lines of ``audit.jsonl``."""

    stage: str
    question_id: str
    before: int = 0
    after: int = 0
    entries: list[dict[str, Any]] | None = None
    stats: dict[str, Any] | None = None

    def removed(self, reason: str, records: Sequence[PoolRecord], **extra: Any) -> None:
        """Log ``records`` as removed for ``reason`` (a rule name, a threshold ...)."""
        self.note(
            reason,
            removed_answers=sum(r.count for r in records),
            removed_distinct=len(records),
            samples=[r.text for r in records[:AUDIT_SAMPLES]],
            **extra,
        )

    def note(self, reason: str, **fields: Any) -> None:
        if self.entries is None:
            self.entries = []
        self.entries.append({"reason": reason, **fields})

    def lines(self) -> list[dict[str, Any]]:
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        base = {"time": now, "stage": self.stage, "question": self.question_id}
        out = [{**base, **entry} for entry in self.entries or []]
        summary: dict[str, Any] = {"reason": "summary", "before": self.before, "after": self.after}
        if self.stats:
            summary.update(self.stats)
        out.append({**base, **summary})
        return out


def append_audit(folder: Path, audits: Iterable[Audit]) -> None:
    lines = [json.dumps(line, ensure_ascii=False) + "\n" for a in audits for line in a.lines()]
    append_line(folder / AUDIT_FILE, "".join(lines))
