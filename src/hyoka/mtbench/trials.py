"""How sure a leaderboard's mean is: an interval over questions and trials, and Swallow's
own figure over trials.

A model's mean over a benchmark's 80 questions moves with the questions asked and, where
each dialogue is answered and judged several times (``--trials``), with the answers drawn.
``mean_interval`` resamples both levels (``stats.two_level_interval``): questions with
replacement, then each question's trials within it. A question's value in one trial is the
mean of its rated turns in that trial (both turns, or the turn of a per-turn table); the
interval is of the mean of the question means, which is the table's "Avg." whenever every
turn is rated (and categories hold as many questions each). With one trial the inner
level has one value per question: the interval is over questions only.

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

import numpy as np

from hyoka.mtbench.leaderboard import ModelScores
from hyoka.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, two_level_interval


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


def question_groups(model: ModelScores, turn: int | None = None) -> list[np.ndarray]:
    """Per question (in id order), one value per trial with a rated turn: the mean of that
    trial's rated turns (``turn`` only, when given)."""
    cells: dict[int, dict[int, list[Fraction]]] = defaultdict(lambda: defaultdict(list))
    for (question_id, judged_turn, trial), rating in model.ratings.items():
        if turn is None or judged_turn == turn:
            cells[question_id][trial].append(rating)
    return [
        np.array([float(sum(r, Fraction()) / len(r)) for _t, r in sorted(by_trial.items())])
        for _q, by_trial in sorted(cells.items())
    ]


def mean_interval(
    model: ModelScores, turn: int | None = None, settings: IntervalSettings | None = None
) -> Interval | None:
    """The mean of ``model``'s question means with its two-level percentile bootstrap
    interval (questions, then trials within each); ``None`` without a rated turn."""
    settings = settings or IntervalSettings()
    groups = question_groups(model, turn)
    if not groups:
        return None
    estimate = float(np.mean([group.mean() for group in groups]))
    return two_level_interval(
        groups, estimate, resamples=settings.resamples, confidence=settings.confidence,
        seed=settings.seed,
    )  # fmt: skip


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
