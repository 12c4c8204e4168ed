"""Pearson, Spearman and Kendall correlations with bootstrap intervals, computed row-wise.

Each is written for a whole matrix of resamples at once (one row per resample), so the
bootstrap of a correlation is a handful of array operations. Spearman is Pearson on
average ranks (ties share the mean of their positions), as scipy defines it.

``rank_correlations`` is the one home of Spearman and Kendall's τ-b of two rankings
(models' scores under two judges, or two rankings of the same models) with intervals over
the models drawn with replacement: it computes both from how often each model was drawn,
never listing the drawn values out.
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
    draw_weights,
)

MIN_PAIRS = 3


def pearson_rows(x: FloatArray, y: FloatArray) -> FloatArray:
    """Pearson's r of each row pair of two (rows, n) matrices; NaN where a row is constant.

    r does not change when a row is multiplied by a positive number, so each row is first
    brought to magnitudes below 1 by a power of two (``_unit_rows``: exact, every digit
    kept): values near 1e308 (whose sum, deviations and squares overflow) or near 1e-308
    (whose squares vanish) give the r they have, as ordinary values do."""
    x, y = _unit_rows(x), _unit_rows(y)
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.sqrt((xc * xc).sum(axis=1)) * np.sqrt((yc * yc).sum(axis=1))
        r = (xc * yc).sum(axis=1) / spread
    clipped: FloatArray = np.clip(r, -1.0, 1.0)
    return clipped


def _unit_rows(values: FloatArray) -> FloatArray:
    """Each row times the power of two that brings its largest magnitude into [0.5, 1)
    (rows of zeros as they are): exact, where a scale such as 1e-308 would round."""
    largest = np.max(np.abs(values), axis=1, keepdims=True)
    _, exponent = np.frexp(np.where(largest > 0, largest, 1.0))
    scaled: FloatArray = np.ldexp(values, -exponent)
    return scaled


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


def _quadratic(counts: FloatArray, matrix: FloatArray) -> FloatArray:
    """c·M·c for each row c of ``counts``."""
    result: FloatArray = ((counts @ matrix) * counts).sum(axis=1)
    return result


@dataclass(frozen=True)
class RankCorrelations:
    """Spearman's ρ and Kendall's τ-b of paired values (models' scores under two judges
    or two rankings)."""

    n: int
    spearman: Interval
    kendall: Interval


def rank_correlations(
    x: FloatArray,
    y: FloatArray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> RankCorrelations:
    """Both rank correlations with percentile intervals over the same draws of the pairs
    (the models, drawn with replacement; seeded, the draws of ``bootstrap``).

    A resample is the count of each pair drawn (``c``), so neither is computed on n
    resampled values: a value's average rank among the drawn ones is c·L + ½ with
    L[j, i] = [xⱼ < xᵢ] + ½[xⱼ = xᵢ], Spearman the c-weighted Pearson of those ranks;
    Kendall's (concordant − discordant) is c·S·c / 2 with S = sign(xᵢ − xⱼ)·sign(yᵢ − yⱼ)
    and its untied counts the same forms of |sign| (a pair drawn twice is tied with
    itself, as τ-b counts a repeated value). Equal to scipy's on the listed-out draws, and
    to ``spearman_rows``/``kendall_rows`` on them; about five times faster than those on
    343 models × 2000 resamples. Memory: five n × n matrices (n = 343: 5 MB)."""
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xs.ndim != 1 or xs.shape != ys.shape or len(xs) < MIN_PAIRS:
        raise InputError(
            f"rank correlations need two equally long lists of at least {MIN_PAIRS} values"
        )
    n = len(xs)
    sx, sy = np.sign(xs[:, None] - xs[None, :]), np.sign(ys[:, None] - ys[None, :])
    below_x = (sx < 0).T + 0.5 * (sx == 0)  # [j, i]: xⱼ below xᵢ, ½ if tied
    below_y = (sy < 0).T + 0.5 * (sy == 0)
    concordance, untied_x, untied_y = sx * sy, np.abs(sx), np.abs(sy)

    def spearman_of(index: IntArray) -> FloatArray:
        counts = draw_weights(index, n)
        rx, ry = counts @ below_x + 0.5, counts @ below_y + 0.5
        total = counts.sum(axis=1, keepdims=True)
        dx = rx - (counts * rx).sum(axis=1, keepdims=True) / total
        dy = ry - (counts * ry).sum(axis=1, keepdims=True) / total
        with np.errstate(divide="ignore", invalid="ignore"):
            rho: FloatArray = (counts * dx * dy).sum(axis=1) / np.sqrt(
                (counts * dx * dx).sum(axis=1) * (counts * dy * dy).sum(axis=1)
            )
        return rho

    def kendall_of(index: IntArray) -> FloatArray:
        counts = draw_weights(index, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau: FloatArray = _quadratic(counts, concordance) / np.sqrt(
                _quadratic(counts, untied_x) * _quadratic(counts, untied_y)
            )
        return tau

    def interval(statistic: BatchStatistic) -> Interval:
        return bootstrap(statistic, n, resamples=resamples, confidence=confidence, seed=seed)

    return RankCorrelations(n, interval(spearman_of), interval(kendall_of))
