"""Append-only shard files of generated answers, made of self-checking compressed frames.

Millions of answers per question cannot sit in one JSON file, and a generation job on many
machines may be killed at any moment. A shard is therefore a sequence of frames, each one
batch of answers written with a single append::

    b"HRS1" | header length (u32) | payload length (u32) | CRC-32 of header+payload (u32)
    | header (JSON) | payload (the batch's JSON lines, compressed)

A frame is data only if it is whole and its checksum matches, so a frame cut short by a
crash (or a torn disk write) is recognised by its length or its CRC, never read as answers.
``scan_shard`` returns the good frames and where the damage starts; ``repair_shard`` cuts
the file there, and the batches of the dropped frames are simply generated again.
Compression is zstd when the ``zstandard`` package is installed, else gzip; each frame
names its codec, so shards written on different machines can be mixed.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import struct
import zlib
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import InputError
from hyoka.store import (
    append_bytes,
    decompress_bounded,
    parse_lines,
    parse_object,
    read_bytes,
    truncate_to,
    writer_lock_async,
)

MAGIC = b"HRS1"
_PREFIX = struct.Struct("<4sIII")
SHARD_SUFFIX = ".hrs"
#: Frames larger than this are not frames but garbage (a damaged length field).
_MAX_PART = 1 << 30
#: What one frame's payload may inflate to: a batch's JSON lines (at the default 100 answers
#: of 300 tokens, under 200 KB); 256 MiB leaves room for batches of 10,000 long answers, and
#: a frame past it is damage (a decompression bomb is cut off like a torn frame).
FRAME_MAX_BYTES = 256 << 20
#: How long a writer waits for another one to finish its batch on the same shard.
SHARD_LOCK_TIMEOUT_S = 900.0

try:  # optional: faster and smaller than gzip
    import zstandard as _zstd  # type: ignore[import-not-found,unused-ignore]
except ModuleNotFoundError:  # pragma: no cover - depends on the environment
    _zstd = None


def default_codec() -> str:
    return "zstd" if _zstd is not None else "gzip"


def _compress(data: bytes, codec: str) -> bytes:
    if codec == "zstd" and _zstd is not None:
        return bytes(_zstd.ZstdCompressor(level=3).compress(data))
    return gzip.compress(data, compresslevel=6, mtime=0)


@dataclass(frozen=True)
class Frame:
    """One batch: its header (``batch`` number and more) and its answer records."""

    header: dict[str, Any]
    records: list[dict[str, Any]]


@dataclass(frozen=True)
class ShardScan:
    """The intact frames of a shard; ``good_bytes`` < ``size`` means a damaged tail."""

    path: Path
    frames: list[Frame]
    good_bytes: int
    size: int

    @property
    def damaged(self) -> bool:
        return self.good_bytes < self.size


def encode_frame(header: dict[str, Any], records: Sequence[dict[str, Any]], codec: str) -> bytes:
    head = json.dumps({**header, "codec": codec}, ensure_ascii=False, sort_keys=True).encode()
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    payload = _compress(lines.encode("utf-8"), codec)
    crc = zlib.crc32(payload, zlib.crc32(head))
    return _PREFIX.pack(MAGIC, len(head), len(payload), crc) + head + payload


def append_frame(
    path: Path, header: dict[str, Any], records: Sequence[dict[str, Any]], codec: str | None = None
) -> None:
    """Append one frame and make it durable before returning (so a batch is done or absent)."""
    blob = encode_frame(header, records, codec or default_codec())
    append_bytes(path, blob)


def _frames(raw: bytes, where: str) -> Iterator[tuple[int, Frame]]:
    """(end offset, frame) for each intact frame from the start; stops at the first damage."""
    offset = 0
    while offset + _PREFIX.size <= len(raw):
        magic, head_len, body_len, crc = _PREFIX.unpack_from(raw, offset)
        start = offset + _PREFIX.size
        end = start + head_len + body_len
        if magic != MAGIC or head_len > _MAX_PART or body_len > _MAX_PART or end > len(raw):
            return
        head, body = raw[start : start + head_len], raw[start + head_len : end]
        if zlib.crc32(body, zlib.crc32(head)) != crc:
            return
        try:
            header = parse_object(head.decode("utf-8"), f"{where}: frame header")
            codec = str(header.get("codec", "gzip"))
            text = decompress_bounded(
                body, codec, limit=FRAME_MAX_BYTES, where=where, what="one batch of answers"
            )
            records = [record for _, record in parse_lines(text, where)]
        except (InputError, ValueError):
            return
        yield end, Frame(header=header, records=records)
        offset = end


def scan_shard(path: Path) -> ShardScan:
    raw = read_bytes(path)  # a regular file only, within its bound; else one line
    frames: list[Frame] = []
    good = 0
    for end, frame in _frames(raw, str(path)):
        frames.append(frame)
        good = end
    return ShardScan(path=path, frames=frames, good_bytes=good, size=len(raw))


def repair_shard(path: Path) -> ShardScan:
    """Scan and cut a damaged tail off, so that later appends follow the last good frame."""
    scan = scan_shard(path)
    if scan.damaged:
        truncate_to(path, scan.good_bytes)
    return scan


def shard_paths(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"shard-*{SHARD_SUFFIX}")) if folder.is_dir() else []


def shard_name(number: int) -> str:
    return f"shard-{number:05d}{SHARD_SUFFIX}"


@contextlib.asynccontextmanager
async def exclusive_shard(path: Path, timeout: float = SHARD_LOCK_TIMEOUT_S) -> AsyncIterator[None]:
    """Be the only writer of ``path`` while one batch is made and appended.

    One writer per shard keeps its frames whole and in batch order. The driver already gives
    a shard to one worker at a time; the lock covers what it cannot see: a worker of a
    killed driver still finishing its frame when the restarted driver's worker takes the
    shard, or two runs started on one work folder. The later writer waits (bounded by
    ``timeout``) and then finds the batch done. The lock is the store's one writer lock
    (``hyoka.store.writer_lock_async``), so two writers in one process exclude each other
    too. The shard is created (empty) if absent.
    """
    async with writer_lock_async(path, what="shard", timeout=timeout):
        path.parent.mkdir(parents=True, exist_ok=True)
        append_bytes(path, b"")  # the shard exists from its first lock on
        yield
