"""Cohen's and Fleiss' kappa, and the row-wise forms the bootstrap uses.

Labels are small integer codes (``0 .. k-1``). A code that one label set never uses still
counts as a category, so a method that emits "invalid" (bs1 on disagreeing orders) is
penalised in kappa exactly as in concordance: it never matches a human label.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.stats.additive import weighted_cohen
from hyoka.stats.bootstrap import FloatArray, IntArray


def cohen_kappa_rows(a: IntArray, b: IntArray, categories: int) -> FloatArray:
    """Cohen's kappa of each row pair of two (rows, n) code matrices (NaN if p_e = 1)."""
    rows, n = a.shape
    offset = (np.arange(rows, dtype=np.int64) * categories)[:, None]
    size = rows * categories
    share_a = np.bincount((a + offset).ravel(), minlength=size).reshape(rows, categories) / n
    share_b = np.bincount((b + offset).ravel(), minlength=size).reshape(rows, categories) / n
    observed = (a == b).mean(axis=1)
    expected = (share_a * share_b).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = (observed - expected) / (1.0 - expected)
    return np.where(expected < 1.0, kappa, np.nan)


def cohen_kappa(a: npt.ArrayLike, b: npt.ArrayLike, categories: int | None = None) -> float:
    """Cohen's (unweighted) kappa between two label sets over the same items."""
    left, right = _codes(a), _codes(b)
    if left.shape != right.shape or left.size == 0:
        raise InputError("Cohen's kappa needs two non-empty label lists of equal length")
    k = categories if categories is not None else int(max(left.max(), right.max())) + 1
    return float(cohen_kappa_rows(left[None, :], right[None, :], k)[0])


def joint_counts(a: IntArray, b: IntArray, groups: IntArray, categories: int) -> FloatArray:
    """(groups, k * k) table: per group, how many items got label i from the first set and
    j from the second (column ``i * k + j``); what the weighted kappa and its cluster
    bootstrap start from."""
    count = int(groups.max()) + 1 if groups.size else 0
    cells = groups * (categories * categories) + a * categories + b
    flat = np.bincount(cells, minlength=count * categories * categories)
    return flat.reshape(count, categories * categories).astype(np.float64)


def quadratic_kappa(a: npt.ArrayLike, b: npt.ArrayLike, categories: int) -> float:
    """Cohen's kappa with quadratic weights between two ordinal label sets (codes
    ``0 .. categories-1``, the scale's steps in order): 1 - Σ w·observed / Σ w·expected,
    w = (i - j)². NaN when every label is one and the same step."""
    left, right = _codes(a), _codes(b)
    if left.shape != right.shape or left.size == 0:
        raise InputError("weighted kappa needs two non-empty label lists of equal length")
    if max(int(left.max()), int(right.max())) >= categories:
        raise InputError(f"weighted kappa: a label code is outside the {categories} steps")
    joint = joint_counts(left, right, np.zeros_like(left), categories)
    statistic = weighted_cohen(joint, categories)
    return float(statistic.finish(statistic.features.sum(axis=0, keepdims=True))[0])


def category_counts(labels: IntArray, categories: int) -> IntArray:
    """(items, categories) table: how many raters put item i in category j.

    ``labels`` is (raters, items); this is the table Fleiss (1971) starts from.
    """
    items = labels.shape[1]
    offset = (np.arange(items, dtype=np.int64) * categories)[None, :]
    counts = np.bincount((labels + offset).ravel(), minlength=items * categories)
    return counts.reshape(items, categories).astype(np.int64)


class FleissParts:
    """Per-item quantities of Fleiss' kappa, so a resample only sums selected rows."""

    def __init__(self, table: npt.ArrayLike) -> None:
        counts = np.asarray(table, dtype=np.float64)
        if counts.ndim != 2 or counts.shape[0] == 0:
            raise InputError("Fleiss' kappa needs an (items, categories) count table")
        raters = counts.sum(axis=1)
        if not np.all(raters == raters[0]) or raters[0] < 2:
            raise InputError("Fleiss' kappa needs the same number (>= 2) of raters per item")
        self.raters = float(raters[0])
        self.counts = counts
        m = self.raters
        self.item_agreement = ((counts * counts).sum(axis=1) - m) / (m * (m - 1.0))

    def rows(self, index: IntArray) -> FloatArray:
        """Fleiss' kappa of each resample row of item indices (NaN if P_e = 1)."""
        observed = self.item_agreement[index].mean(axis=1)
        shares = (
            np.stack(
                [self.counts[:, j][index].mean(axis=1) for j in range(self.counts.shape[1])], axis=1
            )
            / self.raters
        )
        expected = (shares * shares).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (observed - expected) / (1.0 - expected)
        return np.where(expected < 1.0, kappa, np.nan)


def fleiss_kappa(table: npt.ArrayLike) -> float:
    """Fleiss' kappa from an (items, categories) table of rater counts."""
    parts = FleissParts(table)
    return float(parts.rows(np.arange(parts.counts.shape[0], dtype=np.int64)[None, :])[0])


def _codes(values: npt.ArrayLike) -> IntArray:
    codes = np.asarray(values, dtype=np.int64)
    if codes.ndim != 1 or (codes.size and codes.min() < 0):
        raise InputError("labels must be a flat list of non-negative integer codes")
    return codes
