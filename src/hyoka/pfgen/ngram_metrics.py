"""Fluency and Truthfulness of many answers against one reference set, as array operations.

Both metrics walk an answer character by character in the reference implementation. Here
each walk is a row of a matrix (one row per answer, one column per character), and the
running sums are ``cumsum`` along rows. Row-wise ``cumsum`` adds left to right exactly as the
reference's loop does, so every float is bit-identical to it (pfgen-spec.md §3).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

from hyoka.pfgen._codepoints import CodepointBatch, encode
from hyoka.pfgen.ngram_index import MAX_NGRAM, NgramIndex, search_sorted_keys, window_keys

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    F64Array = npt.NDArray[np.float64]
else:
    from hyoka._lazy_numpy import numpy as np

#: Characters of an answer that Fluency looks at.
FLUENCY_WINDOW = 200
#: Characters of the wrapped answer ``^answer$`` that Truthfulness looks at.
TRUTHFULNESS_WINDOW = 202
TRUTHFULNESS_NGRAM = 3
#: Characters Truthfulness skips: the wrap markers and Japanese punctuation.
TRUTHFULNESS_SKIPPED = "^$、。・「」『』（）【】［］〈〉《》"
#: Below this document share a 3-gram already counts fully (0.5%).
TRUTHFULNESS_SATURATION = 200.0


def _most_discounted_grams() -> float:
    """The largest ``D(L) * d(L)`` over prefix lengths L: a prefix of L characters holds at
    most ``D(L) = sum(L - n + 1 for n = 1..10)`` distinct n-grams, and ``d`` discounts
    prefixes longer than 100 (955, at L = 100)."""
    return max(
        sum(max(length - n + 1, 0) for n in range(1, MAX_NGRAM + 1))
        * (1 - max(length - 100, 0) / 50)
        for length in range(1, FLUENCY_WINDOW + 1)
    )


_MOST_DISCOUNTED_GRAMS = _most_discounted_grams()


def fluency_ceiling(num_answers: int, baseline: float) -> float:
    """The largest Fluency any answer can have against a set of ``num_answers`` answers
    with this baseline: each distinct n-gram of a prefix adds at most ``num_answers`` (its
    document frequency). Truthfulness lies in [0, 1] by its definition; a value outside
    its range can only come from a damaged index (``QuestionScorer.measure`` refuses it)."""
    return _MOST_DISCOUNTED_GRAMS * num_answers / baseline


def length_discount(lengths: npt.NDArray[np.int64]) -> F64Array:
    """``1 - max(L - 100, 0) / 50``: full value up to 100 characters, zero at 150."""
    return 1 - np.maximum(lengths - 100, 0) / 50


def fluency_values(index: NgramIndex, answers: Sequence[str], baseline: float) -> F64Array:
    """Best ``S(L) · d(L) / baseline`` over prefix lengths L, per answer (0.0 if none > 0).

    ``S(L)`` sums the document frequencies of the distinct n-grams of the first L characters.
    With ``baseline=1.0`` this is the unnormalised value the baseline itself averages.
    """
    texts = [a[:FLUENCY_WINDOW] for a in answers]
    chunk = 1 << index.spare_bits(_POSITION_BITS)
    parts = [
        _best_prefix_values(index, encode(texts[i : i + chunk]), baseline)
        for i in range(0, len(texts), chunk)
    ]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.float64)


_POSITION_BITS = (FLUENCY_WINDOW - 1).bit_length()


def _best_prefix_values(index: NgramIndex, batch: CodepointBatch, baseline: float) -> F64Array:
    rows, width = batch.size, FLUENCY_WINDOW
    gained = _first_occurrence_gains(index, batch).reshape(rows, width)
    totals = np.cumsum(gained, axis=1)
    prefix_lengths = np.arange(1, width + 1, dtype=np.int64)
    values = totals * length_discount(prefix_lengths)[None, :] / baseline
    in_answer = prefix_lengths[None, :] <= batch.lengths[:, None]
    best = np.max(np.where(in_answer, values, -np.inf), axis=1, initial=-np.inf)
    return np.where(best > 0.0, best, 0.0)


def _first_occurrence_gains(index: NgramIndex, batch: CodepointBatch) -> F64Array:
    """Per (answer, prefix length): the df gained by n-grams first seen ending there.

    Windows of one length are packed as ``key | answer | offset`` and sorted once: runs of
    equal keys are one n-gram (looked up once, with sorted queries), and the first window of
    each (key, answer) run is that n-gram's first occurrence in that answer.
    """
    rows, width = batch.size, FLUENCY_WINDOW
    if len(batch.codepoints) == 0:
        return np.zeros(rows * width, dtype=np.float64)
    owner = batch.owner().astype(np.uint64)
    local = batch.local_positions().astype(np.uint64)
    remaining = batch.remaining()
    owner_bits = max((rows - 1).bit_length(), 1)
    position_shift = np.uint64(_POSITION_BITS)
    key_shift = np.uint64(_POSITION_BITS + owner_bits)
    position_mask = np.uint64((1 << _POSITION_BITS) - 1)
    tag = (owner << position_shift) | local
    cells: list[npt.NDArray[np.int64]] = []
    gains: list[npt.NDArray[np.int64]] = []
    prefix_ids = np.full(len(batch.codepoints), -1, dtype=np.int64)
    for n in range(1, index.max_n + 1):
        if n == 1:
            starts = np.flatnonzero(remaining >= 1)
        else:
            starts = np.flatnonzero((remaining >= n) & (prefix_ids >= 0))
        if len(starts) == 0:
            break
        packed = (window_keys(batch, starts, n, prefix_ids) << key_shift) | tag[starts]
        packed.sort()
        keys = packed >> key_shift
        new_key = np.empty(len(packed), dtype=bool)
        new_key[0] = True
        np.not_equal(keys[1:], keys[:-1], out=new_key[1:])
        found = search_sorted_keys(index.keys[n - 1], keys[new_key])
        ids = found[np.cumsum(new_key) - 1]
        tags = packed & ((np.uint64(1) << key_shift) - np.uint64(1))
        owners = (tags >> position_shift).astype(np.int64)
        offsets = (tags & position_mask).astype(np.int64)
        prefix_ids = np.full(len(batch.codepoints), -1, dtype=np.int64)
        prefix_ids[batch.starts[owners] + offsets] = ids
        first = np.empty(len(packed), dtype=bool)
        first[0] = True
        np.not_equal(owners[1:], owners[:-1], out=first[1:])
        first |= new_key
        take = first & (ids >= 0)
        cells.append(owners[take] * width + offsets[take] + (n - 1))
        gains.append(index.df[n - 1][ids[take]])
    return np.bincount(
        np.concatenate(cells), weights=np.concatenate(gains), minlength=rows * width
    ).astype(np.float64)


def truthfulness_values(index: NgramIndex, answers: Sequence[str]) -> F64Array:
    """Per answer: the discounted running mean of per-character 3-gram support (spec §3)."""
    wrapped = [f"^{a[: TRUTHFULNESS_WINDOW - 1]}$"[:TRUTHFULNESS_WINDOW] for a in answers]
    batch = encode(wrapped)
    rows, width = batch.size, TRUTHFULNESS_WINDOW
    support = _covering_support(index, batch)
    owner = batch.owner()
    local = batch.local_positions()
    cell = owner * width + local

    flat_share = np.zeros(rows * width, dtype=np.float64)
    flat_share[cell] = np.minimum(1.0, support / index.num_answers * TRUTHFULNESS_SATURATION)
    flat_counted = np.zeros(rows * width, dtype=bool)
    flat_counted[cell] = ~np.isin(batch.codepoints, _skipped_codepoints())
    share = np.where(flat_counted, flat_share, 0.0).reshape(rows, width)
    counted = flat_counted.reshape(rows, width)

    totals = np.cumsum(share, axis=1)
    counts = np.cumsum(counted, axis=1)
    columns = np.arange(width, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        running = totals / counts * length_discount(columns)[None, :]
    late = counted & (columns[None, :] >= 100)
    best = np.max(np.where(late, running, -np.inf), axis=1, initial=-np.inf)
    best = np.where(best > 0.0, best, 0.0)
    any_counted = counts[:, -1] > 0
    last_column = width - 1 - np.argmax(counted[:, ::-1], axis=1)
    last = np.where(any_counted, running[np.arange(rows), last_column], 0.0)
    return np.where(last > best, last, best)


@cache
def _skipped_codepoints() -> npt.NDArray[np.uint32]:
    return np.array([ord(c) for c in TRUTHFULNESS_SKIPPED], dtype=np.uint32)


def _covering_support(index: NgramIndex, batch: CodepointBatch) -> npt.NDArray[np.int64]:
    """Per character: the largest document frequency of the known 3-grams covering it."""
    levels = index.lookup(batch, TRUTHFULNESS_NGRAM)
    if len(levels) < TRUTHFULNESS_NGRAM:
        return np.zeros(len(batch.codepoints), dtype=np.int64)
    starting_here = index.frequencies(TRUTHFULNESS_NGRAM, levels[-1])
    support = starting_here.copy()
    for shift in range(1, TRUTHFULNESS_NGRAM):
        np.maximum(support[shift:], starting_here[:-shift], out=support[shift:])
    return support
