"""Bradley–Terry with a fitted home (first-position) advantage, fitted as Rakuda fits it.

Rakuda (yuzu-ai/japanese-llm-ranking, ``jrank/make_ranking.py``) judges each match once,
in one order, so the judge's preference for the first-shown answer is a parameter of the
model rather than something both orders cancel: P(first i beats second j) = σ(α + β_i −
β_j), α shared by every match. A tie counts as half a win (the log-likelihood
Σ Y·(α+β_i−β_j) − log(1+e^(α+β_i−β_j)) with Y = ½).

The fit follows upstream's procedure step for step, since an optimiser stopped by a
tolerance is only reproducible that way: models numbered in the order
``pd.concat([model1_id, model2_id]).unique()`` gives (every first-shown model in match
order, then the second-shown ones not yet seen); parameters x = (α, β_0 … β_{n-1}) from
zeros; β_0 replaced by −Σ β_{1…} inside the objective (strengths sum to 0); scipy's
L-BFGS-B with its default finite-difference gradient; strengths and α on the Elo-like
scale 400/ln 10 (strengths + 1000). The bootstrap draws the matches with replacement
``rounds`` times and refits each draw; a model absent from a draw has no strength there
and is left out of that draw's percentiles (pandas' ``quantile`` skips missing values); the
16th, 50th and 84th percentiles (linear interpolation) are a ±1σ band, not a 95% one.
Upstream's draws come from numpy's unseeded global generator, so its intervals cannot be
reproduced draw for draw: hyoka's draws are seeded (the seed is in the signature).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.bootstrap import FloatArray, IntArray

#: Rakuda's defaults (``make_ranking.py`` --scale, --base, --init-rating, --bootstrap-n)
SCALE, BASE, INIT_RATING, ROUNDS = 400.0, 10.0, 1000.0, 500
#: the percentiles upstream saves as lower, median and upper
PERCENTILES = (16.0, 50.0, 84.0)


@dataclass(frozen=True)
class Match:
    """One judged match: the model shown first, the one shown second, the first's score
    (1 win, 0.5 tie, 0 loss)."""

    first: str
    second: str
    score: float


@dataclass(frozen=True)
class HomeFit:
    """A fit: strengths on the Elo-like scale by model (upstream's numbering), and α."""

    ratings: dict[str, float]
    advantage: float


def model_order(matches: Sequence[Match]) -> tuple[str, ...]:
    """``pd.concat([model1_id, model2_id]).unique()``: first-shown models in match order,
    then second-shown ones not seen yet."""
    seen = [m.first for m in matches] + [m.second for m in matches]
    return tuple(dict.fromkeys(seen))


def _log_likelihood(x: FloatArray, score: FloatArray, first: IntArray, second: IntArray) -> float:
    betas = x[1:]
    diff = x[0] + betas[first] - betas[second]
    return float(np.sum(score * diff - np.log1p(np.exp(diff))))


def fit_home_advantage(
    matches: Sequence[Match], scale: float = SCALE, base: float = BASE, init: float = INIT_RATING
) -> HomeFit:
    """The maximum-likelihood strengths and home advantage, as upstream's ``compute_bt_mle``."""
    try:
        from scipy.optimize import minimize  # type: ignore[import-untyped]
    except ImportError:
        raise InputError(
            "Rakuda's ranking is fitted as upstream fits it, with scipy: "
            "pip install 'hyoka[rakuda]'"
        ) from None
    if not matches:
        raise InputError("no matches to rank")
    models = model_order(matches)
    index = {model: number for number, model in enumerate(models)}
    score = np.asarray([m.score for m in matches], dtype=np.float64)
    first = np.asarray([index[m.first] for m in matches], dtype=np.int64)
    second = np.asarray([index[m.second] for m in matches], dtype=np.int64)

    def objective(x: FloatArray) -> float:
        x[1] = -np.sum(x[2:])  # upstream sets it in place, inside the objective
        return -_log_likelihood(x, score, first, second)

    found = minimize(objective, np.zeros(len(models) + 1), method="L-BFGS-B")
    x = np.asarray(found.x, dtype=np.float64)
    x[1] = -np.sum(x[2:])
    factor = scale / math.log(base)
    ratings = {model: float(factor * x[1 + i] + init) for i, model in enumerate(models)}
    return HomeFit(ratings=ratings, advantage=float(factor * x[0]))


@dataclass(frozen=True)
class RankedModel:
    """One model's bootstrap percentiles (upstream's MLE ranking row) and its point fit."""

    model: str
    lower: float
    median: float
    upper: float
    point: float

    @property
    def one_sigma_plus(self) -> float:
        return self.upper - self.median

    @property
    def one_sigma_minus(self) -> float:
        return self.median - self.lower


@dataclass(frozen=True)
class HomeRanking:
    """Models by bootstrap median, best first, with the point fit's home advantage."""

    models: tuple[RankedModel, ...]
    advantage: float
    rounds: int
    seed: int
    matches: int


def rank_home_advantage(
    matches: Sequence[Match], rounds: int = ROUNDS, seed: int = 0
) -> HomeRanking:
    """Upstream's saved MLE ranking: the point fit, and ``rounds`` refits of matches drawn
    with replacement (seeded), summarised by the 16th/50th/84th percentiles."""
    if rounds < 1:
        raise InputError(f"--rounds must be at least 1, got {rounds}")
    point = fit_home_advantage(matches)
    rng = np.random.default_rng(seed)
    names = sorted(point.ratings)
    draws = np.full((rounds, len(names)), np.nan)
    column = {name: number for number, name in enumerate(names)}
    for round_ in range(rounds):
        picked = rng.integers(0, len(matches), size=len(matches))
        refit = fit_home_advantage([matches[i] for i in picked])
        for name, rating in refit.ratings.items():
            draws[round_, column[name]] = rating
    low, mid, high = (np.nanpercentile(draws, q, axis=0) for q in PERCENTILES)
    ranked = [
        RankedModel(name, float(low[i]), float(mid[i]), float(high[i]), point.ratings[name])
        for i, name in enumerate(names)
    ]
    ranked.sort(key=lambda m: (-m.median, m.model))
    return HomeRanking(tuple(ranked), point.advantage, rounds, seed, len(matches))
