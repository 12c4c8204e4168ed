"""Strings as one flat array of code points, so n-gram work runs in numpy, not per character.

A batch of strings becomes a single ``uint32`` array plus each string's start and length.
Lone surrogates (legal in JSON, and so in model output) are kept as their own code points
rather than rejected: the reference scorer treats them as ordinary characters, and so must we.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    U32Array = npt.NDArray[np.uint32]
    I64Array = npt.NDArray[np.int64]
else:
    from hyoka._lazy_numpy import numpy as np


#: Code points fit in 21 bits; n-gram keys pack an id and one code point into a uint64.
CODEPOINT_BITS = 21


@dataclass(frozen=True)
class CodepointBatch:
    """Several strings laid end to end; ``starts[i]:starts[i]+lengths[i]`` is string i."""

    codepoints: U32Array
    starts: I64Array
    lengths: I64Array

    @property
    def size(self) -> int:
        return len(self.lengths)

    def owner(self) -> I64Array:
        """For every code point, the index of the string it belongs to."""
        return np.repeat(np.arange(self.size, dtype=np.int64), self.lengths)

    def remaining(self) -> I64Array:
        """For every code point, how many characters of its string start there (itself included)."""
        ends = self.starts + self.lengths
        positions = np.arange(len(self.codepoints), dtype=np.int64)
        return np.repeat(ends, self.lengths) - positions

    def local_positions(self) -> I64Array:
        """For every code point, its offset inside its own string."""
        positions = np.arange(len(self.codepoints), dtype=np.int64)
        return positions - np.repeat(self.starts, self.lengths)


def encode(texts: Sequence[str]) -> CodepointBatch:
    joined = "".join(texts)
    raw = joined.encode("utf-32-le", "surrogatepass")
    codepoints = np.frombuffer(raw, dtype=np.uint32)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    starts = np.zeros(len(texts), dtype=np.int64)
    if len(texts) > 1:
        np.cumsum(lengths[:-1], out=starts[1:])
    return CodepointBatch(codepoints=codepoints, starts=starts, lengths=lengths)
