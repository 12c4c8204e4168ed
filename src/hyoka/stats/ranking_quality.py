"""How far a ranking of models can be trusted, and how well two rankings agree.

A ranking here is every model's score (higher is better: a rating, a mean grade, a win
rate) with its bootstrap draws (rounds × models), so each model has a percentile interval.
Over any two rankings of the same models (two judges, a judge and a reference ranking,
two trials of one judge) this module gives the statistics Arena-Hard (Li et al., 2024,
"From Crowdsourced Data to High-Quality Benchmarks") uses to measure a benchmark:

* **separability with confidence**: the share of model pairs whose intervals do not
  overlap (the pairs a ranking tells apart);
* **agreement with confidence** with a reference: over the pairs the *reference*
  separates with confidence, +1 where the ranking separates them in the same order, −1
  where it separates them in the opposite order, 0 where it cannot tell them apart; the
  mean (NaN when the reference separates no pair);
* **pair-rank Brier score**: over the same pairs, the ranking's forecast that one model
  is ahead (the share of its draws in which it is, ties counting half) scored against the
  reference's order: the mean squared error (0 is perfect, 0.25 is a coin's);
* **Spearman and Kendall** (τ-b) between the two rankings' scores, each with a percentile
  interval over the models drawn with replacement (seeded). Pairing the rankings' own
  draws instead adds each ranking's noise to the other's and pulls the interval below
  the estimate: on the Shaberi table's ELYZA-tasks-100 (judges athenev2 and llama33, 343
  models, 1000 question draws each) ρ = 0.960 came with 0.849–0.924 from paired draws and
  0.943–0.972 from models drawn. The draws serve separability, agreement and Brier;
* a **subsampling curve**: separability when the benchmark keeps only k of its questions
  (k questions drawn without replacement, refitted, several draws per k), to say how many
  questions it needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hyoka.errors import InputError
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    IntArray,
    Interval,
    draw_weights,
    percentiles,
    resample_indices,
    resampled,
)
from hyoka.stats.correlation import kendall_rows, spearman_rows

#: the pairs agreement and Brier are taken over
PAIRS = "reference-separated"
#: how the correlations' intervals are drawn
CORRELATION_DRAWS = "models"
#: model pairs × resamples per batch of rank correlations (bounds memory)
_PAIR_CELLS = 4_000_000
RowStatistic = Callable[[FloatArray, FloatArray], FloatArray]


@dataclass(frozen=True, kw_only=True)
class RankingComparisonSignature(SignatureType):
    """How two rankings were compared: the interval confidence that decides separation,
    the pairs agreement and Brier count, the fewer of the two rankings' draws, and how the
    correlations' intervals were drawn (resamples of the models, seed). numpy's version is
    recorded (the draws come from its seeded ``Generator``)."""

    kind: ClassVar[str] = "ranking-comparison"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    confidence: float
    pairs: str
    rounds: int
    correlation_draws: str
    resamples: int
    seed: int


@dataclass(frozen=True, kw_only=True)
class SeparabilityCurveSignature(SignatureType):
    """How a subsampling curve was made: the question counts, draws per count, seed,
    and the confidence that decides separation."""

    kind: ClassVar[str] = "separability-curve"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    sizes: tuple[int, ...]
    repeats: int
    confidence: float
    seed: int


@dataclass(frozen=True)
class ScoreDraws:
    """A ranking: each model's score (higher is better) and its bootstrap draws."""

    models: tuple[str, ...]
    estimate: FloatArray
    draws: FloatArray

    def __post_init__(self) -> None:
        m = len(self.models)
        if self.estimate.shape != (m,) or self.draws.ndim != 2 or self.draws.shape[1] != m:
            raise InputError("a ranking needs one score and one column of draws per model")
        if len(set(self.models)) != m:
            raise InputError("a ranking names each model once")

    def only(self, models: Sequence[str]) -> ScoreDraws:
        """The same ranking restricted to (and ordered as) ``models``."""
        index = {model: k for k, model in enumerate(self.models)}
        missing = [model for model in models if model not in index]
        if missing:
            raise InputError(f"the ranking has no score for {missing[0]!r}")
        picks = np.asarray([index[model] for model in models], dtype=np.int64)
        return ScoreDraws(tuple(models), self.estimate[picks], self.draws[:, picks])


def mean_score_draws(
    table: FloatArray,
    models: Sequence[str],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ScoreDraws:
    """A ranking by mean score from a (questions × models) table of grades: the column
    means, drawn over questions with replacement (seeded; one draw serves every model, so
    that the models stay paired)."""
    if table.ndim != 2 or table.shape[1] != len(models) or table.shape[0] < 1:
        raise InputError("a score table has one row per question and one column per model")
    questions = table.shape[0]
    picks = resample_indices(questions, resamples, np.random.default_rng(seed))
    draws: FloatArray = draw_weights(picks, questions) @ table / questions
    return ScoreDraws(tuple(models), table.mean(axis=0), draws)


def _separated(ranking: ScoreDraws, confidence: float) -> tuple[IntArray, IntArray, IntArray]:
    """Every model pair (i < j) and its sign under ``ranking``: +1 where i's interval lies
    wholly above j's, −1 wholly below, 0 where they overlap."""
    low, high = percentiles(ranking.draws, confidence)
    first, second = np.triu_indices(len(ranking.models), k=1)
    above = low[first] > high[second]
    below = high[first] < low[second]
    sign = above.astype(np.int64) - below.astype(np.int64)
    return first.astype(np.int64), second.astype(np.int64), sign


def separability(ranking: ScoreDraws, confidence: float = 0.95) -> float:
    """The share of model pairs whose intervals do not overlap (NaN under two models)."""
    _, _, sign = _separated(ranking, confidence)
    return float(np.mean(sign != 0)) if len(sign) else float("nan")


def agreement_with_confidence(
    ranking: ScoreDraws, reference: ScoreDraws, confidence: float = 0.95
) -> float:
    """Arena-Hard's agreement with confidence of ``ranking`` with ``reference``."""
    reference = reference.only(ranking.models)
    _, _, own = _separated(ranking, confidence)
    _, _, truth = _separated(reference, confidence)
    counted = truth != 0
    if not counted.any():
        return float("nan")
    return float(np.mean(own[counted] * truth[counted]))


def pair_rank_brier(ranking: ScoreDraws, reference: ScoreDraws, confidence: float = 0.95) -> float:
    """The pair-rank Brier score of ``ranking`` against ``reference``'s order."""
    reference = reference.only(ranking.models)
    first, second, truth = _separated(reference, confidence)
    counted = truth != 0
    if not counted.any():
        return float("nan")
    ahead = np.zeros(int(np.count_nonzero(counted)))
    rounds = len(ranking.draws)
    step = max(1, _PAIR_CELLS // max(1, len(ahead)))  # rows per chunk: bounded memory
    for start in range(0, rounds, step):
        chunk = ranking.draws[start : start + step]
        gap = chunk[:, first[counted]] - chunk[:, second[counted]]
        ahead += np.sum(gap > 0, axis=0) + 0.5 * np.sum(gap == 0, axis=0)
    forecast = ahead / rounds
    outcome = (truth[counted] > 0).astype(np.float64)
    return float(np.mean((forecast - outcome) ** 2))


def rank_correlation_intervals(
    ranking: ScoreDraws,
    other: ScoreDraws,
    *,
    confidence: float = 0.95,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[Interval, Interval]:
    """Spearman and Kendall τ-b between the two rankings' scores, each with its
    percentile interval over the models drawn with replacement (seeded), as
    ``correlation.correlate`` draws its pairs."""
    other = other.only(ranking.models)
    n = len(ranking.models)
    if n < 3:
        raise InputError("rank correlations need at least three models")
    x, y = ranking.estimate, other.estimate
    intervals = []
    for rows in (spearman_rows, kendall_rows):

        def statistic(picks: IntArray, rows: RowStatistic = rows) -> FloatArray:
            return rows(x[picks], y[picks])

        estimate = float(statistic(np.arange(n, dtype=np.int64)[None, :])[0])
        values = resampled(statistic, n, resamples, np.random.default_rng(seed))
        finite = values[np.isfinite(values)]
        if len(finite) == 0:
            intervals.append(Interval(estimate, math.nan, math.nan, confidence, resamples))
            continue
        low, high = percentiles(finite, confidence)
        intervals.append(Interval(estimate, float(low), float(high), confidence, resamples))
    return intervals[0], intervals[1]


@dataclass(frozen=True)
class RankingComparison:
    """Two rankings of the same models (``ranking`` measured against ``reference``)."""

    models: tuple[str, ...]
    separability: float
    reference_separability: float
    agreement: float
    brier: float
    spearman: Interval
    kendall: Interval
    signature: Signature

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "models": list(self.models),
            "separability": self.separability,
            "reference_separability": self.reference_separability,
            "agreement_with_confidence": self.agreement,
            "pair_rank_brier": self.brier,
            "spearman": self.spearman.to_json(),
            "kendall_tau_b": self.kendall.to_json(),
        }


def compare_rankings(
    ranking: ScoreDraws,
    reference: ScoreDraws,
    confidence: float = 0.95,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RankingComparison:
    """Every statistic of the module's docstring for ``ranking`` against ``reference``,
    over the models both rank (the ranking's order)."""
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    shared = [model for model in ranking.models if model in set(reference.models)]
    if len(shared) < 3:
        raise InputError("comparing rankings needs at least three models ranked by both")
    mine, theirs = ranking.only(shared), reference.only(shared)
    spearman, kendall = rank_correlation_intervals(
        mine, theirs, confidence=confidence, resamples=resamples, seed=seed
    )
    rounds = min(len(mine.draws), len(theirs.draws))
    return RankingComparison(
        models=tuple(shared),
        separability=separability(mine, confidence),
        reference_separability=separability(theirs, confidence),
        agreement=agreement_with_confidence(mine, theirs, confidence),
        brier=pair_rank_brier(mine, theirs, confidence),
        spearman=spearman,
        kendall=kendall,
        signature=RankingComparisonSignature(
            confidence=confidence,
            pairs=PAIRS,
            rounds=rounds,
            correlation_draws=CORRELATION_DRAWS,
            resamples=resamples,
            seed=seed,
        ).signature(),
    )


@dataclass(frozen=True)
class CurvePoint:
    """Separability with ``questions`` questions: the mean over the draws, and the
    lowest and highest draw."""

    questions: int
    separability: float
    lowest: float
    highest: float

    def to_json(self) -> dict[str, float | int]:
        return {
            "questions": self.questions,
            "separability": self.separability,
            "lowest": self.lowest,
            "highest": self.highest,
        }


@dataclass(frozen=True)
class SeparabilityCurve:
    points: tuple[CurvePoint, ...]
    signature: Signature

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "points": [p.to_json() for p in self.points],
        }


def separability_curve(
    questions: int,
    rank: Callable[[IntArray], ScoreDraws],
    sizes: Iterable[int],
    *,
    repeats: int = 10,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> SeparabilityCurve:
    """Separability as the benchmark keeps k of its ``questions`` questions, for each k
    in ``sizes``: ``repeats`` draws of k questions without replacement (seeded), each
    ranked by ``rank(question indices)``, the caller's fit on those questions alone."""
    chosen = tuple(sorted(set(sizes)))
    if not chosen or chosen[0] < 1 or chosen[-1] > questions:
        raise InputError(f"question counts must lie between 1 and {questions}")
    if repeats < 1:
        raise InputError("repeats must be at least 1")
    rng = np.random.default_rng(seed)
    points = []
    for size in chosen:
        values = np.asarray(
            [
                separability(
                    rank(np.sort(rng.choice(questions, size=size, replace=False))), confidence
                )
                for _ in range(repeats)
            ]
        )
        points.append(
            CurvePoint(size, float(np.mean(values)), float(values.min()), float(values.max()))
        )
    signature = SeparabilityCurveSignature(
        sizes=chosen, repeats=repeats, confidence=confidence, seed=seed
    ).signature()
    return SeparabilityCurve(tuple(points), signature)
