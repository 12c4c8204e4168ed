"""Benchmark-quality statistics over rankings with bootstrap draws: separability,
agreement with confidence and the pair-rank Brier score on rankings checkable by hand,
Spearman and Kendall against scipy (every paired draw too), and the subsampling curve
over a crafted score table."""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

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
    strict_agreement,
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


def test_agreement_strict_agreement_and_brier_on_a_worked_example() -> None:
    """The three pair statistics by hand, on arena-hard's definitions (module docstring)."""
    reference = _ranking([1.0, 2.0, 3.0, 3.05])  # a < b < c < d; (c, d) overlap
    # the ranking: a = 2 and b = 1 (reversed, with confidence), c = 2 ± 1.2 (apart from
    # nothing), d = 3
    offsets = np.linspace(-1.0, 1.0, 200)
    draws = np.stack([2.0 + 0.1 * offsets, 1.0 + 0.1 * offsets, 2.0 + 1.2 * offsets,
                      3.0 + 0.1 * offsets], axis=1)  # fmt: skip
    ranking = ScoreDraws(("a", "b", "c", "d"), np.asarray([2.0, 1.0, 2.0, 3.0]), draws)
    # the five pairs the reference separates: (a, b) reversed −1, (a, c) 0, (a, d) +1,
    # (b, c) 0, (b, d) +1; (c, d) is not counted. The notebook's 1, ½, 0 scoring of the same
    # pairs gives (0 + ½ + 1 + ½ + 1) / 5 = 3/5 = (1/5 + 1) / 2.
    assert agreement_with_confidence(ranking, reference) == pytest.approx(1 / 5)
    # strict: (a, d), (b, c), (b, d), (c, d) ordered alike; (a, b) reversed, (a, c) tied
    assert strict_agreement(ranking, reference) == pytest.approx(4 / 6)
    # Brier: every pair in name order, P(first below second) from the normal of the draws'
    # mean difference and summed variances, against the reference's point order (always
    # below here)
    mean, var = draws.mean(axis=0), draws.var(axis=0)
    forecasts = [
        NormalDist(mean[i] - mean[j], math.sqrt(var[i] + var[j])).cdf(0.0)
        for i, j in itertools.combinations(range(4), 2)
    ]
    expected = float(np.mean([(f - 1.0) ** 2 for f in forecasts]))
    assert pair_rank_brier(ranking, reference) == pytest.approx(expected)
    assert np.isnan(agreement_with_confidence(ranking, _ranking([1.0, 1.0, 1.0, 1.0])))


def _two_rows(lows_highs: list[tuple[float, float]]) -> ScoreDraws:
    """Models whose two draws are ``low, high``: at confidence 0.5 each interval runs from
    low + ¼·(high − low) to low + ¾·(high − low), exactly."""
    draws = np.asarray(lows_highs, dtype=np.float64).T
    return ScoreDraws(tuple("abcd"[: len(lows_highs)]), draws.mean(axis=0), draws)


def test_touching_intervals_are_apart_and_a_point_inside_an_interval_follows_each_rule() -> None:
    # [1, 3] and [3, 5]: they touch; the notebook's rule (the later starts strictly before
    # the earlier ends) counts them as apart
    touching = _two_rows([(0.0, 4.0), (2.0, 6.0)])
    assert separability(touching, 0.5) == 1.0
    # a point [2, 2] inside [1, 3]: separability's rule overlaps them; agreement's
    # (get_overlap: a positive shared length) does not, and orders the point b above a
    # (its lower bound is higher)
    inside = _two_rows([(0.0, 4.0), (2.0, 2.0)])
    assert separability(inside, 0.5) == 0.0
    below = _two_rows([(0.0, 0.0), (9.0, 9.0)])  # a below b, apart
    above = _two_rows([(9.0, 9.0), (0.0, 0.0)])
    assert agreement_with_confidence(inside, below, 0.5) == 1.0
    assert agreement_with_confidence(inside, above, 0.5) == -1.0


def test_a_reference_of_point_scores_gives_what_needs_no_draws() -> None:
    ranking = _ranking([1.0, 2.0, 3.0, 3.05])
    reference = ScoreDraws.points(("d", "c", "b", "a"), [4.0, 3.0, 2.0, 1.0])
    result = compare_rankings(ranking, reference, resamples=200, unit="questions")
    assert (result.agreement, result.reference_separability) == (None, None)
    assert result.strict_agreement == 1.0
    assert result.spearman.estimate == pytest.approx(1.0)
    assert result.brier == pytest.approx(pair_rank_brier(ranking, reference.only("abcd")))
    assert result.signature.get("rounds") == "0"
    assert result.to_json()["agreement_with_confidence"] is None
    with pytest.raises(InputError, match="needs a ranking's bootstrap draws"):
        separability(reference)


def test_mean_score_draws_leave_missing_grades_out_of_each_draw() -> None:
    table = np.asarray([[1.0, 4.0], [np.nan, 2.0], [3.0, np.nan], [5.0, 6.0]])
    ranking = mean_score_draws(table, ["x", "y"], resamples=50, seed=7)
    assert ranking.estimate.tolist() == [3.0, 4.0]
    picks = resample_indices(4, 50, np.random.default_rng(7))
    for row, pick in enumerate(picks):
        for column in range(2):
            values = table[pick, column]
            kept = values[np.isfinite(values)]
            expected = kept.mean() if len(kept) else np.nan
            assert ranking.draws[row, column] == pytest.approx(expected, nan_ok=True)


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
