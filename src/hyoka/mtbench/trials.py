"""How sure a leaderboard's mean is: an interval over questions and trials, and Swallow's
own figure over trials.

A model's mean over a benchmark's 80 questions moves with the questions asked and, where
each dialogue is answered and judged several times (``--trials``), with the answers drawn.
``mean_interval`` resamples both levels (``stats.two_level_interval``): questions with
replacement, then each question's trials within it. A question's value in one trial is the
mean of its rated turns in that trial (both turns, or the turn of a per-turn table); the
interval is of the mean of the question means (``interval_estimate``), which is the table's
"Avg." whenever every turn is rated (and categories hold as many questions each). "Avg."
stays upstream's headline (the mean of category means, or of every rated turn), while the
bootstrap's unit is the question, the unit that is drawn; where the two differ (an unrated
turn, a repeated one, categories of unequal size) the notes under the table say what the
row's interval is of, and JSON gives it as the interval's ``estimate``. With one trial the
inner level has one value per question: the interval is over questions only.

``table_separability`` sets the complete rows' intervals beside each other: the share of
model pairs whose intervals do not overlap (arena-hard's separability), from the very
draws each row's interval is read from (``score_draws``).

``swallow_figure`` is what swallow-evaluation's ``show_result.py`` (``calculate_averages``)
prints for a model: per trial, the mean of that trial's rated turns (``-1`` left out), then
the mean of those trial means and their sample standard deviation (``ddof=1``; none with
one trial), so a number here can be set beside Swallow's published ones.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from hyoka.mtbench.leaderboard import Leaderboard, ModelScores
from hyoka.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    ScoreDraws,
    separability,
    two_level_draws,
    two_level_interval,
)


@dataclass(frozen=True)
class IntervalSettings:
    """How the intervals are drawn: resamples, seed, confidence (part of the table's
    signature: another seed draws another interval)."""

    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    confidence: float = 0.95

    @property
    def signed(self) -> str:
        """The settings as the table's signature carries them."""
        return (
            f"two-level-bootstrap/{self.confidence:g}/resamples-{self.resamples}/seed-{self.seed}"
        )


def question_cells(model: ModelScores, turn: int | None = None) -> dict[int, np.ndarray]:
    """Per question id (in id order), one value per trial with a rated turn: the mean of
    that trial's rated turns (``turn`` only, when given)."""
    cells: dict[int, dict[int, list[Fraction]]] = defaultdict(lambda: defaultdict(list))
    for (question_id, judged_turn, trial), rating in model.ratings.items():
        if turn is None or judged_turn == turn:
            cells[question_id][trial].append(rating)
    return {
        question: np.array(
            [float(sum(r, Fraction()) / len(r)) for _t, r in sorted(by_trial.items())]
        )
        for question, by_trial in sorted(cells.items())
    }


def question_groups(model: ModelScores, turn: int | None = None) -> list[np.ndarray]:
    """``question_cells`` without the ids: the groups of the two-level bootstrap."""
    return list(question_cells(model, turn).values())


def _mean_of_means(groups: list[np.ndarray]) -> float:
    return float(np.mean([group.mean() for group in groups]))


def interval_estimate(model: ModelScores, turn: int | None = None) -> float | None:
    """What ``mean_interval`` is an interval of: the mean of ``model``'s question means
    (module docstring); ``None`` without a rated turn."""
    groups = question_groups(model, turn)
    return _mean_of_means(groups) if groups else None


def mean_interval(
    model: ModelScores, turn: int | None = None, settings: IntervalSettings | None = None
) -> Interval | None:
    """The mean of ``model``'s question means with its two-level percentile bootstrap
    interval (questions, then trials within each); ``None`` without a rated turn."""
    settings = settings or IntervalSettings()
    groups = question_groups(model, turn)
    if not groups:
        return None
    estimate = _mean_of_means(groups)
    return two_level_interval(
        groups, estimate, resamples=settings.resamples, confidence=settings.confidence,
        seed=settings.seed,
    )  # fmt: skip


def score_draws(
    board: Leaderboard, turn: int | None = None, settings: IntervalSettings | None = None
) -> ScoreDraws:
    """The complete rows with a rated turn as a ranking: each model's mean of question
    means and, per resample, the draw its ``mean_interval`` is the percentile interval of
    (the same function, groups and seed: the same draws)."""
    settings = settings or IntervalSettings()
    models, estimates, columns = [], [], []
    for model in board.ranked(turn):
        groups = question_groups(model, turn)
        if not board.complete(model) or not groups:
            continue
        models.append(model.model)
        estimates.append(_mean_of_means(groups))
        columns.append(two_level_draws(groups, resamples=settings.resamples, seed=settings.seed))
    draws = np.stack(columns, axis=1) if columns else np.empty((settings.resamples, 0))
    return ScoreDraws(tuple(models), np.asarray(estimates, dtype=float), draws)


@dataclass(frozen=True)
class TableSeparability:
    """The share of a table's model pairs whose intervals do not overlap."""

    share: float
    pairs: int
    settings: IntervalSettings

    @property
    def line(self) -> str:
        """The line under the table."""
        return (
            f"separability: {self.share:.0%} of the {self.pairs} model pairs are told apart "
            f"at {self.settings.confidence:.0%} (intervals that do not overlap)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "value": self.share,
            "pairs": self.pairs,
            "confidence": self.settings.confidence,
            "resamples": self.settings.resamples,
            "seed": self.settings.seed,
            "method": self.settings.signed,
        }


def table_separability(
    board: Leaderboard, turn: int | None = None, settings: IntervalSettings | None = None
) -> TableSeparability | None:
    """``stats.separability`` over the complete rows' interval draws (``turn`` only, when
    given); ``None`` under two such rows (no pair to tell apart)."""
    settings = settings or IntervalSettings()
    ranking = score_draws(board, turn, settings)
    count = len(ranking.models)
    if count < 2:
        return None
    share = separability(ranking, settings.confidence)
    return TableSeparability(share, count * (count - 1) // 2, settings)


@dataclass(frozen=True)
class TrialsFigure:
    """swallow-evaluation's ``score`` and ``stdev``: the mean of the per-trial means and
    their sample standard deviation (``None`` with one trial, where upstream's is NaN)."""

    mean: Fraction
    stdev: float | None
    trials: int


def swallow_figure(model: ModelScores, turn: int | None = None) -> TrialsFigure | None:
    """``calculate_averages`` of upstream's ``show_result.py`` over ``model``'s ratings
    (``turn`` only, when given); ``None`` without a rated turn. A trial without any rated
    turn (upstream: a NaN that makes the whole figure NaN) is left out; ``trials`` says
    how many count."""
    by_trial: dict[int, list[Fraction]] = defaultdict(list)
    for (_question, judged_turn, trial), rating in model.ratings.items():
        if turn is None or judged_turn == turn:
            by_trial[trial].append(rating)
    means = [sum(r, Fraction()) / len(r) for _t, r in sorted(by_trial.items())]
    if not means:
        return None
    stdev = statistics.stdev(float(m) for m in means) if len(means) > 1 else None
    return TrialsFigure(sum(means, Fraction()) / len(means), stdev, len(means))
