"""Two graders on one ordinal scale (two judges' 1-10 grades of the same answers), how
alike they rank models, and shares of hits, each with an interval that resamples whole
groups.

The grades of one model (or the comparisons of one question) are not independent of each
other, so the intervals resample groups (``additive_interval``): every grade of a drawn
model travels with it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.additive import additive_interval, share, weighted_cohen
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    IntArray,
    Interval,
    bootstrap,
)
from hyoka.stats.kappa import joint_counts


@dataclass(frozen=True)
class ScaleAgreement:
    """Exact agreement (the share of identical grades) and quadratic-weighted kappa."""

    n: int
    groups: int
    exact: Interval
    kappa: Interval


def scale_agreement(
    first: IntArray,
    second: IntArray,
    groups: IntArray,
    categories: int,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> ScaleAgreement:
    """Grades as the scale's steps (codes ``0 .. categories-1``), ``groups[i]`` the
    resampling unit of item ``i`` (codes ``0 .. G-1``, every code used)."""
    if not (len(first) == len(second) == len(groups)) or len(first) == 0:
        raise InputError("scale agreement needs two equally long, non-empty grade lists")
    hits = (first == second).astype(np.float64)
    exact = additive_interval(
        share(hits), groups, resamples=resamples, confidence=confidence, seed=seed
    )
    joint = joint_counts(first, second, groups, categories)
    kappa = additive_interval(
        weighted_cohen(joint, categories),
        np.arange(len(joint), dtype=np.int64),
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    )
    return ScaleAgreement(len(first), len(joint), exact, kappa)


def grouped_share(
    hits: FloatArray,
    counted: FloatArray,
    groups: IntArray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Σ hits / Σ counted, resampling groups (hits and counted per item or per group)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(counted > 0, hits / counted, 0.0)
    return additive_interval(
        share(rate, counted), groups, resamples=resamples, confidence=confidence, seed=seed
    )


def _draw_counts(index: IntArray, n: int) -> FloatArray:
    """How often each of ``n`` items was drawn in each row of ``index`` (rows × n)."""
    rows = index.shape[0]
    offset = (np.arange(rows, dtype=np.int64) * n)[:, None]
    drawn = np.bincount((index + offset).ravel(), minlength=rows * n)
    return drawn.reshape(rows, n).astype(np.float64)


def _quadratic(counts: FloatArray, matrix: FloatArray) -> FloatArray:
    """c·M·c for each row c of ``counts``."""
    result: FloatArray = ((counts @ matrix) * counts).sum(axis=1)
    return result


@dataclass(frozen=True)
class RankCorrelations:
    """Spearman's ρ and Kendall's τ-b of paired values (models' means under two judges)."""

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
    """Both rank correlations with percentile intervals over the same draws of the pairs.

    A resample is the count of each pair drawn (``c``), so neither is computed on n
    resampled values: a value's average rank among the drawn ones is c·L + ½ with
    L[j, i] = [xⱼ < xᵢ] + ½[xⱼ = xᵢ], Spearman the c-weighted Pearson of those ranks;
    Kendall's (concordant − discordant) is c·S·c / 2 with S = sign(xᵢ − xⱼ)·sign(yᵢ − yⱼ)
    and its untied counts the same forms of |sign| (a pair drawn twice is tied with
    itself, as τ-b counts a repeated value). Equal to scipy's on the listed-out draws."""
    xs, ys = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if xs.ndim != 1 or xs.shape != ys.shape or len(xs) < 3:
        raise InputError("rank correlations need two equally long lists of at least 3 values")
    n = len(xs)
    sx, sy = np.sign(xs[:, None] - xs[None, :]), np.sign(ys[:, None] - ys[None, :])
    below_x = (sx < 0).T + 0.5 * (sx == 0)  # [j, i]: xⱼ below xᵢ, ½ if tied
    below_y = (sy < 0).T + 0.5 * (sy == 0)
    concordance, untied_x, untied_y = sx * sy, np.abs(sx), np.abs(sy)

    def spearman(index: IntArray) -> FloatArray:
        counts = _draw_counts(index, n)
        rx, ry = counts @ below_x + 0.5, counts @ below_y + 0.5
        total = counts.sum(axis=1, keepdims=True)
        dx = rx - (counts * rx).sum(axis=1, keepdims=True) / total
        dy = ry - (counts * ry).sum(axis=1, keepdims=True) / total
        with np.errstate(divide="ignore", invalid="ignore"):
            rho: FloatArray = (counts * dx * dy).sum(axis=1) / np.sqrt(
                (counts * dx * dx).sum(axis=1) * (counts * dy * dy).sum(axis=1)
            )
        return rho

    def kendall(index: IntArray) -> FloatArray:
        counts = _draw_counts(index, n)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau: FloatArray = _quadratic(counts, concordance) / np.sqrt(
                _quadratic(counts, untied_x) * _quadratic(counts, untied_y)
            )
        return tau

    return RankCorrelations(
        n,
        bootstrap(spearman, n, resamples=resamples, confidence=confidence, seed=seed),
        bootstrap(kendall, n, resamples=resamples, confidence=confidence, seed=seed),
    )
