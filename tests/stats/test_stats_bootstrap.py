"""The two-level bootstrap intervals of ``hyoka.stats``: what each resamples, checked against
a plain loop over the same random draws."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest

from hyoka.errors import InputError
from hyoka.stats import (
    paired_two_level_intervals,
    summary_two_level_interval,
    two_level_interval,
)

FloatArray = npt.NDArray[np.float64]
GROUPS_A = [np.array([0.2, 0.4, 0.9]), np.array([0.5]), np.array([0.1, 0.3])]
GROUPS_B = [np.array([0.3, 0.1]), np.array([0.6, 0.2, 0.2]), np.array([0.0])]
ROUNDS = 50


def _within(groups: list[FloatArray], rng: np.random.Generator) -> list[list[float]]:
    """Per group, ROUNDS means of its values drawn with replacement (one draw per group)."""
    means = []
    for values in groups:
        draws = rng.integers(0, len(values), size=(ROUNDS, len(values)))
        means.append([float(np.mean(values[row])) for row in draws])
    return means


def _between(inner: list[list[float]], rng: np.random.Generator) -> list[float]:
    picks = rng.integers(0, len(inner), size=(ROUNDS, len(inner)))
    return [float(np.mean([inner[g][r] for g in row])) for r, row in enumerate(picks)]


def _bounds(values: list[float]) -> tuple[float, float]:
    low, high = np.quantile(values, [0.025, 0.975])
    return float(low), float(high)


def test_two_level_resamples_groups_then_values_within_each() -> None:
    rng = np.random.default_rng(7)
    expected = _bounds(_between(_within(GROUPS_A, rng), rng))
    interval = two_level_interval(GROUPS_A, 0.42, resamples=ROUNDS, seed=7)
    assert (interval.low, interval.high) == pytest.approx(expected, abs=1e-12)
    assert (interval.estimate, interval.resamples, interval.confidence) == (0.42, ROUNDS, 0.95)


def test_paired_draws_the_same_groups_for_both_sides() -> None:
    rng = np.random.default_rng(3)
    a, b = _within(GROUPS_A, rng), _within(GROUPS_B, rng)
    inner = [[x - y for x, y in zip(ga, gb, strict=True)] for ga, gb in zip(a, b, strict=True)]
    overall = _bounds(_between(inner, rng))
    paired = paired_two_level_intervals(GROUPS_A, GROUPS_B, resamples=ROUNDS, seed=3)
    assert (paired.overall.low, paired.overall.high) == pytest.approx(overall, abs=1e-12)
    differences = [float(x.mean() - y.mean()) for x, y in zip(GROUPS_A, GROUPS_B, strict=True)]
    assert paired.overall.estimate == pytest.approx(float(np.mean(differences)), abs=1e-12)
    for interval, column, difference in zip(paired.groups, inner, differences, strict=True):
        assert (interval.low, interval.high) == pytest.approx(_bounds(column), abs=1e-12)
        assert interval.estimate == pytest.approx(difference, abs=1e-12)
    with pytest.raises(InputError, match="same groups"):
        paired_two_level_intervals(GROUPS_A, GROUPS_B[:2])


def test_from_summaries_draws_each_groups_mean_as_its_normal_approximation() -> None:
    means, spread, trials = np.array([0.2, 0.5, 0.8]), np.array([0.1, 0.0, 0.3]), 4
    rng = np.random.default_rng(0)
    picks = rng.integers(0, 3, size=(ROUNDS, 3))
    noise = rng.standard_normal(picks.shape)
    drawn = [
        float(np.mean([means[g] + noise[r, i] * spread[g] / math.sqrt(trials)
                       for i, g in enumerate(row)]))
        for r, row in enumerate(picks)
    ]  # fmt: skip
    interval = summary_two_level_interval(means, spread, trials, 0.5, resamples=ROUNDS, seed=0)
    assert (interval.low, interval.high) == pytest.approx(_bounds(drawn), abs=1e-12)


def test_one_trial_per_group_draws_what_both_levels_draw() -> None:
    """The shortcut for groups of one value (a benchmark judged once) draws exactly the
    general path's numbers: one value's resampled mean is itself, and drawing its index
    leaves the generator untouched."""
    from hyoka.stats.bootstrap import group_means, outer_means, two_level_draws

    groups = [np.array([v]) for v in np.random.default_rng(1).integers(1, 11, 40).astype(float)]
    rng = np.random.default_rng(5)
    general = outer_means(group_means(groups, ROUNDS, rng), rng)
    assert np.array_equal(two_level_draws(groups, resamples=ROUNDS, seed=5), general)
