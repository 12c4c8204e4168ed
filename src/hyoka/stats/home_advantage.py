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
16th, 50th and 84th percentiles (linear interpolation) are a ±1σ band, not a 95% one; the
home advantage gets the same band over the same draws (upstream saves only its point fit).
Upstream's draws come from numpy's unseeded global generator, so its intervals cannot be
reproduced draw for draw: hyoka's draws are seeded (the seed is in the signature).

Where the matches leave the likelihood without a maximum (a model that never loses; the
first-shown answer winning every decisive match), L-BFGS-B stops somewhere and upstream
saves that number. Here ``stats.separation`` (the test every fit uses, on this model's
design: the home-advantage column and the strengths) finds it. Without a joint maximum
there are no ratings to show, even where only the advantage runs off (the strengths are
then wherever the optimiser stopped): every rating is NaN, shown as ``n/a: no finite
maximum (<why>)``, and the advantage too where it runs off; a draw without a maximum
counts as ±∞ for the numbers that run off in it (every rating of a draw whose advantage
runs off unbounded either way, left out of a median), so a percentile those draws reach
is NaN, and how many draws had none is said.

Where the models fall into groups that never met (directly or through others), the
likelihood has its maximum along a line: each group's strengths move together without
changing it, and upstream ranks the groups against each other where the optimiser left
their offsets. Here every rating is then NaN, shown as ``n/a: not comparable (models {a,
b} never met {c, d})`` (``stats.connectivity``); the home advantage, which no offset moves,
is shown. A draw whose present models fall apart counts as unbounded either way for their
ratings (a median leaves it out), and how many such draws there were is said.
"""

from __future__ import annotations

import contextlib
import functools
import math
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.bootstrap import FloatArray, IntArray, finite_or_none
from hyoka.stats.connectivity import (
    apart_draws_line,
    apart_reasons,
    battle_links,
    linked_groups,
    mark_undetermined,
    reasons_na,
    undetermined,
)
from hyoka.stats.logistic import BoolArray, fit_logistic, separating_move
from hyoka.stats.separation import (
    battle_losses,
    directions,
    draws_line,
    extended_quantiles,
    na_reason,
    never_lose,
    not_finite,
    number_or_na,
)

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

    with _one_blas_thread():
        found = minimize(objective, np.zeros(len(models) + 1), method="L-BFGS-B")
    x = np.asarray(found.x, dtype=np.float64)
    x[1] = -np.sum(x[2:])
    factor = scale / math.log(base)
    ratings = {model: float(factor * x[1 + i] + init) for i, model in enumerate(models)}
    return HomeFit(ratings=ratings, advantage=float(factor * x[0]))


class _OneBlasThread:
    """scipy's BLAS held to one thread while any fit runs (scipy imported: its library
    loaded), and given back its threads when the last one ends.

    L-BFGS-B's steps on a few parameters call BLAS on tiny matrices; OpenBLAS spreads each
    call over every core, and its threads then wait on each other longer than the work
    takes: a bootstrap of 500 refits ran 4x slower on two cores. One thread gives the same
    numbers. Fits on several threads at once (sweep cells) share one limit, counted under
    a lock: each taking its own would save the one thread another had set and put it back
    for good when it ended last. Without threadpoolctl (the ``rakuda`` extra) the fit runs
    as BLAS is set."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._limit: Any = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        controller = _blas_controller()
        if controller is None:
            yield
            return
        with self._lock:
            if self._running == 0:
                self._limit = controller.limit(limits=1, user_api="blas")
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1
                if self._running == 0:
                    self._limit.restore_original_limits()
                    self._limit = None


_one_blas_thread = _OneBlasThread().held


@functools.cache
def _blas_controller() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded (once: finding them takes ms)."""
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:
        return None
    return ThreadpoolController()


@dataclass(frozen=True)
class RankedModel:
    """One model's bootstrap percentiles (upstream's MLE ranking row) and its point fit;
    NaN where the fit (or the draws, for a percentile) has no finite maximum."""

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
    """Models by bootstrap median, best first, with the point fit's home advantage and its
    16th/50th/84th percentiles over the same draws; ``no_maximum``: why the ratings have
    no finite maximum (all n/a, models by name), ``advantage_no_maximum`` the same for the
    advantage; ``separated_draws``: how many draws have none; ``not_comparable``: why the
    ratings are not placed against each other (all n/a: the models fall into groups that
    never met), ``apart_draws``: how many draws fall apart."""

    models: tuple[RankedModel, ...]
    advantage: float
    rounds: int
    seed: int
    matches: int
    advantage_band: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    no_maximum: str | None = None
    advantage_no_maximum: str | None = None
    separated_draws: int = 0
    not_comparable: str | None = None
    apart_draws: int = 0

    @property
    def unranked(self) -> bool:
        """No order to rank the models in (every rating n/a): they come by name."""
        return self.no_maximum is not None or self.not_comparable is not None

    def separation_lines(self) -> list[str]:
        """Why numbers are n/a, one line each; none where none is."""
        lines = []
        if self.no_maximum is not None:
            lines.append(f"ratings n/a: {self.no_maximum}")
        if self.not_comparable is not None:
            lines.append(f"ratings n/a: {self.not_comparable}")
        if self.advantage_no_maximum is not None and self.advantage_no_maximum != self.no_maximum:
            lines.append(f"home advantage n/a: {self.advantage_no_maximum}")
        # the bounds those draws could reach: the advantage's, and the ratings' where shown
        numbers = [] if self.unranked else [(m.lower, m.median, m.upper) for m in self.models]
        reached = not np.isfinite([*self.advantage_band, *np.ravel(numbers)]).all()
        if self.separated_draws:
            lines.append(draws_line(self.separated_draws, self.rounds, reached))
        if self.apart_draws and not self.unranked:
            lines.append(apart_draws_line(self.apart_draws, self.rounds, reached))
        return lines

    def reasons(self, model: RankedModel) -> tuple[str | None, str | None]:
        """Why a number of ``model``'s row is n/a: (no finite maximum, not comparable),
        each ``None`` where it is not why."""
        return reasons_na(
            self.no_maximum, self.not_comparable, self.separated_draws, self.apart_draws,
            self.rounds, (model.lower, model.median, model.upper, model.point),
        )  # fmt: skip

    def why(self, model: RankedModel) -> str | None:
        """Why a number of ``model``'s row is n/a, as shown after ``n/a: `` (``None``:
        none is)."""
        no_maximum, apart = self.reasons(model)
        return "; ".join(r for r in (apart, no_maximum) if r is not None) or None

    def advantage_why(self) -> str | None:
        """Why the home advantage or a percentile of it is n/a (``None``: none is)."""
        return na_reason(
            self.advantage_no_maximum, self.separated_draws, self.rounds,
            (self.advantage, *self.advantage_band),
        )  # fmt: skip

    def row_cells(self, model: RankedModel) -> list[str]:
        """Median, −1σ, +1σ and the point fit, one decimal; ``n/a: <why>`` where not
        finite."""
        why = self.why(model)
        numbers = (model.median, model.one_sigma_minus, model.one_sigma_plus, model.point)
        return [number_or_na(value, why) for value in numbers]

    def advantage_text(self) -> str:
        """``35.2 (percentiles 16/50/84 of the draws: 20.1, 33.0, 50.3)``, n/a as
        ``row_cells`` says it."""
        why = self.advantage_why()
        band = ", ".join(number_or_na(value, why) for value in self.advantage_band)
        return f"{number_or_na(self.advantage, why)} (percentiles 16/50/84 of the draws: {band})"

    def rows_json(self) -> list[dict[str, Any]]:
        """Upstream's saved MLE ranking fields per model, best first; ``null`` where n/a,
        with ``no_maximum`` and ``not_comparable``: why."""
        rows = []
        for m in self.models:
            row = {
                "model_id": m.model, "lower": finite_or_none(m.lower),
                "median": finite_or_none(m.median), "upper": finite_or_none(m.upper),
                "one_sigma_plus": finite_or_none(m.one_sigma_plus),
                "one_sigma_minus": finite_or_none(m.one_sigma_minus),
                "median_rounded": float(round(m.median)) if math.isfinite(m.median) else None,
                "mle": finite_or_none(m.point),
            }  # fmt: skip
            no_maximum, apart = self.reasons(m)
            if no_maximum is not None:
                row["no_maximum"] = no_maximum
            if apart is not None:
                row["not_comparable"] = apart
            rows.append(row)
        return rows

    def advantage_json(self) -> dict[str, Any]:
        """The home advantage's point fit and percentiles (``null`` where n/a, with
        ``no_maximum``: why)."""
        lower, median, upper = (finite_or_none(value) for value in self.advantage_band)
        found: dict[str, Any] = {
            "home_advantage": finite_or_none(self.advantage),
            "home_advantage_percentiles": {"lower": lower, "median": median, "upper": upper},
        }
        why = self.advantage_why()
        if why is not None:
            found["home_advantage_no_maximum"] = why
        return found


#: why the advantage runs off where the graph of losses does not say
_ADVANTAGE_SPLITS = "the home advantage, with the strengths, splits every win from every loss"


def _design(
    matches: Sequence[Match], models: Sequence[str]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The fit as a logistic design summarised per ordered pair: per pair a row of the
    first-shown model's wins and one of its losses (a tie half of each), columns the home
    advantage and every strength (+1 first, −1 second); the outcome of each row, and each
    match's share of each row (matches × rows, for a draw's weights)."""
    index = {model: number for number, model in enumerate(models)}
    pairs: dict[tuple[int, int], int] = {}
    slot = np.asarray(
        [pairs.setdefault((index[m.first], index[m.second]), len(pairs)) for m in matches],
        dtype=np.int64,
    )
    count = len(pairs)
    rows = np.zeros((count, 1 + len(models)))
    rows[:, 0] = 1.0
    for (first, second), number in pairs.items():
        rows[number, 1 + first] = 1.0
        rows[number, 1 + second] = -1.0
    design = np.concatenate([rows, rows])
    outcome = np.concatenate([np.ones(count), np.zeros(count)])
    score = np.asarray([m.score for m in matches], dtype=np.float64)
    share = np.zeros((len(matches), 2 * count))
    share[np.arange(len(matches)), slot] = score
    share[np.arange(len(matches)), count + slot] = 1.0 - score
    return design, outcome, share


def _runaway(
    matches: Sequence[Match], models: Sequence[str], counts: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Per draw (``counts``: rounds × matches, how often each was drawn): the way each
    rating runs off (rounds × models, centred over the models the draw has, as the fit
    centres them; ``separation.directions``) and the advantage's (rounds), 0 where the
    draw's likelihood has a maximum."""
    design, outcome, share = _design(matches, models)
    weights = counts @ share
    weights[weights < 1e-12] = 0.0
    beta = fit_logistic(design, outcome, weights)
    move = separating_move(design, outcome, weights, beta)
    strengths = move[:, 1:]
    present = (counts @ _presence(matches, models)) > 0
    centre = np.sum(np.where(present, strengths, 0.0), axis=1, keepdims=True)
    centre = centre / np.maximum(present.sum(axis=1, keepdims=True), 1)
    shifted = np.where(present, strengths - centre, 0.0)
    found = directions(np.concatenate([move[:, :1], shifted], axis=1))
    return found[:, 1:], found[:, 0]


def _presence(matches: Sequence[Match], models: Sequence[str]) -> FloatArray:
    """matches × models: 1 where the match has the model."""
    index = {model: number for number, model in enumerate(models)}
    found = np.zeros((len(matches), len(models)))
    for number, match in enumerate(matches):
        found[number, index[match.first]] = found[number, index[match.second]] = 1.0
    return found


def _why(matches: Sequence[Match], models: Sequence[str]) -> str:
    """Why the matches have no maximum: who never loses, else the home advantage."""
    index = {model: number for number, model in enumerate(models)}
    lost_to = battle_losses(
        len(models),
        np.asarray([index[m.first] for m in matches], dtype=np.int64),
        np.asarray([index[m.second] for m in matches], dtype=np.int64),
        np.asarray([m.score for m in matches], dtype=np.float64),
    )
    return not_finite(never_lose(models, lost_to) or _ADVANTAGE_SPLITS)


def rank_home_advantage(
    matches: Sequence[Match], rounds: int = ROUNDS, seed: int = 0
) -> HomeRanking:
    """Upstream's saved MLE ranking: the point fit, and ``rounds`` refits of matches drawn
    with replacement (seeded), summarised by the 16th/50th/84th percentiles; n/a where a
    fit has no finite maximum (see the module's docstring)."""
    if rounds < 1:
        raise InputError(f"`rounds` must be at least 1, got {rounds}")
    point = fit_home_advantage(matches)
    rng = np.random.default_rng(seed)
    names = sorted(point.ratings)
    draws = np.full((rounds, len(names)), np.nan)
    advantages = np.zeros(rounds)
    counts = np.zeros((rounds, len(matches)))
    column = {name: number for number, name in enumerate(names)}
    for round_ in range(rounds):
        picked = rng.integers(0, len(matches), size=len(matches))
        counts[round_] = np.bincount(picked, minlength=len(matches))
        refit = fit_home_advantage([matches[i] for i in picked])
        for name, rating in refit.ratings.items():
            draws[round_, column[name]] = rating
        advantages[round_] = refit.advantage
    # the point fit's weights (every match once) first, then each draw's
    every = np.concatenate([np.ones((1, len(matches))), counts])
    all_runs, all_advantage_runs = _runaway(matches, names, every)
    point_runs, runs = all_runs[0], all_runs[1:]
    point_advantage_runs, advantage_runs = all_advantage_runs[0], all_advantage_runs[1:]
    groups, present = _groups(matches, names, every)
    apart = apart_reasons(names, groups[0])[0]
    # counted where the fit places the ratings (all or none: they are centred)
    unplaced = undetermined(groups[1:], present[1:], None) & (apart is None)
    apart_draws = int(unplaced.any(axis=1).sum())
    quantiles = [q / 100 for q in PERCENTILES]
    # a draw whose advantage runs off has no joint maximum: its strengths are where the
    # optimiser stopped, so they count as unbounded either way (left out of a median)
    jointly = (advantage_runs != 0)[:, None] & present[1:]
    marked = mark_undetermined(runs, unplaced | jointly)
    low, mid, high = extended_quantiles(draws, marked, quantiles)
    band = extended_quantiles(advantages[:, None], advantage_runs[:, None], quantiles)[:, 0]
    why = _why(matches, names) if point_runs.any() or point_advantage_runs else None
    no_maximum = why  # no joint maximum (even the advantage's alone): no strengths either
    gone = no_maximum is not None or apart is not None
    ratings = {name: math.nan if gone else point.ratings[name] for name in names}
    if gone:  # no band about a rating that does not exist
        low[:], mid[:], high[:] = math.nan, math.nan, math.nan
    ranked = [
        RankedModel(name, float(low[i]), float(mid[i]), float(high[i]), ratings[name])
        for i, name in enumerate(names)
    ]
    if not gone:
        ranked.sort(key=lambda m: (-m.median if math.isfinite(m.median) else math.inf, m.model))
    advantage_no_maximum = why if point_advantage_runs else None
    advantage = math.nan if advantage_no_maximum else point.advantage
    if advantage_no_maximum is not None:
        band[:] = math.nan
    separated = int(((runs != 0).any(axis=1) | (advantage_runs != 0)).sum())
    return HomeRanking(
        tuple(ranked), advantage, rounds, seed, len(matches),
        (float(band[0]), float(band[1]), float(band[2])),
        no_maximum, advantage_no_maximum, separated, apart, apart_draws,
    )  # fmt: skip


def _groups(
    matches: Sequence[Match], models: Sequence[str], counts: FloatArray
) -> tuple[IntArray, BoolArray]:
    """Per draw (``counts``: rows × matches, how often each was drawn): each model's group
    (``connectivity.linked_groups``) and whether the draw has the model (rows × models)."""
    index = {model: number for number, model in enumerate(models)}
    first = np.asarray([index[m.first] for m in matches], dtype=np.int64)
    second = np.asarray([index[m.second] for m in matches], dtype=np.int64)
    groups = linked_groups(battle_links(len(models), first, second, counts))
    present: BoolArray = (counts @ _presence(matches, models)) > 0
    return groups, present
