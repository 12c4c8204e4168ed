"""Percentile bootstrap confidence intervals, vectorised over resamples.

Every resample is drawn at once as a ``(resamples, n)`` index matrix and the statistic is
computed for all rows in one array expression, so 10,000 resamples of a few thousand items
cost milliseconds. The generator is seeded, so a report printed twice shows the same
interval (a CI that moves between runs reads like a bug to a user).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hyoka import arguments
from hyoka.errors import InputError

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
#: Maps a (resamples, n) index matrix to one statistic per row.
BatchStatistic = Callable[[IntArray], FloatArray]

DEFAULT_RESAMPLES = 2000
DEFAULT_SEED = 0
#: Indices per batch: bounds memory (~32 MB of int64) whatever the resample and item counts.
_BATCH_CELLS = 4_000_000


@dataclass(frozen=True)
class Interval:
    """A point estimate with its percentile bootstrap interval.

    ``low``/``high`` are NaN when the statistic is undefined on every resample (e.g. a
    correlation of constant data); NaN resamples are left out of the percentiles.
    """

    estimate: float
    low: float
    high: float
    confidence: float = 0.95
    resamples: int = 0

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "estimate": finite_or_none(self.estimate),
            "low": finite_or_none(self.low),
            "high": finite_or_none(self.high),
            "confidence": self.confidence,
            "resamples": self.resamples,
        }

    def format(self, digits: int = 3) -> str:
        if not np.isfinite(self.estimate):
            return "n/a"
        text = f"{self.estimate:.{digits}f}"
        if np.isfinite(self.low) and np.isfinite(self.high):
            text += f" [{self.low:.{digits}f}, {self.high:.{digits}f}]"
        return text


def finite_or_none(value: float | None) -> float | None:
    """``value`` as a float, or None where it is missing, NaN or infinite: what the JSON of
    every statistic shows for a number that could not be computed."""
    return None if value is None or not math.isfinite(value) else float(value)


def resample_indices(n: int, resamples: int, rng: np.random.Generator) -> IntArray:
    """``resamples`` rows of ``n`` indices drawn uniformly with replacement."""
    return rng.integers(0, n, size=(resamples, n), dtype=np.int64)


def draw_weights(picks: IntArray, n: int) -> FloatArray:
    """How often each of ``n`` items was drawn in each row of ``picks`` (rows × n)."""
    rows = picks.shape[0]
    cells = (picks + np.arange(rows, dtype=np.int64)[:, None] * n).ravel()
    counts: FloatArray = np.bincount(cells, minlength=rows * n).astype(np.float64)
    return counts.reshape(rows, n)


def resampled(
    statistic: Callable[[IntArray], FloatArray],
    n: int,
    resamples: int,
    rng: np.random.Generator,
    *,
    batch_cells: int = _BATCH_CELLS,
) -> FloatArray:
    """``statistic`` on ``resamples`` resamples of ``n`` items, drawn in batches of at
    most ``batch_cells`` indices: one value per resample, or one row of values (a vector
    statistic, such as a rating per model)."""
    rows = max(1, min(resamples, batch_cells // n))
    return np.concatenate(
        [
            statistic(resample_indices(n, min(rows, resamples - start), rng))
            for start in range(0, resamples, rows)
        ],
        axis=0,
    )


def percentiles(values: FloatArray, confidence: float) -> tuple[FloatArray, FloatArray]:
    """The percentile interval's bounds over the resamples (axis 0) of ``values``."""
    alpha = (1.0 - confidence) / 2.0
    low, high = np.quantile(values, [alpha, 1.0 - alpha], axis=0)
    return low, high


def resampled_means(values: FloatArray, resamples: int, rng: np.random.Generator) -> FloatArray:
    """Means of ``resamples`` draws with replacement of ``values`` (all of its size). One
    value is its own every mean: drawn without an index matrix, and without touching
    ``rng``, as drawing indices below 1 does not (the draws that follow stay the same)."""
    if len(values) == 1:
        return np.full(resamples, float(values[0]))
    result: FloatArray = values[resample_indices(len(values), resamples, rng)].mean(axis=1)
    return result


def group_means(
    groups: Sequence[FloatArray], resamples: int, rng: np.random.Generator
) -> FloatArray:
    """The inner level of a two-level bootstrap: per resample (row), each group's mean over
    its own values drawn with replacement (one column per group, e.g. answers per question).
    Paired comparisons subtract two such matrices before the outer level."""
    return np.stack([resampled_means(values, resamples, rng) for values in groups], axis=1)


def outer_means(inner: FloatArray, rng: np.random.Generator) -> FloatArray:
    """The outer level: per row of ``inner``, the mean over its columns (groups) drawn with
    replacement, the same draw serving every statistic derived from that matrix."""
    picks = resample_indices(inner.shape[1], inner.shape[0], rng)
    result: FloatArray = np.take_along_axis(inner, picks, axis=1).mean(axis=1)
    return result


def noisy_group_means(
    means: FloatArray, spread: FloatArray, trials: int, resamples: int, rng: np.random.Generator
) -> FloatArray:
    """A two-level bootstrap from group summaries alone: groups drawn with replacement, and
    each group's resampled mean drawn as its normal approximation (mean, std/√trials)."""
    picks = resample_indices(len(means), resamples, rng)
    noise = rng.standard_normal(picks.shape) * (spread[picks] / math.sqrt(trials))
    result: FloatArray = (means[picks] + noise).mean(axis=1)
    return result


def bootstrap(
    statistic: BatchStatistic,
    n: int,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """Point estimate on the data itself plus the percentile interval over resamples.

    ``statistic`` receives index matrices; row ``i`` selects the items of resample ``i``
    (the identity row gives the estimate). Items are the unit of resampling: pass indices
    of whole items (questions, pairs), not of individual labels, so that the dependence
    between labels of one item is kept.
    """
    if n < 1:
        raise InputError("bootstrap: no items to resample")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    arguments.resamples(resamples, confidence)
    estimate = float(statistic(np.arange(n, dtype=np.int64)[None, :])[0])
    values = resampled(statistic, n, resamples, np.random.default_rng(seed))
    finite = values[np.isfinite(values)]
    if len(finite) == 0:
        return Interval(estimate, float("nan"), float("nan"), confidence, resamples)
    low, high = percentiles(finite, confidence)
    return Interval(estimate, float(low), float(high), confidence, resamples)


def _percentile_interval(
    estimate: float, values: FloatArray, confidence: float, resamples: int
) -> Interval:
    low, high = percentiles(values, confidence)
    return Interval(estimate, float(low), float(high), confidence, resamples)


def two_level_interval(
    groups: Sequence[FloatArray],
    estimate: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """The interval of a mean of group means, both levels resampled: the groups with
    replacement, then each group's values within it (questions, then a run's answers to
    each). ``estimate`` is the statistic on the data itself, as its owner computed it."""
    draws = two_level_draws(groups, resamples=resamples, seed=seed)
    return _percentile_interval(estimate, draws, confidence, resamples)


def two_level_draws(
    groups: Sequence[FloatArray], *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> FloatArray:
    """The resampled means behind ``two_level_interval`` (one per resample): the draws a
    caller needs to set several such intervals beside each other (separability)."""
    arguments.resamples(resamples)
    rng = np.random.default_rng(seed)
    if all(len(values) == 1 for values in groups):  # one trial: the same draws, faster
        single = np.asarray([values[0] for values in groups], dtype=np.float64)
        drawn: FloatArray = single[resample_indices(len(single), resamples, rng)].mean(axis=1)
        return drawn
    return outer_means(group_means(groups, resamples, rng), rng)


def summary_two_level_interval(
    means: FloatArray,
    spread: FloatArray,
    trials: int,
    estimate: float,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> Interval:
    """``two_level_interval`` from each group's mean and standard deviation over ``trials``
    values alone (``noisy_group_means``): for results that kept no single values."""
    arguments.resamples(resamples, confidence)
    rng = np.random.default_rng(seed)
    drawn = noisy_group_means(means, spread, max(trials, 1), resamples, rng)
    return _percentile_interval(estimate, drawn, confidence, resamples)


@dataclass(frozen=True)
class PairedIntervals:
    """A − B, two-level and paired: per group (its values resampled within each side) and
    overall (the same groups drawn for both sides)."""

    overall: Interval
    groups: tuple[Interval, ...]


def paired_two_level_intervals(
    groups_a: Sequence[FloatArray],
    groups_b: Sequence[FloatArray],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> PairedIntervals:
    """Intervals of the difference of two sides measured on the same groups (two runs'
    answers to the same questions); each estimate is the difference of the plain means."""
    if len(groups_a) != len(groups_b) or not groups_a:
        raise InputError("a paired bootstrap needs the same groups, at least one, on both sides")
    arguments.resamples(resamples, confidence)
    rng = np.random.default_rng(seed)
    inner = group_means(groups_a, resamples, rng) - group_means(groups_b, resamples, rng)
    lows, highs = percentiles(inner, confidence)
    pairs = zip(groups_a, groups_b, strict=True)
    differences = [float(a.mean()) - float(b.mean()) for a, b in pairs]
    per_group = tuple(
        Interval(difference, float(low), float(high), confidence, resamples)
        for difference, low, high in zip(differences, lows, highs, strict=True)
    )
    overall = _percentile_interval(
        float(np.mean(differences)), outer_means(inner, rng), confidence, resamples
    )
    return PairedIntervals(overall, per_group)
