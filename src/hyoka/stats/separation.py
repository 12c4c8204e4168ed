"""Fits without a finite maximum: whether a fit has one, and why not, in the words every
output uses.

Every rating hyoka fits by maximum likelihood (Bradley–Terry, raw and style-controlled;
Rakuda's Bradley–Terry with a home advantage; the style coefficients γ) is a logistic model
of a share of the win. Where some direction of its coefficients splits every whole win
from every whole loss (a model that never loses; a set of models that never loses to the
rest; a style feature the winner always has more of), the likelihood grows without bound
along it: there is no maximum, and a fitted number is wherever an optimiser stopped (one
decisive game puts the winner at 2044 and the loser at -44 on the Elo scale). Such a
number is never shown: it is ``n/a: no finite maximum (<why>)``, and JSON carries ``null``
with the reason.

Whether a fit has a maximum is decided by one mechanism, ``logistic.separating_move``
(the coefficients move along a separating direction as the ridge shrinks), on the fit's
own design: ``bradley_terry_design`` writes Bradley–Terry's pair summary as one, so raw
ratings, Rakuda's and the style-controlled ones are judged alike. A bootstrap draw without
a maximum counts as ±∞ for each number that runs off in it (``directions``,
``extended_quantiles``): a percentile it reaches is n/a, one it does not is what the other
draws give, and the count of such draws is said (``draws_line``). Why is said from the
comparison graph (``never_lose``): for Bradley–Terry without other terms the likelihood
has a maximum exactly where, within each set of models compared with one another, every
model can be reached from every other by a chain of losses (Zermelo 1929, Ford 1957); where
it cannot, some set never loses to the others, and the words name it. Where the graph is
connected that way and a fit still has no maximum, the other terms (the home advantage,
a style feature) split the outcomes, and the caller says so. Where the models fall into
groups that never met, the maximum exists but is not one point: ``stats.connectivity``
says which ratings that leaves unplaced (``n/a: not comparable (...)``), and its draws
enter the percentiles here as ``EITHER``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from hyoka.stats.bootstrap import FloatArray, IntArray
from hyoka.stats.logistic import BoolArray, moved, separating_move

#: what a number without a maximum is shown as, before its reason
NO_MAXIMUM = "no finite maximum"
#: names listed in a reason before the rest are counted
_NAMES_SHOWN = 4
#: ``runaway``'s mark for a number a draw leaves unplaced, either way (``connectivity``)
EITHER = 2.0


def not_finite(reason: str) -> str:
    """``no finite maximum (<reason>)``: the words for a number a fit cannot give."""
    return f"{NO_MAXIMUM} ({reason})"


def shown_na(reason: str) -> str:
    """``n/a: no finite maximum (<reason>)``: what a table shows instead of the number."""
    return f"n/a: {not_finite(reason)}"


def draws_without_maximum(count: int, rounds: int) -> str:
    """Why an interval is n/a: some bootstrap draws have no maximum (their numbers would
    be where the optimiser stopped, and the percentiles with them)."""
    return f"{count} of {rounds} bootstrap draws have {NO_MAXIMUM}"


def na_reason(
    no_maximum: str | None, draws: int, rounds: int, numbers: Sequence[float]
) -> str | None:
    """Why one of ``numbers`` (an estimate and its bounds) is n/a: the fit's own reason
    (``no_maximum``), else the draws without a maximum; ``None`` where all are finite."""
    if all(np.isfinite(numbers)):
        return None
    if no_maximum is not None:
        return no_maximum
    return draws_without_maximum(draws, rounds) if draws else None


def number_or_na(value: float, why: str | None, digits: int = 1) -> str:
    """``value`` to ``digits`` decimals, or ``n/a: <why>`` where it is not finite (``why``:
    ``no finite maximum (...)`` or the draws without one)."""
    if math.isfinite(value):
        return f"{value:.{digits}f}"
    return f"n/a: {why or NO_MAXIMUM}"


def draws_line(draws: int, rounds: int, reached: bool, said: str | None = None) -> str:
    """The line under a table whose fits had draws without a maximum (or, ``said``, some
    other draws counted as unbounded: ``connectivity.draws_apart``): that they make the
    intervals they reach n/a (``reached``: some bound is), or that none reaches a bound."""
    said = said or draws_without_maximum(draws, rounds)
    if reached:
        return f"intervals n/a where those draws reach a bound: {said}"
    return f"{said} (counted as unbounded; no interval bound reaches them)"


def names_of(models: Sequence[str], members: IntArray) -> str:
    """``a, b, c, d and 3 more``: the ``members`` of ``models``, the first few named."""
    named = [models[i] for i in members[:_NAMES_SHOWN]]
    rest = len(members) - len(named)
    listed = ", ".join(named)
    return f"{listed} and {rest} more" if rest else listed


def never_lose(models: Sequence[str], lost_to: BoolArray) -> str | None:
    """Why Bradley–Terry has no maximum on these outcomes, or ``None`` where it has one:
    ``lost_to[i, j]``: model i lost some share of a game to model j (a tie or a fractional
    outcome is a loss both ways). Within each set of models compared with one another, a
    set that loses to none of the others is named: ``x never loses``, ``x never wins``,
    or ``x, y never lose to z``."""
    m = len(models)
    played = lost_to | lost_to.T
    reach = lost_to | np.eye(m, dtype=bool)
    linked = played | np.eye(m, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(max(m, 2)))))):
        reach = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        linked = linked | ((linked.astype(np.int64) @ linked.astype(np.int64)) > 0)
    phrases: list[str] = []
    named: set[int] = set()  # the models a phrase names as never winning
    sinks: set[frozenset[int]] = set()
    for i in range(m):
        component = np.flatnonzero(linked[i])
        closed = np.flatnonzero(reach[i])
        # a sink of the losses: everything it reaches reaches it back, and it is not all
        if len(closed) == len(component) or not np.all(reach[closed][:, i]):
            continue
        if frozenset(closed.tolist()) in sinks:
            continue
        sinks.add(frozenset(closed.tolist()))
        rest = np.setdiff1d(component, closed)
        named.update(rest.tolist() if len(rest) == 1 else ())
        if len(closed) == 1:
            phrases.append(f"{models[closed[0]]} never loses")
        elif len(rest) == 1:
            phrases.append(f"{models[rest[0]]} never wins")
        else:
            phrases.append(f"{names_of(models, closed)} never lose to {names_of(models, rest)}")
    for i in range(m):  # a model that never wins, where no phrase names it yet
        if linked[i].sum() > 1 and not lost_to[:, i].any() and i not in named:
            phrases.append(f"{models[i]} never wins")
    return "; ".join(phrases) or None


def battle_losses(models: int, first: IntArray, second: IntArray, share: FloatArray) -> BoolArray:
    """``lost_to`` (models × models) of battles: ``first[k]`` took ``share[k]`` of the win
    from ``second[k]``."""
    lost_to = np.zeros((models, models), dtype=bool)
    lost, won = share < 1.0, share > 0.0
    lost_to[first[lost], second[lost]] = True
    lost_to[second[won], first[won]] = True
    return lost_to


def pair_losses(
    models: int, left: IntArray, right: IntArray, wins: FloatArray, games: FloatArray
) -> BoolArray:
    """``lost_to`` (models × models) of a pair summary: ``left[p]`` won ``wins[p]`` of
    ``games[p]`` against ``right[p]``."""
    lost_to = np.zeros((models, models), dtype=bool)
    lost_to[left[wins < games], right[wins < games]] = True
    lost_to[right[wins > 0], left[wins > 0]] = True
    return lost_to


def bradley_terry_design(
    left: IntArray, right: IntArray, models: int
) -> tuple[FloatArray, FloatArray]:
    """Bradley–Terry's pair summary as a logistic design: per pair a row of its wins (+1
    for ``left``, −1 for ``right``; outcome 1) and one of its losses (outcome 0), weighted
    by what ``left`` won and lost (``summary_weights``). The likelihood is the summary's,
    term for term, so ``logistic.separating_move`` judges it as it judges any other fit."""
    pairs = len(left)
    incidence = np.zeros((pairs, models))
    incidence[np.arange(pairs), left] = 1.0
    incidence[np.arange(pairs), right] = -1.0
    design = np.concatenate([incidence, incidence])
    outcome = np.concatenate([np.ones(pairs), np.zeros(pairs)])
    return design, outcome


def summary_weights(wins: FloatArray, games: FloatArray) -> FloatArray:
    """The weights of ``bradley_terry_design``'s rows (rows × 2·pairs): wins, then losses."""
    weights: FloatArray = np.concatenate([wins, games - wins], axis=1)
    return weights


def bradley_terry_move(
    beta: FloatArray, wins: FloatArray, games: FloatArray, left: IntArray, right: IntArray
) -> FloatArray:
    """Per row of ``beta`` (log-strengths, rows × models, fitted under ``logistic.RIDGE``):
    how they run off where that row's wins and games have no maximum
    (``logistic.separating_move``), zeros where they have one."""
    design, outcome = bradley_terry_design(left, right, beta.shape[1])
    # rounding: a pair's wins summed from shares may land a hair off 0 or its games
    weights = np.clip(summary_weights(wins, games), 0.0, None)
    weights[weights < 1e-12] = 0.0
    return separating_move(design, outcome, weights, beta)


def directions(move: FloatArray) -> FloatArray:
    """+1 where a number runs off upward as its fit's ridge shrinks, −1 downward, 0 where
    it converges (``move``: rows × numbers, in the numbers' own scale)."""
    found: FloatArray = np.where(moved(move), np.sign(move), 0.0)
    return found


def bounded_percentiles(
    samples: FloatArray, runaway: FloatArray, confidence: float
) -> tuple[FloatArray, FloatArray]:
    """The percentile interval's bounds over the draws (axis 0) of ``samples``, a draw
    without a maximum counted as ±∞ where ``runaway`` (``directions``) says its number runs
    off (``extended_quantiles``): a bound is NaN (n/a) where it is not finite. Draws in the
    tails beyond a bound leave it as it is: a few unbeaten draws among a thousand do not
    make an interval n/a, a bound they reach does."""
    alpha = (1.0 - confidence) / 2.0
    low, high = extended_quantiles(samples, runaway, (alpha, 1.0 - alpha))
    return low, high


def extended_quantiles(
    samples: FloatArray, runaway: FloatArray, quantiles: Sequence[float]
) -> FloatArray:
    """The ``quantiles`` (len(quantiles) × columns; linear interpolation, numpy's default)
    over the draws (axis 0) of ``samples``, each runaway draw (``runaway`` ±1) counted as
    ±∞ and NaN draws (a number absent from a draw) left out; NaN where a quantile is not
    finite (its interpolation touches an infinite draw). A number a draw leaves unplaced
    (``EITHER``: its groups never met, ``connectivity``) counts as −∞ for a quantile below
    the median and +∞ for one above it, so that the interval holds it wherever it lies,
    and is left out of the median."""
    either = runaway == EITHER
    if not either.any():
        return _extended_quantiles(samples, runaway, quantiles)
    rows = []
    for quantile in quantiles:
        if quantile == 0.5:
            left_out = np.where(either, np.nan, samples)
            found = _extended_quantiles(left_out, np.where(either, 0.0, runaway), [quantile])
        else:
            side = 1.0 if quantile > 0.5 else -1.0
            found = _extended_quantiles(samples, np.where(either, side, runaway), [quantile])
        rows.append(found[0])
    stacked: FloatArray = np.stack(rows)
    return stacked


def _extended_quantiles(
    samples: FloatArray, runaway: FloatArray, quantiles: Sequence[float]
) -> FloatArray:
    """``extended_quantiles`` where no draw is ``EITHER``."""
    up, down = runaway > 0, runaway < 0
    kept = ~(up | down)
    top = np.max(np.where(kept & ~np.isnan(samples), samples, -np.inf), axis=0)
    bottom = np.min(np.where(kept & ~np.isnan(samples), samples, np.inf), axis=0)
    # infinities stand in as the extremes (the order is what a quantile reads), then a
    # quantile whose interpolation touches one is n/a
    values = np.where(up, top, np.where(down, bottom, samples))
    missing = np.isnan(samples)
    quantile = np.nanquantile if missing.any() else np.quantile
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        # a column of runaways only: ∞ − ∞; a column of absent draws only: all NaN; n/a
        warnings.simplefilter("ignore", RuntimeWarning)
        found = np.asarray(quantile(values, list(quantiles), axis=0), dtype=np.float64)
        ups = np.where(missing, np.nan, up.astype(np.float64))
        downs = np.where(missing, np.nan, -down.astype(np.float64))
        touches = np.asarray(quantile(ups, list(quantiles), axis=0)) > 0
        touches |= np.asarray(quantile(downs, list(quantiles), axis=0)) < 0
    result: FloatArray = np.where(touches | ~np.isfinite(found), np.nan, found)
    return result
