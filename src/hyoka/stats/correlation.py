"""Pearson and Spearman correlations with bootstrap intervals, computed row-wise.

Both are written for a whole matrix of resamples at once (one row per resample), so the
bootstrap of a correlation is a handful of array operations. Spearman is Pearson on
average ranks (ties share the mean of their positions), as scipy defines it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    BatchStatistic,
    FloatArray,
    IntArray,
    Interval,
    bootstrap,
)

MIN_PAIRS = 3


def pearson_rows(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson's r of each row pair of two (rows, n) matrices; NaN where a row is constant."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = (xc * yc).sum(axis=1) / np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    clipped: FloatArray = np.clip(r, -1.0, 1.0)
    return clipped


def average_ranks(values: FloatArray) -> FloatArray:
    """1-based ranks of each row, tied values sharing their mean rank."""
    rows, n = values.shape
    order = np.argsort(values, axis=1, kind="stable")
    ordered = np.take_along_axis(values, order, axis=1)
    starts = np.ones((rows, n), dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    group = np.cumsum(starts.ravel()) - 1  # a new group at every row start, too
    positions = np.tile(np.arange(n, dtype=np.float64), rows)
    mean_position = np.bincount(group, weights=positions) / np.bincount(group)
    ranks = np.empty((rows, n), dtype=np.float64)
    np.put_along_axis(ranks, order, (mean_position[group] + 1.0).reshape(rows, n), axis=1)
    return ranks


def spearman_rows(x: FloatArray, y: FloatArray) -> FloatArray:
    return pearson_rows(average_ranks(x), average_ranks(y))


def pearson(x: Sequence[float], y: Sequence[float]) -> float:
    xs, ys = _pairs(x, y)
    return float(pearson_rows(xs[None, :], ys[None, :])[0])


def spearman(x: Sequence[float], y: Sequence[float]) -> float:
    xs, ys = _pairs(x, y)
    return float(spearman_rows(xs[None, :], ys[None, :])[0])


@dataclass(frozen=True)
class Correlation:
    """Pearson and Spearman between two paired samples, each with its bootstrap interval."""

    n: int
    pearson: Interval
    spearman: Interval

    def to_json(self) -> dict[str, object]:
        return {"n": self.n, "pearson": self.pearson.to_json(), "spearman": self.spearman.to_json()}


def correlate(
    x: Sequence[float],
    y: Sequence[float],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Correlation:
    """Both correlations, resampling the pairs (models) together."""
    xs, ys = _pairs(x, y)

    def pearson_of(index: IntArray) -> FloatArray:
        return pearson_rows(xs[index], ys[index])

    def spearman_of(index: IntArray) -> FloatArray:
        return spearman_rows(xs[index], ys[index])

    def interval(statistic: BatchStatistic) -> Interval:
        return bootstrap(statistic, len(xs), resamples=resamples, confidence=confidence, seed=seed)

    return Correlation(n=len(xs), pearson=interval(pearson_of), spearman=interval(spearman_of))


def _pairs(x: Sequence[float], y: Sequence[float]) -> tuple[FloatArray, FloatArray]:
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    if xs.ndim != 1 or xs.shape != ys.shape:
        raise InputError(f"correlation needs two equally long lists ({xs.size} vs {ys.size})")
    if len(xs) < MIN_PAIRS:
        raise InputError(f"correlation needs at least {MIN_PAIRS} pairs, got {len(xs)}")
    if not (np.isfinite(xs).all() and np.isfinite(ys).all()):
        raise InputError("correlation input contains NaN or infinite values")
    return xs, ys


def kendall_rows(x: FloatArray, y: FloatArray) -> FloatArray:
    """Kendall's τ-b of each row pair of two (rows, n) matrices: over all pairs of items,
    (concordant − discordant) divided by the geometric mean of the pairs not tied in x and
    not tied in y; NaN where one side is all ties. Item i is compared with every later
    item at once, for every row: memory grows with rows × n, not with the n² pairs."""
    rows, n = x.shape
    products, untied_x, untied_y = np.zeros(rows), np.zeros(rows), np.zeros(rows)
    for i in range(n - 1):
        sx = np.sign(x[:, i + 1 :] - x[:, i : i + 1])
        sy = np.sign(y[:, i + 1 :] - y[:, i : i + 1])
        products += np.einsum("ij,ij->i", sx, sy)
        untied_x += np.count_nonzero(sx, axis=1)
        untied_y += np.count_nonzero(sy, axis=1)
    untied = untied_x * untied_y
    with np.errstate(divide="ignore", invalid="ignore"):
        tau: FloatArray = np.where(untied > 0, products / np.sqrt(untied), np.nan)
    return tau


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's τ-b of two lists (``kendall_rows``): every pair compared at once, n²
    signs, nothing for a few hundred runs."""
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    return float(kendall_rows(xs[None, :], ys[None, :])[0])
