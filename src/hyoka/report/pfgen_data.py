"""pfgen-bench numbers for the report: leaderboard rows with intervals, runs scored answer by
answer, and two runs compared question by question.

Intervals are 95% percentile bootstraps over questions *and* trials, because both vary: a
different question set, or another sampling of the same questions, would give another
score. For a public run only its ``result.json`` is read (``pfgen.score_interval``); a run
the user named is scored answer by answer and the two levels are resampled exactly
(``stats.two_level_interval``, and ``stats.paired_two_level_intervals`` for two runs).
Leaderboard rows all use the first form, so that the intervals beside each other were made
the same way. Nothing is computed here: this module gathers the library's numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.pfgen import AnswerScore, PfgenBenchmark, RunSummary, score_answers, score_interval
from hyoka.stats import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    paired_two_level_intervals,
    two_level_interval,
)

FloatArray = npt.NDArray[np.float64]
RESAMPLES = DEFAULT_RESAMPLES
SEED = DEFAULT_SEED
CONFIDENCE = 0.95


def summary_interval(
    result: dict[str, Any], *, resamples: int = RESAMPLES, seed: int = SEED
) -> Interval:
    """The score's interval from a ``result.json`` alone (``pfgen.score_interval``)."""
    return score_interval(result, resamples=resamples, seed=seed, confidence=CONFIDENCE)


@dataclass(frozen=True)
class QuestionStats:
    """One question of a scored run: per-answer values in input order."""

    question_id: str
    question: str
    answers: tuple[str, ...]
    scores: tuple[AnswerScore, ...]

    def values(self, metric: str) -> FloatArray:
        if metric == "length":
            return np.array([float(len(a)) for a in self.answers])
        return np.array([float(getattr(s, metric)) for s in self.scores])

    def ranked(self) -> list[int]:
        """Answer positions best first by average (stable: input order breaks ties)."""
        return sorted(range(len(self.scores)), key=lambda i: -self.scores[i].average)


@dataclass
class ScoredRun:
    """A run the user named: its summary and every answer's score."""

    run_id: str
    folder: Path
    summary: RunSummary
    result: dict[str, Any]
    questions: dict[str, QuestionStats] = field(default_factory=dict)

    def exact_interval(self, *, resamples: int = RESAMPLES, seed: int = SEED) -> Interval:
        """Two-level bootstrap: questions with replacement, then answers within each."""
        groups = [q.values("average") for q in self.questions.values()]
        return two_level_interval(
            groups, self.summary.score, resamples=resamples, confidence=CONFIDENCE, seed=seed
        )


def score_run_answers(
    source: Path, benchmark: PfgenBenchmark, run_id: str, workers: int | None = None
) -> ScoredRun:
    """Score every answer of the run at ``source`` (a trials file or run folder).

    The scoring is the library's (``pfgen.score_answers``): the run's numbers are the ones
    ``hyoka pfgen score`` gives it, summation included, and every answer is scored under
    that same summation.
    """
    scored = score_answers(source, benchmark, workers=workers)
    stats: dict[str, QuestionStats] = {}
    for question_id in sorted(scored.answers):
        answers = scored.answers[question_id]
        stats[question_id] = QuestionStats(
            question_id,
            benchmark.scorer(question_id).info.question,
            tuple(record["answer"] for record, _ in answers),
            tuple(score for _, score in answers),
        )
    folder = scored.outcome.folder
    result = scored.outcome.result
    summary = RunSummary.from_result(folder, result, folder.parent.parent)
    return ScoredRun(run_id, folder, summary, result, stats)


@dataclass(frozen=True)
class QuestionDifference:
    question_id: str
    question: str
    a: float
    b: float
    low: float
    high: float

    @property
    def difference(self) -> float:
        return self.a - self.b

    @property
    def verdict(self) -> str:
        """``A`` / ``B`` when the interval excludes 0, else ``=``."""
        if self.low > 0:
            return "A"
        if self.high < 0:
            return "B"
        return "="


@dataclass(frozen=True)
class Comparison:
    a: ScoredRun
    b: ScoredRun
    overall: Interval
    questions: tuple[QuestionDifference, ...]


def compare_runs(
    a: ScoredRun, b: ScoredRun, *, resamples: int = RESAMPLES, seed: int = SEED
) -> Comparison:
    """A − B per question (answers resampled within each run) and overall, where the same
    resampled questions are used for both runs (a paired bootstrap)."""
    shared = [q for q in a.questions if q in b.questions]
    if not shared:
        raise InputError(f"{a.folder} and {b.folder} answer no question in common")
    intervals = paired_two_level_intervals(
        [a.questions[q].values("average") for q in shared],
        [b.questions[q].values("average") for q in shared],
        resamples=resamples,
        confidence=CONFIDENCE,
        seed=seed,
    )
    differences = tuple(
        QuestionDifference(
            question_id,
            a.questions[question_id].question,
            float(a.questions[question_id].values("average").mean()),
            float(b.questions[question_id].values("average").mean()),
            interval.low,
            interval.high,
        )
        for question_id, interval in zip(shared, intervals.groups, strict=True)
    )
    return Comparison(a, b, intervals.overall, differences)


def spread(values: Sequence[float] | FloatArray) -> tuple[float, float, float, float]:
    """Mean, population std, min and max."""
    array = np.asarray(values, dtype=np.float64)
    return float(array.mean()), float(array.std()), float(array.min()), float(array.max())
