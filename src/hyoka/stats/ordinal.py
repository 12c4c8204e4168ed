"""Two graders on one ordinal scale (two judges' 1-10 grades of the same answers) and
shares of hits, each with an interval that resamples whole groups. How alike two judges
rank models is ``correlation.rank_correlations``.

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
    steps: FloatArray | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> ScaleAgreement:
    """Grades as the scale's steps (codes ``0 .. categories-1``), ``groups[i]`` the
    resampling unit of item ``i`` (codes ``0 .. G-1``, every code used); ``steps``: the
    value each code stands for, where the codes number the grades seen rather than every
    step of a scale (``additive.weighted_cohen``)."""
    if not (len(first) == len(second) == len(groups)) or len(first) == 0:
        raise InputError("scale agreement needs two equally long, non-empty grade lists")
    hits = (first == second).astype(np.float64)
    exact = additive_interval(
        share(hits), groups, resamples=resamples, confidence=confidence, seed=seed
    )
    joint = joint_counts(first, second, groups, categories)
    kappa = additive_interval(
        weighted_cohen(joint, categories, steps),
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
