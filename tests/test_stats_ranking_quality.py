"""Benchmark-quality statistics over rankings with bootstrap draws: separability,
agreement with confidence and the pair-rank Brier score on rankings checkable by hand,
Spearman and Kendall against scipy (every paired draw too), and the subsampling curve
over a crafted score table."""

from __future__ import annotations

import numpy as np
import pytest

from _shared import needs
from hyoka.errors import InputError
from hyoka.stats.bootstrap import resample_indices
from hyoka.stats.correlation import kendall_rows
from hyoka.stats.ranking_quality import (
    ScoreDraws,
    agreement_with_confidence,
    compare_rankings,
    mean_score_draws,
    pair_rank_brier,
    separability,
    separability_curve,
)

needs("scipy")
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402


def _ranking(centres: list[float], spread: float = 0.1, rounds: int = 200) -> ScoreDraws:
    """Models a, b, c, … whose draws lie evenly within ``centre ± spread``."""
    offsets = np.linspace(-spread, spread, rounds)[:, None]
    draws = np.asarray(centres)[None, :] + offsets
    models = tuple("abcdefgh"[: len(centres)])
    return ScoreDraws(models, np.asarray(centres, dtype=np.float64), draws)


def test_separability_is_the_share_of_pairs_whose_intervals_do_not_overlap() -> None:
    # a and b overlap (0.15 apart, ±0.1 each); every other pair is apart: 5 of 6 pairs
    ranking = _ranking([1.0, 1.15, 2.0, 3.0])
    assert separability(ranking) == pytest.approx(5 / 6)
    assert separability(_ranking([1.0, 1.0, 1.0])) == 0.0


def test_agreement_with_confidence_counts_the_pairs_the_reference_separates() -> None:
    reference = _ranking([1.0, 2.0, 3.0, 3.05])  # a < b < c < d; (c, d) overlap
    # the ranking: a = 2 and b = 1 (reversed, with confidence), c anywhere in 0.8–3.2
    # (it separates from nothing), d = 3
    draws = np.stack(
        [np.full(200, 2.0), np.full(200, 1.0), np.linspace(0.8, 3.2, 200), np.full(200, 3.0)],
        axis=1,
    )
    ranking = ScoreDraws(("a", "b", "c", "d"), np.asarray([2.0, 1.0, 2.0, 3.0]), draws)
    # the five pairs the reference separates: (a, b) reversed −1, (a, c) 0, (a, d) +1,
    # (b, c) 0, (b, d) +1; (c, d) is not counted
    assert agreement_with_confidence(ranking, reference) == pytest.approx(1 / 5)
    # the Brier score over the same pairs: each forecast that the first is ahead, where in
    # the reference it never is
    c_below = {value: float(np.mean(draws[:, 2] < value)) for value in (1.0, 2.0)}
    forecasts = [1.0, c_below[2.0], 0.0, c_below[1.0], 0.0]
    expected = float(np.mean(np.square(forecasts)))
    assert pair_rank_brier(ranking, reference) == pytest.approx(expected)
    assert np.isnan(agreement_with_confidence(ranking, _ranking([1.0, 1.0, 1.0, 1.0])))


def test_kendall_rows_is_scipys_tau_b_row_by_row_with_ties() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(0, 4, (30, 9)).astype(np.float64)
    y = rng.integers(0, 4, (30, 9)).astype(np.float64)
    tau = kendall_rows(x, y)
    for row in range(30):
        expected = stats.kendalltau(x[row], y[row]).statistic
        assert tau[row] == pytest.approx(expected, nan_ok=True)


def test_rank_correlations_are_scipys_on_the_scores_and_on_each_draw_of_models() -> None:
    rng = np.random.default_rng(1)
    truth = rng.normal(0.0, 1.0, 8)
    table_a = truth[None, :] + rng.normal(0.0, 1.0, (50, 8))
    table_b = truth[None, :] + rng.normal(0.0, 1.0, (50, 8))
    models = [f"m{k}" for k in range(8)]
    a = mean_score_draws(table_a, models, resamples=300, seed=1)
    b = mean_score_draws(table_b, models, resamples=300, seed=2)
    result = compare_rankings(a, b, resamples=300, seed=4)
    assert result.spearman.estimate == pytest.approx(stats.spearmanr(a.estimate, b.estimate)[0])
    assert result.kendall.estimate == pytest.approx(stats.kendalltau(a.estimate, b.estimate)[0])
    # the intervals: the models drawn with replacement, each draw's correlation by scipy
    picks = resample_indices(8, 300, np.random.default_rng(4))
    spearmans = [stats.spearmanr(a.estimate[p], b.estimate[p])[0] for p in picks]
    kendalls = [stats.kendalltau(a.estimate[p], b.estimate[p])[0] for p in picks]
    assert result.spearman.low == pytest.approx(np.nanquantile(spearmans, 0.025))
    assert result.kendall.high == pytest.approx(np.nanquantile(kendalls, 0.975))
    assert result.spearman.low <= result.spearman.estimate <= result.spearman.high
    assert result.signature.get("kind") == "ranking-comparison"
    assert (result.signature.get("resamples"), result.signature.get("seed")) == ("300", "4")
    assert result.to_json()["agreement_with_confidence"] == result.agreement


def test_more_questions_separate_more_pairs() -> None:
    rng = np.random.default_rng(2)
    table = np.linspace(0.0, 2.0, 6)[None, :] + rng.normal(0.0, 1.5, (400, 6))
    models = [f"m{k}" for k in range(6)]

    def rank(questions: np.ndarray) -> ScoreDraws:
        return mean_score_draws(table[questions], models, resamples=200, seed=0)

    curve = separability_curve(400, rank, (20, 100, 400), repeats=4, seed=3)
    values = [point.separability for point in curve.points]
    assert [point.questions for point in curve.points] == [20, 100, 400]
    assert values[0] < values[1] < values[2]
    assert curve.points[2].lowest == curve.points[2].highest  # all 400: one subset
    again = separability_curve(400, rank, (20, 100, 400), repeats=4, seed=3)
    assert again.to_json() == curve.to_json()
    assert curve.signature.get("sizes") == "20,100,400"


def test_rankings_must_share_three_models() -> None:
    with pytest.raises(InputError, match="at least three models ranked by both"):
        compare_rankings(_ranking([1.0, 2.0, 3.0]), _ranking([1.0, 2.0]))
    with pytest.raises(InputError, match="one score and one column of draws per model"):
        ScoreDraws(("a", "b"), np.zeros(2), np.zeros((5, 3)))
