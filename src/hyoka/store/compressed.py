"""Bounded decompression: the one way hyoka inflates xz, gzip and zstd data.

A compressed file is input, and input may be hostile: 700 KB of xz inflates to 4 GiB of
zeros, and ``lzma.decompress`` would try to hold all of it. Every compressed file or frame
is inflated here as a stream, in chunks, and refused with one line naming the file as soon
as its output passes a bound the caller derives from the format (how many records of what
size such a file can hold), before that output is ever held in memory. The bound is checked
on the decompressor's output (``max_length``), so memory stays within one chunk of it
whatever the compressed input says about itself.
"""

from __future__ import annotations

import hashlib
import lzma
import zlib
from pathlib import Path
from typing import Any

from hyoka.errors import HyokaError, InputError
from hyoka.store.regular import open_regular

_CHUNK = 1 << 20


class TooLargeError(InputError):
    """Compressed data that inflates past its format's bound (a decompression bomb?)."""


class CodecMissingError(HyokaError):
    """Data in a codec whose optional package is not installed (not damage: install it)."""


try:  # optional (refset shards written where it is installed use it)
    import zstandard as _zstd  # type: ignore[import-not-found,unused-ignore]
except ModuleNotFoundError:  # pragma: no cover - depends on the environment
    _zstd = None


def _new(codec: str) -> Any:
    if codec == "xz":
        return lzma.LZMADecompressor()
    if codec == "gzip":
        return zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    raise ValueError(f"unknown codec {codec!r}")


def codec_of(path: Path) -> str | None:
    """``xz``/``gzip`` from the file name, or ``None`` for a plain file."""
    if path.name.endswith(".xz"):
        return "xz"
    if path.name.endswith(".gz"):
        return "gzip"
    return None


def _too_large(where: str, limit: int, what: str) -> TooLargeError:
    return TooLargeError(
        f"{where}: inflates past {limit:,} bytes, more than {what} can hold; refused "
        "unread (a damaged or hostile file?)"
    )


class _Inflater:
    """Feeds compressed chunks to a (multi-member) stream, keeping the output in bounds."""

    def __init__(self, codec: str, limit: int, where: str, what: str) -> None:
        self.codec, self.limit, self.where, self.what = codec, limit, where, what
        self.decompressor = _new(codec)
        self.parts: list[bytes] = []
        self.size = 0

    def feed(self, data: bytes) -> None:
        """Inflate ``data`` in steps of at most one chunk of output, never past one byte
        beyond the bound, so the output held never exceeds the bound by more than that."""
        while True:
            if data and self.decompressor.eof:  # a stream ended with the chunk before
                self.decompressor = _new(self.codec)
            inflater = self.decompressor
            try:
                out = inflater.decompress(data, min(self.limit - self.size + 1, _CHUNK))
            except (lzma.LZMAError, zlib.error, EOFError) as exc:
                raise InputError(f"{self.where}: corrupt {self.codec} data ({exc})") from None
            self._take(out)
            if inflater.eof:
                data = inflater.unused_data
                if not data:
                    return
                self.decompressor = _new(self.codec)  # concatenated streams (xz, gzip)
            elif isinstance(inflater, lzma.LZMADecompressor):
                if inflater.needs_input:
                    return
                data = b""  # output held back by max_length: drain it
            else:
                data = inflater.unconsumed_tail
                if not data:
                    return

    def _take(self, out: bytes) -> None:
        self.size += len(out)
        if self.size > self.limit:
            raise _too_large(self.where, self.limit, self.what)
        if out:
            self.parts.append(out)

    def finish(self) -> bytes:
        if not self.decompressor.eof:
            raise InputError(f"{self.where}: corrupt {self.codec} data (truncated)")
        return b"".join(self.parts)


def decompress_bounded(data: bytes, codec: str, *, limit: int, where: str, what: str) -> bytes:
    """``data`` (``xz``, ``gzip`` or ``zstd``) inflated, or ``TooLargeError`` once the output passes
    ``limit`` bytes (``what`` says what could not be that large, for the message)."""
    if codec == "zstd":
        return _zstd_bounded(data, limit=limit, where=where, what=what)
    inflater = _Inflater(codec, limit, where, what)
    for start in range(0, len(data), _CHUNK):
        inflater.feed(data[start : start + _CHUNK])
    return inflater.finish()


def _zstd_bounded(data: bytes, *, limit: int, where: str, what: str) -> bytes:
    if _zstd is None:
        raise CodecMissingError(f"{where}: zstd-compressed; pip install zstandard to read it")
    parts: list[bytes] = []
    size = 0
    try:
        with _zstd.ZstdDecompressor().stream_reader(data) as reader:
            while chunk := reader.read(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise _too_large(where, limit, what)
                parts.append(chunk)
    except _zstd.ZstdError as exc:
        raise InputError(f"{where}: corrupt zstd data ({exc})") from None
    return b"".join(parts)


def read_decompressed(
    path: Path, *, limit: int, what: str, digest: Any = None, codec: str | None = None
) -> bytes:
    """The content of compressed ``path`` (codec from its name unless given), read and
    inflated as a stream within ``limit`` bytes; ``digest`` (a ``hashlib`` object), when
    given, is fed the compressed bytes on the way. ``InputError`` naming the file otherwise."""
    chosen = codec or codec_of(path)
    if chosen is None:
        raise ValueError(f"{path}: not a compressed file name")
    inflater = _Inflater(chosen, limit, str(path), what)
    try:
        # a FIFO is not waited on; the compressed bytes are bounded as well as what they
        # inflate to (xz and gzip add well under 1/64 to data they cannot compress)
        with open_regular(path, limit=limit + (limit >> 6) + _CHUNK, what=what) as handle:
            while chunk := handle.read(_CHUNK):
                if digest is not None:
                    digest.update(chunk)
                inflater.feed(chunk)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return inflater.finish()


def sha1_and_content(path: Path, *, limit: int, what: str) -> tuple[str, bytes]:
    """``read_decompressed`` with the SHA-1 of the compressed bytes (a run's input hash)."""
    digest = hashlib.sha1()
    content = read_decompressed(path, limit=limit, what=what, digest=digest)
    return digest.hexdigest(), content
