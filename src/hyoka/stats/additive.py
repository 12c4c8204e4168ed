"""Statistics that are functions of per-item sums, bootstrapped by item or by group.

Every agreement statistic here (a share, Cohen's kappa, Fleiss' kappa) depends on the data
only through sums over items of a few per-item features: hits and counts, a one-hot of the
joint label pair, rater counts per category. Summing the features within groups first lets
the same code resample whole groups (a cluster bootstrap): when items share a question, as
the pairs of one question do, resampling items one by one would treat correlated items as
independent and give intervals that are too narrow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from hyoka.stats.bootstrap import FloatArray, IntArray, Interval, bootstrap, draw_weights

#: (resamples, features) totals -> one statistic per resample
Finish = Callable[[FloatArray], FloatArray]


@dataclass(frozen=True)
class Additive:
    """Per-item features (items, d) and how totals of them become the statistic."""

    features: FloatArray
    finish: Finish


def additive_interval(
    statistic: Additive,
    groups: IntArray,
    *,
    resamples: int,
    confidence: float,
    seed: int,
) -> Interval:
    """Percentile interval resampling the groups (``groups[i]`` = item i's group, 0..G-1)."""
    count = int(groups.max()) + 1
    sums = np.zeros((count, statistic.features.shape[1]), dtype=np.float64)
    np.add.at(sums, groups, statistic.features)

    def of(index: IntArray) -> FloatArray:
        # how often each group is drawn in each resample, then one matrix product: the
        # totals of a few thousand resamples of hundreds of groups cost milliseconds
        totals: FloatArray = draw_weights(index, count) @ sums
        return statistic.finish(totals)

    return bootstrap(of, count, resamples=resamples, confidence=confidence, seed=seed)


def share(hits: FloatArray, counted: FloatArray | None = None) -> Additive:
    """Hits over counted items (every item counts unless ``counted`` says otherwise)."""
    weights = np.ones_like(hits) if counted is None else counted
    features = np.stack([hits * weights, weights], axis=1).astype(np.float64)

    def finish(totals: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio: FloatArray = totals[:, 0] / totals[:, 1]
        return ratio

    return Additive(features, finish)


def cohen(first: IntArray, second: IntArray, categories: int) -> Additive:
    """Cohen's kappa from the totals of the one-hot joint label pair."""
    features = np.zeros((len(first), categories * categories), dtype=np.float64)
    features[np.arange(len(first)), first * categories + second] = 1.0

    def finish(totals: FloatArray) -> FloatArray:
        joint = totals.reshape(-1, categories, categories)
        n = joint.sum(axis=(1, 2))
        observed = np.trace(joint, axis1=1, axis2=2) / n
        expected = (joint.sum(axis=2) * joint.sum(axis=1)).sum(axis=1) / (n * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (observed - expected) / (1.0 - expected)
        result: FloatArray = np.where(expected < 1.0, kappa, np.nan)
        return result

    return Additive(features, finish)


def fleiss(counts: IntArray) -> Additive:
    """Fleiss' kappa from an (items, categories) table with the same raters per item."""
    table = counts.astype(np.float64)
    m = float(table[0].sum())
    agreement = ((table * table).sum(axis=1) - m) / (m * (m - 1.0))
    features = np.column_stack([agreement, table, np.ones(len(table))])

    def finish(totals: FloatArray) -> FloatArray:
        n = totals[:, -1]
        observed = totals[:, 0] / n
        shares = totals[:, 1:-1] / (n * m)[:, None]
        expected = (shares * shares).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = (observed - expected) / (1.0 - expected)
        result: FloatArray = np.where(expected < 1.0, kappa, np.nan)
        return result

    return Additive(features, finish)


def weighted_cohen(joint: FloatArray, categories: int, steps: FloatArray | None = None) -> Additive:
    """Cohen's kappa with quadratic weights (a disagreement of d steps costs d²) from the
    joint counts of two ordinal label sets, one row per item or group (``(n, k * k)``,
    column ``first * k + second``); categories are the scale's steps, used or not, or
    where ``steps`` are given, the values those codes stand for (a disagreement costs the
    squared difference of values: the same kappa as over every step between them, which
    have no counts)."""
    if steps is None:
        steps = np.arange(categories, dtype=np.float64)
    weights = ((steps[:, None] - steps[None, :]) ** 2).ravel()

    def finish(totals: FloatArray) -> FloatArray:
        joint_totals = totals.reshape(-1, categories, categories)
        n = joint_totals.sum(axis=(1, 2))
        observed = totals @ weights / n
        rows, columns = joint_totals.sum(axis=2), joint_totals.sum(axis=1)
        chance = np.einsum("ri,rj->rij", rows, columns).reshape(len(totals), -1)
        expected = chance @ weights / (n * n)
        with np.errstate(divide="ignore", invalid="ignore"):
            kappa = 1.0 - observed / expected
        result: FloatArray = np.where(expected > 0.0, kappa, np.nan)
        return result

    return Additive(joint.astype(np.float64), finish)
