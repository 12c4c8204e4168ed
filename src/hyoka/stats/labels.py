"""The label table every agreement statistic works on: items × label sets, as codes.

Pairwise verdicts are the letters of seed 001: A (first wins), B (second wins), C (tie).
An automatic method may also give no valid verdict (bs1 when the two orders disagree):
that is the code ``INVALID``, which never equals a human label and so counts as a miss.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.bootstrap import IntArray

LETTERS = ("A", "B", "C")
INVALID = 3
#: Column names of a confusion matrix: the three letters, then "invalid".
VERDICT_NAMES = (*LETTERS, "invalid")
#: ``orders`` values: the two orders agree / disagree / unknown for this item.
AGREE, DISAGREE, UNKNOWN = 1, 0, -1
#: What the first-wins letter becomes when the two answers are shown the other way round
#: (the one home of this mapping: judging, agreement and the report all read it here).
MIRROR = {"A": "B", "B": "A", "C": "C"}


def letter_code(letter: str) -> int:
    """Code of a verdict letter; raises a ValueError for anything but A, B, C."""
    return LETTERS.index(letter)


@dataclass
class LabelTable:
    """Labels of the same items by human raters and by automatic methods.

    ``human[rater]`` holds codes 0..2 for every item; ``auto[method]`` holds 0..2 or
    ``INVALID``; ``orders[method]`` (optional) says per item whether the method's two
    presentation orders agreed (``AGREE``/``DISAGREE``/``UNKNOWN``).
    """

    items: list[str]
    categories: list[str | None]
    human: dict[str, IntArray] = field(default_factory=dict)
    auto: dict[str, IntArray] = field(default_factory=dict)
    orders: dict[str, IntArray] = field(default_factory=dict)
    #: optional resampling unit per item (e.g. the question a pair belongs to)
    groups: list[str] | None = None

    def __post_init__(self) -> None:
        n = len(self.items)
        if len(self.categories) != n:
            raise InputError("label table: one category entry per item is required")
        if self.groups is not None and len(self.groups) != n:
            raise InputError("label table: one group entry per item is required")
        for name, codes in {**self.human, **self.auto, **self.orders}.items():
            if codes.shape != (n,):
                raise InputError(f"label set {name!r}: {codes.shape[0]} labels for {n} items")
        if not n:
            raise InputError("no items to compare")
        if not self.human and len(self.auto) < 2:
            raise InputError("need human labels or at least two automatic label sets")

    @property
    def size(self) -> int:
        return len(self.items)

    def subset(self, keep: IntArray) -> LabelTable:
        """The table restricted to the items at these positions (a category, say)."""
        return LabelTable(
            items=[self.items[i] for i in keep],
            categories=[self.categories[i] for i in keep],
            human={k: v[keep] for k, v in self.human.items()},
            auto={k: v[keep] for k, v in self.auto.items()},
            orders={k: v[keep] for k, v in self.orders.items()},
            groups=None if self.groups is None else [self.groups[i] for i in keep],
        )

    def group_codes(self) -> IntArray:
        """Each item's group as 0..G-1 (each item its own group when there are none)."""
        if self.groups is None:
            return np.arange(self.size, dtype=np.int64)
        _, codes = np.unique(np.array(self.groups, dtype=object), return_inverse=True)
        return codes.astype(np.int64)

    @property
    def group_count(self) -> int:
        return self.size if self.groups is None else len(set(self.groups))

    def category_names(self) -> list[str]:
        return sorted({c for c in self.categories if c is not None})

    def category_positions(self, category: str) -> IntArray:
        return np.flatnonzero(np.array([c == category for c in self.categories]))
