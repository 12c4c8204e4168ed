"""Document frequencies of every short substring of a reference answer set, built in numpy.

pfgen-bench needs, for each reference set, ``df(g)``: how many of its answers contain the
substring ``g`` (1 to 10 characters). A Python dict of every substring is what the reference
implementation builds, and it is slow to build and slow to load. Here n-grams get exact
integer ids by prefix extension instead: the id of an n-gram is its rank among the set's
distinct n-grams, and an n-gram is keyed by ``(id of its first n-1 characters, last code
point)`` packed into one uint64. Sorting those keys gives the next level's ids, and looking a
query n-gram up is a binary search per level. No hashing, so no collisions: the numbers are
exact, which leaderboard parity needs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hyoka.pfgen._codepoints import CODEPOINT_BITS, CodepointBatch, encode

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from hyoka.pfgen._codepoints import I64Array

    U64Array = npt.NDArray[np.uint64]
else:
    from hyoka._lazy_numpy import numpy as np

#: Longest substring that takes part in Fluency (and so in the index).
MAX_NGRAM = 10


@dataclass(frozen=True)
class NgramIndex:
    """One reference set: sorted n-gram keys per length, their document frequencies.

    ``keys[n - 1]`` holds the sorted keys of the distinct n-grams; position in that array is
    the n-gram's id, and ``df[n - 1]`` at that position is its document frequency.
    """

    keys: tuple[U64Array, ...]
    df: tuple[npt.NDArray[np.integer[Any]], ...]
    num_answers: int

    @property
    def max_n(self) -> int:
        return len(self.keys)

    def spare_bits(self, reserved: int) -> int:
        """Bits left in a uint64 beside any n-gram key of this index and ``reserved`` bits.

        Callers pack (key, row, offset) into one integer; this bounds how many rows a batch
        may have so that the packing stays exact.
        """
        widest = max((len(k) for k in self.keys), default=1)
        key_bits = CODEPOINT_BITS + max(widest.bit_length(), 1)
        spare = 64 - key_bits - reserved
        if spare < 1:
            raise ValueError("reference set too large to index exactly in 64-bit keys")
        return min(spare, 20)

    @classmethod
    def build(cls, answers: Sequence[str], max_n: int = MAX_NGRAM) -> NgramIndex:
        batch = encode(answers)
        owner = batch.owner()
        remaining = batch.remaining()
        owner_bits = max(len(answers).bit_length(), 1)
        keys: list[U64Array] = []
        dfs: list[I64Array] = []
        ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
        for n in range(1, max_n + 1):
            starts = np.flatnonzero(remaining >= n)
            keys_here = window_keys(batch, starts, n, ids_at)
            distinct, window_ids, df = _rank_with_df(keys_here, owner[starts], owner_bits)
            keys.append(distinct)
            dfs.append(df)
            ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
            ids_at[starts] = window_ids
        return cls(keys=tuple(keys), df=tuple(dfs), num_answers=len(answers))

    def lookup(self, batch: CodepointBatch, max_n: int | None = None) -> list[I64Array]:
        """Ids of the n-grams starting at every position of ``batch``, for n = 1..max_n.

        Entry ``[n - 1][p]`` is the id of the n-gram starting at code point p, or -1 where
        that n-gram is not in the set or would run past the end of its string.
        """
        top = self.max_n if max_n is None else min(max_n, self.max_n)
        remaining = batch.remaining()
        levels: list[I64Array] = []
        ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
        for n in range(1, top + 1):
            if n == 1:
                starts = np.flatnonzero(remaining >= 1)
            else:
                starts = np.flatnonzero((remaining >= n) & (ids_at >= 0))
            found = search_sorted_keys(self.keys[n - 1], window_keys(batch, starts, n, ids_at))
            ids_at = np.full(len(batch.codepoints), -1, dtype=np.int64)
            ids_at[starts] = found
            levels.append(ids_at)
        return levels

    def frequencies(self, n: int, ids: I64Array) -> I64Array:
        """Document frequencies for ids of level n; 0 where the id is -1 (absent)."""
        table = self.df[n - 1]
        out = np.zeros(len(ids), dtype=np.int64)
        present = ids >= 0
        out[present] = table[ids[present]]
        return out

    def to_arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        arrays: dict[str, npt.NDArray[np.generic]] = {
            "num_answers": np.array([self.num_answers], dtype=np.int64)
        }
        for n, (k, d) in enumerate(zip(self.keys, self.df, strict=True), start=1):
            arrays[f"keys_{n}"] = k
            arrays[f"df_{n}"] = d.astype(np.int32)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, npt.NDArray[np.generic]]) -> NgramIndex:
        max_n = sum(1 for name in arrays if name.startswith("keys_"))
        keys = tuple(np.asarray(arrays[f"keys_{n}"], dtype=np.uint64) for n in range(1, max_n + 1))
        dfs = tuple(np.asarray(arrays[f"df_{n}"]) for n in range(1, max_n + 1))
        return cls(keys=keys, df=dfs, num_answers=int(arrays["num_answers"][0]))


def window_keys(batch: CodepointBatch, starts: I64Array, n: int, prefix_ids: I64Array) -> U64Array:
    last = batch.codepoints[starts + (n - 1)].astype(np.uint64)
    if n == 1:
        return last
    prefix = prefix_ids[starts].astype(np.uint64)
    return (prefix << np.uint64(CODEPOINT_BITS)) | last


def search_sorted_keys(sorted_keys: U64Array, queries: U64Array) -> I64Array:
    if len(sorted_keys) == 0:
        return np.full(len(queries), -1, dtype=np.int64)
    pos = np.searchsorted(sorted_keys, queries)
    clipped = np.minimum(pos, len(sorted_keys) - 1)
    hit = sorted_keys[clipped] == queries
    return np.where(hit, clipped, -1).astype(np.int64)


def _rank_with_df(
    keys: U64Array, owners: I64Array, owner_bits: int
) -> tuple[U64Array, I64Array, I64Array]:
    """Distinct keys (sorted), each window's rank among them, and each key's document count.

    One sort of ``(key, owner)`` pairs gives all three: runs of equal keys are the distinct
    n-grams, and the distinct pairs inside a run are the answers that contain it.
    """
    if len(keys) == 0:
        empty_u = np.zeros(0, dtype=np.uint64)
        empty_i = np.zeros(0, dtype=np.int64)
        return empty_u, empty_i, empty_i
    key_bits = int(keys.max()).bit_length()
    if key_bits + owner_bits <= 64:
        packed = (keys << np.uint64(owner_bits)) | owners.astype(np.uint64)
        pairs, inverse = np.unique(packed, return_inverse=True)
        pair_keys = pairs >> np.uint64(owner_bits)
    else:  # very large sets: rank the keys first, then pair the ranks with their owners
        ranked, key_inverse = np.unique(keys, return_inverse=True)
        packed = (key_inverse.astype(np.uint64) << np.uint64(owner_bits)) | owners.astype(np.uint64)
        pairs, inverse = np.unique(packed, return_inverse=True)
        pair_keys = ranked[(pairs >> np.uint64(owner_bits)).astype(np.int64)]
    new_key = np.empty(len(pairs), dtype=bool)
    new_key[0] = True
    np.not_equal(pair_keys[1:], pair_keys[:-1], out=new_key[1:])
    rank_of_pair = np.cumsum(new_key, dtype=np.int64) - 1
    distinct = pair_keys[new_key]
    run_starts = np.flatnonzero(new_key)
    df = np.diff(np.append(run_starts, len(pairs))).astype(np.int64)
    return distinct, rank_of_pair[inverse.reshape(-1)], df
