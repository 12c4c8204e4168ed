"""Bradley–Terry ratings: a case checkable by hand, a direct maximum-likelihood fit, the
bootstrap's determinism and the anchor."""

from __future__ import annotations

import math

import numpy as np
import pytest

from _shared import needs
from hyoka.errors import InputError
from hyoka.stats.bradley_terry import (
    ELO_SCALE,
    Battles,
    bradley_terry,
    expected_share,
)

needs("scipy")
from scipy.optimize import minimize  # type: ignore[import-untyped]  # noqa: E402


def _simulated(seed: int, models: int = 5, games: int = 40) -> Battles:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, models)
    outcomes: list[tuple[str, str, float]] = []
    for i in range(models):
        for j in range(i + 1, models):
            p = 1.0 / (1.0 + math.exp(strength[j] - strength[i]))
            for k in range(games):
                u = float(rng.random())
                share = 1.0 if u < 0.9 * p else 0.5 if u < 0.9 * p + 0.1 else 0.0
                # alternate who is named first: the fit must not care
                outcomes.append(
                    (f"m{i}", f"m{j}", share) if k % 2 else (f"m{j}", f"m{i}", 1 - share)
                )
    return Battles.of(outcomes)


def test_three_wins_in_four_games_is_log10_3_times_400() -> None:
    # P(a beats b) = 3/4 = σ(Δβ) -> Δβ = ln 3 -> Elo gap 400·log10(3), centred on 1000
    battles = Battles.of([("a", "b", 1.0)] * 3 + [("b", "a", 1.0)])
    ratings = bradley_terry(battles, rounds=0).by_model()
    gap = ELO_SCALE * math.log10(3)
    assert ratings["a"].rating - ratings["b"].rating == pytest.approx(gap, abs=1e-3)
    assert ratings["a"].rating + ratings["b"].rating == pytest.approx(2000.0, abs=1e-6)
    assert expected_share(ratings["a"].rating, ratings["b"].rating) == pytest.approx(0.75, 1e-5)
    assert ratings["a"].games == ratings["b"].games == 4


def test_ties_count_as_half_a_win_and_fractions_as_shares() -> None:
    # two wins, two ties, no loss: 3 of 4 won -> the same gap as above
    ties = Battles.of([("a", "b", 1.0), ("a", "b", 1.0), ("a", "b", 0.5), ("b", "a", 0.5)])
    fractions = Battles.of([("a", "b", 0.75)] * 4)
    gap = ELO_SCALE * math.log10(3)
    for battles in (ties, fractions):
        ratings = bradley_terry(battles, rounds=0).by_model()
        assert ratings["a"].rating - ratings["b"].rating == pytest.approx(gap, abs=1e-3)


def test_a_balanced_cycle_rates_everyone_equal() -> None:
    battles = Battles.of([("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)])
    ratings = bradley_terry(battles, rounds=0).ratings
    assert [r.rating for r in ratings] == pytest.approx([1000.0] * 3, abs=1e-6)


def test_matches_a_direct_maximum_likelihood_fit() -> None:
    battles = _simulated(seed=3)
    models = battles.models

    def negative_loglik(beta: np.ndarray) -> float:
        d = beta[battles.first] - beta[battles.second]
        return float(
            np.sum(battles.share * np.logaddexp(0, -d) + (1 - battles.share) * np.logaddexp(0, d))
        )

    direct = minimize(negative_loglik, np.zeros(len(models)), method="BFGS", tol=1e-12).x
    direct_elo = ELO_SCALE / math.log(10) * (direct - direct.mean()) + 1000.0
    ours = bradley_terry(battles, rounds=0).by_model()
    for i, model in enumerate(models):
        assert ours[model].rating == pytest.approx(direct_elo[i], abs=1e-2)


def test_bootstrap_is_seeded_and_brackets_the_estimate() -> None:
    battles = _simulated(seed=5)
    first = bradley_terry(battles, rounds=200, seed=7)
    again = bradley_terry(battles, rounds=200, seed=7)
    other = bradley_terry(battles, rounds=200, seed=8)
    assert first == again
    assert first != other
    for rating in first.ratings:
        assert rating.low < rating.rating < rating.high
        assert rating.high - rating.low < 300


def test_anchor_sits_at_its_rating_with_no_spread() -> None:
    battles = _simulated(seed=11)
    ratings = bradley_terry(battles, rounds=50, anchor="m2", anchor_rating=1200.0).by_model()
    assert ratings["m2"].rating == pytest.approx(1200.0)
    assert ratings["m2"].low == pytest.approx(1200.0)
    assert ratings["m2"].high == pytest.approx(1200.0)
    centred = bradley_terry(battles, rounds=0).by_model()
    shift = 1200.0 - centred["m2"].rating
    for model, rating in centred.items():
        assert ratings[model].rating == pytest.approx(rating.rating + shift, abs=1e-6)


def test_an_unbeaten_model_has_no_rating_and_the_reason_says_who() -> None:
    """One decisive game, or a model that never loses: no finite maximum, every rating
    n/a (NaN, ``null`` in JSON) with the reason, never the number the iterations reach."""
    for battles in (
        Battles.of([("a", "b", 1.0)]),
        Battles.of([("a", "b", 1.0)] * 5),
        Battles.of([("a", "b", 1.0), ("c", "a", 0.0), ("b", "c", 1.0), ("c", "b", 0.5)]),
    ):
        found = bradley_terry(battles, rounds=20)
        assert found.no_maximum == "no finite maximum (a never loses)"
        assert all(math.isnan(r.rating) and math.isnan(r.low) for r in found.ratings)
        assert found.ratings[0].to_json() == {
            "model": "a", "rating": None, "low": None, "high": None,
            "games": found.ratings[0].games, "no_maximum": "no finite maximum (a never loses)",
        }  # fmt: skip


@pytest.mark.parametrize(
    ("outcomes", "why"),
    [
        # a set of two that never loses to the other two
        (
            [("a", "b", 1.0), ("b", "a", 1.0), ("c", "d", 1.0), ("d", "c", 0.5),
             ("a", "c", 1.0), ("b", "d", 1.0), ("d", "a", 0.0)],
            "a, b never lose to c, d",
        ),
        # one model lost every game: it never wins
        (
            [("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0), ("d", "a", 0.0),
             ("b", "d", 1.0)],
            "d never wins",
        ),
    ],
)  # fmt: skip
def test_the_reason_names_the_set_that_never_loses_to_the_rest(
    outcomes: list[tuple[str, str, float]], why: str
) -> None:
    found = bradley_terry(Battles.of(outcomes), rounds=0)
    assert found.no_maximum == f"no finite maximum ({why})"
    assert found.separation_lines() == [f"ratings n/a: no finite maximum ({why})"]


def test_draws_without_a_maximum_make_the_intervals_na_and_are_counted() -> None:
    """A cycle has a maximum (everyone equal); a draw that leaves out all of one game has
    none, and its percentiles would be where its fit stopped: the intervals are n/a."""
    battles = Battles.of([("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)] * 3)
    found = bradley_terry(battles, rounds=200, seed=0)
    assert found.no_maximum is None
    assert [r.rating for r in found.ratings] == pytest.approx([1000.0] * 3, abs=1e-6)
    assert 0 < found.separated_draws < 200
    assert all(math.isnan(r.low) and math.isnan(r.high) for r in found.ratings)
    assert found.separation_lines() == [
        "intervals n/a where those draws reach a bound: "
        f"{found.separated_draws} of 200 bootstrap draws have no finite maximum"
    ]


def test_bad_input_is_one_clear_error() -> None:
    with pytest.raises(InputError, match="no battles"):
        bradley_terry(Battles.of([]))
    with pytest.raises(InputError, match="not a share"):
        Battles.of([("a", "b", 1.5)])
    with pytest.raises(InputError, match="two different models"):
        Battles.of([("a", "a", 1.0)])
    with pytest.raises(InputError, match="`anchor`"):
        bradley_terry(Battles.of([("a", "b", 1.0)]), anchor="zz")


def test_the_fit_test_finds_no_maximum_exactly_where_the_comparison_graph_says_so() -> None:
    """``logistic.separating_move`` on Bradley–Terry's pair summary (the test every fit
    uses) against Ford's condition, checked here on the graph: a draw has a maximum
    exactly where, within each set of models compared with one another, every model
    reaches every other by a chain of losses (``never_lose`` names who breaks it)."""
    from hyoka.stats.bootstrap import resample_indices
    from hyoka.stats.bradley_terry import _pairs, _summarise, fit_strengths
    from hyoka.stats.separation import bradley_terry_move, never_lose, pair_losses

    rng = np.random.default_rng(4)
    outcomes = [
        (f"m{i}", f"m{j}", float(rng.choice([0.0, 0.5, 1.0], p=[0.45, 0.1, 0.45])))
        for i, j in (rng.choice(5, 2, replace=False) for _ in range(14))
    ]
    battles = Battles.of(outcomes)
    slot, own, left, right = _pairs(battles)
    picks = resample_indices(len(battles), 400, np.random.default_rng(0))
    wins, games = _summarise(slot, own, len(left), picks)
    m = len(battles.models)
    beta = fit_strengths(wins, games, left, right, m)
    found = bradley_terry_move(beta, wins, games, left, right).any(axis=1)
    graph = [
        never_lose(battles.models, pair_losses(m, left, right, wins[r], games[r])) is not None
        for r in range(len(picks))
    ]
    assert found.tolist() == graph
    assert 50 < sum(graph) < 350
