"""One trie per question over all of its reference sets: the layout the compiled kernel walks.

Scoring an answer walks, from each of its positions, the n-grams that start there, one
character at a time. Against K separate indexes that is K walks; here one walk serves every
set. Every n-gram (n = 1..10) present in any set is a node, and each node keeps one document
frequency per set (0 where that set lacks it). A set's own walk stops at its first miss, and
every extension of a missing n-gram is missing too, so reading 0 past that point gives the
numbers of the separate walks exactly.

The trie is derived from the sets' ``NgramIndex`` arrays (same n-grams, same frequencies, so
the same numbers by construction) and laid out as one ``uint32`` table, one row per node:
``[code point, first child, df of set 0, ..., df of set K-1]``. Nodes are numbered level by
level, the root first; inside a level they are sorted by (parent, code point), so a node's
children are the rows ``first_child[node] .. first_child[node + 1]`` (a last, sentinel row
closes the range) and are found by binary search on their code points. Nothing is hashed, so
the table is a pure function of the indexes, and building it needs no compiler: the index
cache stores it whichever engine runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hyoka.pfgen._codepoints import CODEPOINT_BITS

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from hyoka.pfgen._codepoints import U32Array
    from hyoka.pfgen.ngram_index import NgramIndex
else:
    from hyoka._lazy_numpy import numpy as np

#: Columns of a node row before the document frequencies.
CODEPOINT_COLUMN = 0
FIRST_CHILD_COLUMN = 1
DF_COLUMNS_START = 2

_CODEPOINT_MASK = (1 << CODEPOINT_BITS) - 1


@dataclass(frozen=True)
class QuestionTrie:
    """All reference sets of one question as one trie (module docstring).

    ``table`` has one row per node plus the sentinel row: a numpy array where the trie was
    built, a 2-D ``uint32`` memoryview of the mapped cache file where it was loaded (what
    the kernel walks, with no numpy in the process); ``nodes`` is the same rows as numpy.
    ``num_answers[k]`` is set k's size.
    """

    table: U32Array | memoryview
    num_answers: tuple[int, ...]

    @property
    def nodes(self) -> U32Array:
        return np.asarray(self.table, dtype=np.uint32)

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled (or deep-copied) as a numpy table: a memoryview of a mapping cannot be."""
        return QuestionTrie, (self.nodes, self.num_answers)

    @property
    def set_count(self) -> int:
        return len(self.num_answers)

    @property
    def node_count(self) -> int:
        return len(self.table) - 1

    @classmethod
    def build(cls, indexes: Sequence[NgramIndex]) -> QuestionTrie:
        sets = len(indexes)
        levels: list[tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]] = []
        ranks: list[npt.NDArray[np.uint64]] = [np.zeros(0, dtype=np.uint64)] * sets
        for n in range(1, max((i.max_n for i in indexes), default=0) + 1):
            parts = [_combined_keys(index, n, ranks[k]) for k, index in enumerate(indexes)]
            union, inverse = np.unique(np.concatenate(parts), return_inverse=True)
            df = np.zeros((len(union), sets), dtype=np.uint32)
            start = 0
            for k, (index, part) in enumerate(zip(indexes, parts, strict=True)):
                ranks[k] = inverse[start : start + len(part)].astype(np.uint64)
                if len(part):
                    df[ranks[k].astype(np.int64), k] = index.df[n - 1]
                start += len(part)
            if len(union) == 0:
                break
            levels.append((union, df))
        return cls(_node_table(levels, sets), tuple(i.num_answers for i in indexes))


@dataclass(frozen=True)
class TrieColumn:
    """A reference set's place in its question's trie: the trie and the set's df column."""

    trie: QuestionTrie
    column: int


def _combined_keys(
    index: NgramIndex, n: int, prefix_ranks: npt.NDArray[np.uint64]
) -> npt.NDArray[np.uint64]:
    """Set-local keys of level n re-keyed by the combined rank of their prefix."""
    if n > index.max_n:
        return np.zeros(0, dtype=np.uint64)
    keys = index.keys[n - 1]
    if n == 1:
        return keys
    local_prefix = (keys >> np.uint64(CODEPOINT_BITS)).astype(np.int64)
    low = keys & np.uint64(_CODEPOINT_MASK)
    return (prefix_ranks[local_prefix] << np.uint64(CODEPOINT_BITS)) | low


def _node_table(
    levels: list[tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]], sets: int
) -> U32Array:
    starts = np.cumsum([1] + [len(keys) for keys, _ in levels], dtype=np.int64)
    total = int(starts[-1])
    if total >= 1 << 32:
        raise ValueError("question too large for a 32-bit trie")
    table = np.zeros((total + 1, DF_COLUMNS_START + sets), dtype=np.uint32)
    table[0, FIRST_CHILD_COLUMN] = 1
    table[total, FIRST_CHILD_COLUMN] = total
    for depth, (keys, df) in enumerate(levels):
        rows = slice(int(starts[depth]), int(starts[depth + 1]))
        table[rows, CODEPOINT_COLUMN] = keys & np.uint64(_CODEPOINT_MASK)
        table[rows, DF_COLUMNS_START:] = df
        if depth + 1 < len(levels):
            parents = levels[depth + 1][0] >> np.uint64(CODEPOINT_BITS)
            ranks = np.arange(len(keys), dtype=np.uint64)
            first = np.searchsorted(parents, ranks, side="left") + starts[depth + 1]
        else:
            first = np.full(len(keys), total, dtype=np.int64)
        table[rows, FIRST_CHILD_COLUMN] = first
    return table
