"""Pearson/Spearman against scipy, and the vectorised percentile bootstrap."""

from __future__ import annotations

import numpy as np
import pytest

from _shared import needs
from hyoka.errors import InputError
from hyoka.stats import bootstrap, correlate, rank_correlations
from hyoka.stats.bootstrap import FloatArray, IntArray, resample_indices
from hyoka.stats.correlation import (
    average_ranks,
    kendall_rows,
    pearson,
    pearson_rows,
    spearman,
    spearman_rows,
)

needs("scipy")
needs("hypothesis")
import scipy.stats  # type: ignore[import-untyped]  # noqa: E402
from hypothesis import assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
# a few repeated values so Spearman meets ties
tied = st.sampled_from([0.0, 0.5, 1.0, 2.0, 2.5])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(finite | tied, finite | tied), min_size=3, max_size=80))
def test_matches_scipy(pairs: list[tuple[float, float]]) -> None:
    x = [a for a, _ in pairs]
    y = [b for _, b in pairs]
    assume(np.std(x) > 1e-6 and np.std(y) > 1e-6)
    assume(len(set(x)) > 1 and len(set(y)) > 1)
    assert pearson(x, y) == pytest.approx(scipy.stats.pearsonr(x, y).statistic, abs=1e-9)
    assert spearman(x, y) == pytest.approx(scipy.stats.spearmanr(x, y).statistic, abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(tied | finite, min_size=5, max_size=5), min_size=1, max_size=20))
def test_average_ranks_match_scipy_rowwise(rows: list[list[float]]) -> None:
    values = np.array(rows)
    expected = scipy.stats.rankdata(values, axis=1, method="average")
    np.testing.assert_array_equal(average_ranks(values), expected)


def test_rowwise_equals_one_at_a_time() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(size=(50, 12)), rng.normal(size=(50, 12))
    x[:, 3] = x[:, 4]  # ties
    for i, (p, s) in enumerate(zip(pearson_rows(x, y), spearman_rows(x, y), strict=True)):
        assert p == pytest.approx(scipy.stats.pearsonr(x[i], y[i]).statistic, abs=1e-12)
        assert s == pytest.approx(scipy.stats.spearmanr(x[i], y[i]).statistic, abs=1e-12)


def test_bootstrap_is_the_percentile_of_the_loop() -> None:
    """The vectorised bootstrap equals the textbook loop over the same resamples."""
    data = np.random.default_rng(1).exponential(size=40)

    def mean_rows(index: IntArray) -> FloatArray:
        means: FloatArray = data[index].mean(axis=1)
        return means

    interval = bootstrap(mean_rows, len(data), resamples=500, seed=11)
    draws = resample_indices(len(data), 500, np.random.default_rng(11))
    loop = [float(np.mean(data[row])) for row in draws]
    assert interval.estimate == pytest.approx(float(np.mean(data)))
    assert interval.low == pytest.approx(float(np.quantile(loop, 0.025)))
    assert interval.high == pytest.approx(float(np.quantile(loop, 0.975)))
    assert bootstrap(mean_rows, len(data), resamples=500, seed=11) == interval


def test_bootstrap_agrees_with_scipy_percentile_interval() -> None:
    data = np.random.default_rng(2).normal(loc=3.0, size=300)
    ours = bootstrap(lambda i: data[i].mean(axis=1), len(data), resamples=8000, seed=0)
    theirs = scipy.stats.bootstrap(
        (data,), np.mean, n_resamples=8000, method="percentile", random_state=0
    ).confidence_interval
    width = theirs.high - theirs.low
    assert ours.low == pytest.approx(theirs.low, abs=0.1 * width)
    assert ours.high == pytest.approx(theirs.high, abs=0.1 * width)


def test_correlate_intervals_bracket_the_estimate() -> None:
    rng = np.random.default_rng(5)
    x = rng.normal(size=60)
    y = 0.8 * x + rng.normal(scale=0.5, size=60)
    result = correlate(x.tolist(), y.tolist(), resamples=1000, seed=1)
    assert result.n == 60
    for interval in (result.pearson, result.spearman):
        assert interval.low < interval.estimate < interval.high
        assert interval.resamples == 1000
    assert result.pearson.estimate == pytest.approx(scipy.stats.pearsonr(x, y).statistic)


def test_correlate_rejects_bad_input() -> None:
    with pytest.raises(InputError, match="at least 3"):
        correlate([1.0, 2.0], [1.0, 2.0])
    with pytest.raises(InputError, match="equally long"):
        correlate([1.0, 2.0, 3.0], [1.0, 2.0])
    with pytest.raises(InputError, match="NaN"):
        correlate([1.0, 2.0, float("nan")], [1.0, 2.0, 3.0])


def test_rank_correlations_from_draw_counts_equal_the_rows_on_the_listed_out_draws() -> None:
    """The one home of Spearman and Kendall of two rankings: its closed forms of the draw
    counts give the percentile interval of ``spearman_rows``/``kendall_rows`` evaluated on
    the same seeded draws listed out (ties and repeated models included)."""
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(size=30), 1)
    y = np.round(x + rng.normal(size=30), 1)
    result = rank_correlations(x, y, resamples=400, seed=5)
    picks = resample_indices(30, 400, np.random.default_rng(5))
    for interval, rows in ((result.spearman, spearman_rows), (result.kendall, kendall_rows)):
        values = rows(x[picks], y[picks])
        low, high = np.quantile(values[np.isfinite(values)], [0.025, 0.975])
        assert (interval.low, interval.high) == pytest.approx((low, high), abs=1e-12)
        assert interval.estimate == pytest.approx(float(rows(x[None, :], y[None, :])[0]))
