"""Bradley–Terry ratings from pairwise outcomes, with bootstrap intervals (arena-hard style).

Each battle is two models and the first one's share of the win: 1 (win), 0.5 (tie), 0
(loss), or a fraction (a judge's probability-averaged verdict: P(A) + P(tie)/2). Under
Bradley–Terry, P(i beats j) = σ(β_i − β_j); the fit maximises the fractional-outcome
log-likelihood, which counts a tie as half a win and half a loss, exactly as arena-hard-auto
does by duplicating tied battles. Ratings are shown on the Elo scale
(``1000 + 400·β/ln 10``), centred at 1000 or shifted so that an anchor model sits at a
chosen rating.

The fit is Newton's method on the model-by-model summary (wins and games per pair), so its
cost does not grow with the number of battles; all bootstrap rounds are solved at once as a
stack of small systems. Resampling draws battles with replacement (seeded: the same input
gives the same intervals), or, where battles belong to groups (the battles of one
question), whole groups. A vanishing ridge penalty fixes the rating scale's free offset; it
moves ordinary ratings by far less than a displayed digit.

Where a model never loses (or a set of models never loses to the rest), the likelihood has
no maximum: the ratings would be wherever the iterations stopped (one decisive game: 2044
against -44). ``separation`` finds it (``logistic.separating_move``, the one test every
fit uses): the ratings are then NaN, shown as ``n/a: no finite maximum (<who never
loses>)``. A bootstrap draw without one counts as ±∞ for the ratings that run off in it
(``separation.bounded_percentiles``): a bound those reach is NaN (n/a), and the count of
such draws is said. ``Rating.why`` carries the words.

Where the models fall into groups that never met (directly or through others), the ratings
of one group against another are wherever the ridge put the groups' offsets: centred,
every rating is then NaN, shown as ``n/a: not comparable (models {a, b} never met {c,
d})``; with an anchor, the models outside its group (``stats.connectivity``). A draw that
falls apart so counts as unbounded either way for the ratings it leaves unplaced, and is
counted. ``Rating.apart`` carries those words.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from hyoka.errors import InputError
from hyoka.stats.bootstrap import (
    FloatArray,
    IntArray,
    draw_weights,
    finite_or_none,
    resampled,
)
from hyoka.stats.connectivity import (
    apart_draws_line,
    apart_lines,
    apart_reasons,
    linked_groups,
    mark_undetermined,
    pair_links,
    reasons_na,
    undetermined,
)
from hyoka.stats.logistic import BoolArray
from hyoka.stats.separation import (
    bounded_percentiles,
    bradley_terry_move,
    directions,
    draws_line,
    never_lose,
    not_finite,
    pair_losses,
)

ELO_SCALE = 400.0
ELO_BASE = 10.0
INITIAL_RATING = 1000.0
#: Elo points per unit of log-strength
ELO_FACTOR = ELO_SCALE / math.log(ELO_BASE)
#: Ridge penalty on the log-strengths: finite ratings for unbeaten models, unique optimum.
RIDGE = 1e-6
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 100
#: Battles × rounds per batch of bootstrap weights (bounds memory to ~100 MB).
_BATCH_CELLS = 8_000_000


@dataclass(frozen=True)
class Battles:
    """Battles as arrays: ``first[k]`` played ``second[k]`` and took ``share[k]`` of the win."""

    models: tuple[str, ...]
    first: IntArray
    second: IntArray
    share: FloatArray

    def __len__(self) -> int:
        return len(self.share)

    @classmethod
    def of(cls, outcomes: Iterable[tuple[str, str, float]]) -> Battles:
        """From ``(model_a, model_b, share of model_a)`` triples; models in first-seen order."""
        index: dict[str, int] = {}
        first: list[int] = []
        second: list[int] = []
        share: list[float] = []
        for a, b, s in outcomes:
            if a == b:
                raise InputError(f"a battle needs two different models, got {a!r} twice")
            if not 0.0 <= s <= 1.0 or math.isnan(s):
                raise InputError(f"{a} vs {b}: outcome {s!r} is not a share between 0 and 1")
            first.append(index.setdefault(a, len(index)))
            second.append(index.setdefault(b, len(index)))
            share.append(float(s))
        return cls(
            models=tuple(index),
            first=np.asarray(first, dtype=np.int64),
            second=np.asarray(second, dtype=np.int64),
            share=np.asarray(share, dtype=np.float64),
        )


@dataclass(frozen=True)
class Rating:
    """One model's rating and interval; NaN where the fit (or a bootstrap draw, for the
    interval) has no finite maximum, ``why`` then saying so (``no finite maximum (...)``),
    or leaves the model unplaced against the others, ``apart`` saying so (``not
    comparable (...)``); ``reason`` is both, as a table shows them."""

    model: str
    rating: float
    low: float
    high: float
    games: int
    why: str | None = None
    apart: str | None = None

    @property
    def reason(self) -> str | None:
        """Why a number of this rating is n/a, as shown after ``n/a: ``; ``None``: none is."""
        return "; ".join(r for r in (self.apart, self.why) if r is not None) or None

    def to_json(self) -> dict[str, float | int | str | None]:
        """n/a (NaN: a rating the data leave without a maximum, or unplaced) as ``null``,
        with ``no_maximum`` and ``not_comparable``: why."""
        found: dict[str, float | int | str | None] = {
            "model": self.model,
            "rating": finite_or_none(self.rating),
            "low": finite_or_none(self.low),
            "high": finite_or_none(self.high),
            "games": self.games,
        }
        if self.why is not None:
            found["no_maximum"] = self.why
        if self.apart is not None:
            found["not_comparable"] = self.apart
        return found


@dataclass(frozen=True)
class Ratings:
    """Ratings best first, with their percentile bootstrap intervals."""

    ratings: tuple[Rating, ...]
    rounds: int
    confidence: float
    anchor: str | None
    seed: int
    #: why the battles have no finite maximum (every rating n/a); None where they have one
    no_maximum: str | None = None
    #: how many bootstrap draws have none (every interval n/a where any)
    separated_draws: int = 0
    #: per model the groups leave unplaced: why (``connectivity.apart_reasons``)
    not_comparable: dict[str, str] = field(default_factory=dict)
    #: how many bootstrap draws fall into groups that never met
    apart_draws: int = 0

    def by_model(self) -> dict[str, Rating]:
        return {r.model: r for r in self.ratings}

    def separation_lines(self, what: str = "ratings") -> list[str]:
        """Why ratings or intervals are n/a, one line each; none where none is (``what``:
        the ratings' name in the lines)."""
        lines = [] if self.no_maximum is None else [f"{what} n/a: {self.no_maximum}"]
        reasons = [self.not_comparable.get(r.model) for r in self.ratings]
        lines += apart_lines([r.model for r in self.ratings], reasons, what)
        if self.no_maximum is not None or all(reason is not None for reason in reasons):
            return lines  # no rating to draw an interval about
        reached = any(
            math.isfinite(r.rating) and not math.isfinite(r.low + r.high) for r in self.ratings
        )
        prefix = "" if what == "ratings" else f"{what.removesuffix(' ratings')} "
        if self.separated_draws:
            lines.append(prefix + draws_line(self.separated_draws, self.rounds, reached))
        if self.apart_draws:
            lines.append(prefix + apart_draws_line(self.apart_draws, self.rounds, reached))
        return lines


def _pairs(battles: Battles) -> tuple[IntArray, FloatArray, IntArray, IntArray]:
    """Each battle's unordered pair slot and the lower-numbered model's share; the pairs
    as (left, right) model numbers."""
    m = len(battles.models)
    low = np.minimum(battles.first, battles.second)
    high = np.maximum(battles.first, battles.second)
    own = np.where(battles.first == low, battles.share, 1.0 - battles.share)
    pairs, slot = np.unique(low * m + high, return_inverse=True)
    return slot.reshape(-1), own, (pairs // m).astype(np.int64), (pairs % m).astype(np.int64)


def _summarise(
    slot: IntArray, own: FloatArray, pairs: int, picks: IntArray
) -> tuple[FloatArray, FloatArray]:
    """Wins and games per (row, pair) of the battles ``picks[r]`` selects in row r."""
    rows = picks.shape[0]
    cells = (slot[picks] + np.arange(rows, dtype=np.int64)[:, None] * pairs).ravel()
    size = rows * pairs
    wins = np.asarray(
        np.bincount(cells, weights=own[picks].ravel(), minlength=size), dtype=np.float64
    )
    games: FloatArray = np.bincount(cells, minlength=size).astype(np.float64)
    return wins.reshape(rows, pairs), games.reshape(rows, pairs)


def fit_strengths(
    wins: FloatArray, games: FloatArray, left: IntArray, right: IntArray, models: int
) -> FloatArray:
    """Log-strengths β (rows × models) maximising the penalised Bradley–Terry likelihood.

    ``wins[r, p]`` is what ``left[p]`` won of ``games[r, p]`` against ``right[p]`` in row r.
    Newton's method with step halving, every row at once.
    """
    rows = wins.shape[0]
    beta = np.zeros((rows, models))
    ones = np.ones((models, models)) / models
    # pair p's difference β_left - β_right is incidence[p] · β
    incidence = np.zeros((len(left), models))
    incidence[np.arange(len(left)), left] = 1.0
    incidence[np.arange(len(left)), right] = -1.0
    eye = np.eye(models)

    def objective(b: FloatArray) -> FloatArray:
        d = b[:, left] - b[:, right]
        # log σ(d) = -log(1 + e^{-d}), stable for both signs
        log_p = -np.logaddexp(0.0, -d)
        log_q = -np.logaddexp(0.0, d)
        likelihood: FloatArray = np.sum(wins * log_p + (games - wins) * log_q, axis=1)
        penalised: FloatArray = likelihood - RIDGE / 2 * np.sum(b * b, axis=1)
        return penalised

    current = objective(beta)
    for _ in range(_MAX_ITERATIONS):
        d = beta[:, left] - beta[:, right]
        p = 1.0 / (1.0 + np.exp(-d))
        residual = wins - games * p  # d(loglik)/d(d) per pair
        gradient = residual @ incidence - RIDGE * beta
        curvature = games * p * (1.0 - p)
        # minus the Hessian of the log-likelihood: Eᵀ diag(curvature) E, per row
        hessian = np.einsum("pm,rp,pn->rmn", incidence, curvature, incidence)
        # + the ridge, + the all-ones direction (in which the likelihood is flat and the
        # gradient is zero) so that every system is well conditioned
        system = hessian + RIDGE * eye + ones
        step = np.linalg.solve(system, gradient[:, :, None])[:, :, 0]
        size = np.ones(rows)
        for _ in range(30):  # step halving: never accept a worse likelihood
            trial = beta + size[:, None] * step
            value = objective(trial)
            worse = value < current - 1e-12 * np.abs(current)
            if not worse.any():
                break
            size = np.where(worse, size / 2, size)
        beta, previous, current = trial, current, value
        if np.max(np.abs(size[:, None] * step)) < _TOLERANCE or np.all(
            np.abs(current - previous) <= 1e-14 * np.maximum(1.0, np.abs(current))
        ):
            break
    return beta


def to_elo(
    beta: FloatArray, models: Sequence[str], anchor: str | None, anchor_rating: float
) -> FloatArray:
    """Log-strengths on the Elo scale: centred at 1000, or the anchor at ``anchor_rating``."""
    elo: FloatArray = ELO_FACTOR * beta
    if anchor is None:
        centred: FloatArray = elo - elo.mean(axis=-1, keepdims=True) + INITIAL_RATING
        return centred
    position = list(models).index(anchor)
    return elo - elo[..., position : position + 1] + anchor_rating


def bradley_terry(
    battles: Battles,
    *,
    rounds: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    anchor: str | None = None,
    anchor_rating: float = INITIAL_RATING,
    groups: Sequence[str] | None = None,
) -> Ratings:
    """Ratings of every model in ``battles`` with percentile intervals over ``rounds``
    bootstrap resamples of the battles (0 rounds: no intervals, low = high = rating); with
    ``groups`` (battle k's group: its question) each resample draws the groups with
    replacement, a drawn group bringing all its battles (``group_units``)."""
    if len(battles) == 0:
        raise InputError("Bradley–Terry: no battles to rate")
    if anchor is not None and anchor not in battles.models:
        known = ", ".join(battles.models)
        raise InputError(f"`anchor`: {anchor!r} is not among the rated models ({known})")
    if rounds < 0:
        raise InputError("bootstrap rounds must not be negative")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    models = battles.models
    m = len(models)
    slot, own, left, right = _pairs(battles)
    everything = np.arange(len(battles), dtype=np.int64)[None, :]
    wins, games = _summarise(slot, own, len(left), everything)
    beta = fit_strengths(wins, games, left, right, m)
    estimate = to_elo(beta, models, anchor, anchor_rating)[0]
    no_maximum = None
    if bradley_terry_move(beta, wins, games, left, right).any():
        lost_to = pair_losses(m, left, right, wins[0], games[0])
        no_maximum = not_finite(never_lose(models, lost_to) or "the wins split from the losses")
        estimate[:] = math.nan
    position = None if anchor is None else models.index(anchor)
    apart = apart_reasons(models, linked_groups(pair_links(m, left, right, games))[0], position)
    unplaced = np.asarray([reason is not None for reason in apart])
    estimate[unplaced] = math.nan

    low, high = estimate.copy(), estimate.copy()
    separated_draws = apart_draws = 0
    if rounds:
        samples, runaway, apart_in = _bootstrap_elo(
            battles, rounds, seed, anchor, anchor_rating, groups
        )
        # counted where the fit places the rating: the others are n/a whatever a draw says
        apart_in &= ~unplaced
        runaway[:, unplaced] = 0.0
        low, high = bounded_percentiles(samples, mark_undetermined(runaway, apart_in), confidence)
        separated_draws = int(runaway.any(axis=1).sum())
        apart_draws = int(apart_in.any(axis=1).sum())
        # no interval about a rating that does not exist
        gone = np.full(m, no_maximum is not None) | unplaced
        low[gone], high[gone] = math.nan, math.nan
    ratings, not_comparable = ranked_ratings(
        battles, (estimate, low, high), no_maximum, apart, separated_draws, apart_draws, rounds
    )
    return Ratings(
        ratings, rounds, confidence, anchor, seed, no_maximum, separated_draws,
        not_comparable, apart_draws,
    )  # fmt: skip


def ranked_ratings(
    battles: Battles,
    fitted: tuple[FloatArray, FloatArray, FloatArray],
    no_maximum: str | None,
    apart: Sequence[str | None],
    separated_draws: int,
    apart_draws: int,
    rounds: int,
) -> tuple[tuple[Rating, ...], dict[str, str]]:
    """Each model's ``Rating`` from a fit's ``(estimate, low, high)`` and why any is n/a
    (``reasons_na``), best first (``rating_order``), and the models the fit could not
    compare (``apart``) with their reasons: one home for plain and style-controlled
    Bradley-Terry alike."""
    estimate, low, high = fitted
    models, m = battles.models, len(battles.models)
    counts = np.bincount(battles.first, minlength=m) + np.bincount(battles.second, minlength=m)
    ratings = [
        Rating(
            models[i], float(estimate[i]), float(low[i]), float(high[i]), int(counts[i]),
            *reasons_na(
                no_maximum, apart[i], separated_draws, apart_draws, rounds,
                (estimate[i], low[i], high[i]),
            ),
        )
        for i in range(m)
    ]  # fmt: skip
    # best first; those without a rating (no order to show) after, by name
    ratings.sort(key=rating_order)
    not_comparable = {model: reason for model, reason in zip(models, apart, strict=True) if reason}
    return tuple(ratings), not_comparable


def rating_order(rating: Rating) -> tuple[bool, float, str]:
    """Best first; ratings that are n/a after them, by name."""
    shown = math.isfinite(rating.rating)
    return (not shown, -rating.rating if shown else 0.0, rating.model)


def group_units(groups: Sequence[str], battles: int) -> tuple[IntArray, int]:
    """Each battle's group number (groups in first-seen order) and how many groups."""
    if len(groups) != battles:
        raise InputError("a grouped bootstrap needs one group for every battle")
    index: dict[str, int] = {}
    unit = np.asarray([index.setdefault(g, len(index)) for g in groups], dtype=np.int64)
    return unit, len(index)


def _bootstrap_elo(
    battles: Battles,
    rounds: int,
    seed: int,
    anchor: str | None,
    anchor_rating: float,
    groups: Sequence[str] | None = None,
) -> tuple[FloatArray, FloatArray, BoolArray]:
    """Elo ratings of each resample (rounds × models); where a resample has no finite
    maximum, the way each rating runs off (rounds × models: +1, −1, 0 where it converges;
    ``separation.directions``); and the ratings a resample leaves unplaced, its models
    falling into groups that never met (rounds × models; ``connectivity.undetermined``).
    A resample draws ``n`` battles with replacement (or, with ``groups``, the groups) and
    is summarised per pair before the fit."""
    m = len(battles.models)
    slot, own, left, right = _pairs(battles)
    rng = np.random.default_rng(seed)
    position = None if anchor is None else battles.models.index(anchor)

    def rated(wins: FloatArray, games: FloatArray) -> FloatArray:
        beta = fit_strengths(wins, games, left, right, m)
        elo = to_elo(beta, battles.models, anchor, anchor_rating)
        move = bradley_terry_move(beta, wins, games, left, right)
        # the ratings' move: the strengths' on the Elo scale, less the centre's (or anchor's)
        shift = to_elo(move, battles.models, anchor, 0.0) - to_elo(
            np.zeros_like(move), battles.models, anchor, 0.0
        )
        every = np.ones((len(games), m), dtype=bool)
        apart = undetermined(linked_groups(pair_links(m, left, right, games)), every, position)
        return np.concatenate([elo, directions(shift), apart], axis=1)

    def split(found: FloatArray) -> tuple[FloatArray, FloatArray, BoolArray]:
        return found[:, :m], found[:, m : 2 * m], found[:, 2 * m :] > 0

    if groups is None:

        def drawn(picks: IntArray) -> FloatArray:
            return rated(*_summarise(slot, own, len(left), picks))

        return split(resampled(drawn, len(battles), rounds, rng, batch_cells=_BATCH_CELLS))
    unit, units = group_units(groups, len(battles))
    # each group's wins and games per pair, summed once: a draw is then weights × groups
    # (1.36 s -> 0.014 s for 200 draws of pfmt's 25,920 grade battles). With whole weights
    # and shares of 0, 1/2 or 1 (grades, labels) every sum is exact in any order.
    group_wins = np.zeros((units, len(left)))
    group_games = np.zeros((units, len(left)))
    np.add.at(group_wins, (unit, slot), own)
    np.add.at(group_games, (unit, slot), 1.0)

    def grouped(picks: IntArray) -> FloatArray:
        weights = draw_weights(picks, units)  # rows × groups
        return rated(weights @ group_wins, weights @ group_games)

    return split(resampled(grouped, units, rounds, rng, batch_cells=_BATCH_CELLS))


def expected_share(rating_a: float, rating_b: float) -> float:
    """The share of the win Bradley–Terry predicts for a model rated ``rating_a``."""
    return float(1.0 / (1.0 + ELO_BASE ** ((rating_b - rating_a) / ELO_SCALE)))
