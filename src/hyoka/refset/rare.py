"""Stage 4: drop every answer holding a character n-gram seen only once in its question.

A 5-gram that occurs once among a million answers is, as the papers found, most often a
hallucinated number or a typo, and the answer carrying it goes. "Once" counts occurrences
with multiplicity: an answer generated twice (``count`` 2) makes all its n-grams common,
and an n-gram repeated inside one answer occurs twice.

Everything runs on flat numpy arrays, never a Python loop over characters. Answers are
taken in chunks of about ``chunk_chars`` characters, so memory is bounded by the table of
distinct n-grams, not by the number of answers:

1. the question's alphabet is collected, and each character gets a dense rank; when
   ``n`` ranks fit in 64 bits (an alphabet below 4,096 characters for n = 5) an n-gram's key
   is its ranks packed together, exact; otherwise a 64-bit hash of them (a collision can
   only make a rare n-gram look common, with probability about D²/2⁶⁵ for D distinct
   n-grams);
2. pass one: each chunk's keys are reduced to distinct keys (an n-gram seen twice in the
   chunk, or in an answer generated more than once, is entered twice) and merged into one
   sorted table whose runs of length one are the singletons;
3. pass two: each chunk's keys are looked up among the singletons (a bitmap of hashed
   singleton keys answers most windows at once; the rest by binary search), and an answer
   with any hit is dropped.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hyoka.pfgen import CodepointBatch, encode
from hyoka.refset.pool import Audit, PoolRecord

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_CODEPOINTS = 0x110000
_MIX = np.uint64(0x9E3779B97F4A7C15)
_FNV = np.uint64(0x100000001B3)
_BITMAP_BITS = 27  # 16 MiB: false positives stay a few percent for millions of singletons
DEFAULT_CHUNK_CHARS = 8_000_000


@dataclass(frozen=True)
class RareResult:
    """``keep[i]`` for every answer; for dropped ones the offset of their first rare n-gram."""

    keep: BoolArray
    first_rare: dict[int, int]
    distinct: int
    singletons: int
    exact: bool


def _chunks(texts: Sequence[str], chunk_chars: int) -> Iterator[tuple[int, int]]:
    start, size = 0, 0
    for i, text in enumerate(texts):
        size += len(text)
        if size >= chunk_chars:
            yield start, i + 1
            start, size = i + 1, 0
    if start < len(texts):
        yield start, len(texts)


class _Keyer:
    """Keys of every n-gram window of a batch: exact packed ranks, or a 64-bit hash."""

    def __init__(self, texts: Sequence[str], n: int, chunk_chars: int) -> None:
        present = np.zeros(_CODEPOINTS, dtype=bool)
        for lo, hi in _chunks(texts, chunk_chars):
            present[encode(texts[lo:hi]).codepoints] = True
        alphabet = int(present.sum())
        self.bits = max(alphabet.bit_length(), 1)
        self.exact = n * self.bits <= 64
        self.rank = np.cumsum(present, dtype=np.uint32) * present.astype(np.uint32)
        self.n = n

    def windows(self, batch: CodepointBatch) -> tuple[U64, I64]:
        """(key, owner) of every window of n characters lying inside one string."""
        n, total = self.n, len(batch.codepoints)
        if total < n:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int64)
        ranks = self.rank[batch.codepoints].astype(np.uint64)
        count = total - n + 1
        key = np.zeros(count, dtype=np.uint64)
        shift = np.uint64(self.bits)
        for k in range(n):
            part = ranks[k : k + count]
            if self.exact:
                key <<= shift
                key |= part
            else:
                key ^= part
                key *= _FNV
        if not self.exact:
            key ^= key >> np.uint64(29)
            key *= _MIX
        valid = np.ones(total, dtype=bool)
        ends = batch.starts + batch.lengths
        for k in range(1, n):
            valid[ends[batch.lengths >= k] - k] = False
        starts = np.flatnonzero(valid[:count])
        return key[starts], batch.owner()[starts]


def _runs(sorted_keys: U64) -> tuple[U64, BoolArray]:
    """Distinct keys of a sorted array and whether each occurs more than once."""
    if len(sorted_keys) == 0:
        return sorted_keys, np.zeros(0, dtype=bool)
    new = np.empty(len(sorted_keys), dtype=bool)
    new[0] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, len(sorted_keys)))
    return sorted_keys[starts], lengths > 1


class _Table:
    """Distinct keys seen so far with a "more than once" flag, merged lazily."""

    def __init__(self) -> None:
        self.keys = np.zeros(0, dtype=np.uint64)
        self.multi = np.zeros(0, dtype=bool)
        self._pending: list[U64] = []
        self._pending_size = 0

    def add(self, keys: U64, heavy: BoolArray) -> None:
        distinct, repeated = _runs(np.sort(keys))
        if heavy.any():  # windows of answers generated more than once count twice
            heavy_keys = np.unique(keys[heavy])
            repeated |= np.isin(distinct, heavy_keys, assume_unique=True)
        self._pending += [distinct, distinct[repeated]]
        self._pending_size += len(distinct) + int(repeated.sum())
        if self._pending_size > max(len(self.keys), 1 << 24):
            self._merge()

    def _merge(self) -> None:
        if not self._pending:
            return
        parts = [self.keys, self.keys[self.multi], *self._pending]
        self.keys, self.multi = _runs(np.sort(np.concatenate(parts)))
        self._pending, self._pending_size = [], 0

    def singletons(self) -> U64:
        self._merge()
        return self.keys[~self.multi]


def _bitmap_index(keys: U64) -> I64:
    return ((keys * _MIX) >> np.uint64(64 - _BITMAP_BITS)).astype(np.int64)


def rare_ngram_filter(
    texts: Sequence[str],
    counts: Sequence[int] | None = None,
    n: int = 5,
    chunk_chars: int = DEFAULT_CHUNK_CHARS,
) -> RareResult:
    """Which answers hold no n-gram occurring once among all of them (with their counts)."""
    if n < 1:
        raise ValueError("n must be at least 1")
    multiplicity = np.ones(len(texts), dtype=np.int64)
    if counts is not None:
        multiplicity = np.asarray(counts, dtype=np.int64)
    keyer = _Keyer(texts, n, chunk_chars)
    table = _Table()
    for lo, hi in _chunks(texts, chunk_chars):
        keys, owner = keyer.windows(encode(texts[lo:hi]))
        table.add(keys, multiplicity[lo:hi][owner] > 1)
    single = table.singletons()
    bitmap = np.zeros(1 << _BITMAP_BITS, dtype=bool)
    bitmap[_bitmap_index(single)] = True
    keep = np.ones(len(texts), dtype=bool)
    first_rare: dict[int, int] = {}
    for lo, hi in _chunks(texts, chunk_chars):
        batch = encode(texts[lo:hi])
        keys, owner = keyer.windows(batch)
        maybe = np.flatnonzero(bitmap[_bitmap_index(keys)])
        if len(single) == 0 or len(maybe) == 0:
            continue
        pos = np.minimum(np.searchsorted(single, keys[maybe]), len(single) - 1)
        hit = maybe[single[pos] == keys[maybe]]
        if len(hit) == 0:
            continue
        owners, first = np.unique(owner[hit], return_index=True)
        keep[lo + owners] = False
        window_start = _window_starts(batch, owner, hit[first])
        for o, offset in zip(owners.tolist(), window_start.tolist(), strict=True):
            first_rare[lo + o] = offset
    return RareResult(keep, first_rare, len(table.keys), len(single), keyer.exact)


def _window_starts(batch: CodepointBatch, owner: I64, windows: I64) -> I64:
    """Offsets inside their answers of the given window indexes (enumerated in text order)."""
    counts = np.bincount(owner, minlength=batch.size)
    first_window = np.zeros(batch.size, dtype=np.int64)
    np.cumsum(counts[:-1], out=first_window[1:])
    return windows - first_window[owner[windows]]


def filter_rare(records: Sequence[PoolRecord], n: int, audit: Audit) -> list[PoolRecord]:
    """The stage; ``n`` = 0 turns it off (a pool too small for the statistics to mean much)."""
    audit.before = sum(r.count for r in records)
    if n == 0:
        audit.note("filter off (n = 0)")
        audit.after = audit.before
        return list(records)
    result = rare_ngram_filter([r.text for r in records], [r.count for r in records], n)
    kept = [r for r, k in zip(records, result.keep.tolist(), strict=True) if k]
    dropped = [i for i, k in enumerate(result.keep.tolist()) if not k]
    removed = [records[i] for i in dropped]
    audit.removed(
        f"contains a {n}-gram occurring once",
        removed,
        rare_ngrams=[records[i].text[result.first_rare[i] :][:n] for i in dropped[:5]],
    )
    audit.after = sum(r.count for r in kept)
    audit.stats = {
        "n": n,
        "distinct_ngrams": result.distinct,
        "singleton_ngrams": result.singletons,
        "exact_keys": result.exact,
    }
    return kept
