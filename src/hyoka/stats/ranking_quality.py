"""How far a ranking of models can be trusted, and how well two rankings agree.

A ranking here is every model's score (higher is better: a rating, a mean grade, a win
rate) with its bootstrap draws (rounds × models), so each model has a percentile interval
(``numpy.quantile``'s linear rule, as ``numpy.percentile`` in arena-hard's notebook); a
reference ranking read from a file may have no draws (its point scores only). Over any two
rankings of the same models (two judges, a judge and a reference ranking, two trials of one
judge) this module gives the statistics Arena-Hard (Li et al., 2024, "From Crowdsourced
Data to High-Quality Benchmarks") measures a benchmark by. Where each definition comes
from (their notebook is read from lmarena/arena-hard-auto, commit ``bd52a78``,
``notebook/benchmark_statistics.ipynb``; the repository later pointed to a Colab copy;
``benchmarks/arena_hard_metrics.py`` runs its cells on hyoka's draws):

* **separability with confidence**: the share of model pairs whose intervals do not
  overlap (the README of arena-hard-auto; the notebook's
  ``get_unique_overlapping_interval_pairs``). Two intervals overlap when the later one
  starts strictly before the earlier one ends, so intervals that only touch count as told
  apart, as the notebook counts them. Needs the ranking's draws.
* **agreement with confidence** with a reference: over the pairs the *reference*
  separates, +1 where the ranking separates them in the same order, −1 where it separates
  them in the opposite order, 0 where it cannot tell them apart; the mean (NaN when the
  reference separates no pair). This is the authors' formula in the Arena-Hard blog post
  (lm-sys.github.io ``blog/2024-04-19-arena-hard.md``: "for a given model pair (which B can
  separate with confidence) …"); its scale, −1 to 1, is the one the paper's Table 1 figures
  fit (MT-Bench: agreement 26.6% beside separability 22.6%). The notebook's "Agreement With
  Confidence" cells score the same pairs 1, ½ and 0, which is (this + 1) / 2. There a pair
  is separated unless its intervals share a positive length (``get_overlap``; it differs
  from separability's rule only where an interval has no width, such as an anchor model's)
  and ordered by its (lower, upper) bounds; two identical zero-width intervals count as
  separated without an order, which the notebook scores as a disagreement. Needs both
  rankings' draws.
* **strict agreement**: the share of all model pairs that both rankings' point scores
  order the same way, strictly (the notebook's "Strict Agreement"; a tie on either side
  counts against it). Needs no draws.
* **pair-rank Brier score**: the notebook's "Forecasting" cells: for every pair (a, b) of
  the models in name order (``combinations(sorted(models), 2)``: Python's order of the
  names), the ranking forecasts P(a below b) from a normal distribution with the
  difference of the draws' means and the sum of their variances (``ddof=0``), and the
  outcome is whether the reference's point score of a is below b's; the mean squared error
  (0 is perfect, 0.25 a coin's). A pair the reference ties has no order to forecast; by
  default (``ties="upstream"``) it is scored as the notebook scores it, outcome 0 ("a, the
  name that sorts first, is not below b"), so its outcome follows the names, not the judge
  (renaming a model can change the score). ``ties="omit"`` leaves such pairs out, the usual
  rule of pairwise ranking measures, and the score no longer depends on the names (NaN
  where the reference ties every pair). Either way the tied pairs are counted
  (``tied_reference_pairs``) and the rule is in the signature. Two models without spread
  in their draws forecast 1, 0 or ½ by their means (the normal's limit; upstream's
  ``scipy.stats.norm`` gives NaN there). Needs the ranking's draws and the reference's
  point scores.
* **Spearman and Kendall** (τ-b) between the two rankings' scores, each with a percentile
  interval over the models drawn with replacement (seeded; ``correlation.rank_correlations``,
  the same home as the judge leaderboard's). Pairing the rankings' own
  draws instead adds each ranking's noise to the other's and pulls the interval below
  the estimate: on the Shaberi table's ELYZA-tasks-100 (judges athenev2 and llama33, 343
  models, 1000 question draws each) ρ = 0.960 came with 0.849–0.924 from paired draws and
  0.943–0.972 from models drawn. Needs no draws;
* a **subsampling curve**: separability when the benchmark keeps only k of its questions
  (k questions drawn without replacement, refitted, several draws per k), and the agreement
  with confidence of each such ranking with the whole benchmark's, to say how many
  questions it needs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    IntArray,
    Interval,
    draw_weights,
    finite_or_none,
    percentiles,
    resample_indices,
)
from hyoka.stats.correlation import rank_correlations

BoolArray = npt.NDArray[np.bool_]

#: the pairs agreement with confidence is taken over
PAIRS = "reference-separated"
#: what the pair-rank Brier score does with a pair the reference ties (module docstring):
#: score it as arena-hard's notebook does, or leave it out
BrierTies = Literal["upstream", "omit"]
BRIER_TIES: tuple[BrierTies, ...] = get_args(BrierTies)
#: how the Brier score forecasts, over which pairs and with what rule for ties, by that rule
BRIER: dict[BrierTies, str] = {
    "upstream": "normal-forecast/all-pairs/reference-point-order/ties-upstream",
    "omit": "normal-forecast/reference-untied-pairs/reference-point-order/ties-omit",
}
#: how the correlations' intervals are drawn
CORRELATION_DRAWS = "models"


@dataclass(frozen=True, kw_only=True)
class RankingComparisonSignature(SignatureType):
    """How two rankings were compared: the interval confidence that decides separation,
    the pairs agreement counts, the Brier score's forecast, the fewer of the two rankings'
    draws (0: the reference has none) and what those draws resample, and how the
    correlations' intervals were drawn (resamples of the models, seed). numpy's version is
    recorded (the draws come from its seeded ``Generator``)."""

    kind: ClassVar[str] = "ranking-comparison"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    confidence: float
    pairs: str
    brier: str
    rounds: int
    unit: str
    correlation_draws: str
    resamples: int
    seed: int


@dataclass(frozen=True, kw_only=True)
class SeparabilityCurveSignature(SignatureType):
    """How a subsampling curve was made: the question counts, draws per count, seed,
    the confidence that decides separation, and what each ranking's draws resample."""

    kind: ClassVar[str] = "separability-curve"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    sizes: tuple[int, ...]
    repeats: int
    confidence: float
    seed: int
    rounds: int
    unit: str


@dataclass(frozen=True)
class ScoreDraws:
    """A ranking: each model's score (higher is better) and its bootstrap draws (rounds ×
    models; no rows for a ranking known by its point scores only)."""

    models: tuple[str, ...]
    estimate: FloatArray
    draws: FloatArray

    def __post_init__(self) -> None:
        m = len(self.models)
        if self.estimate.shape != (m,) or self.draws.ndim != 2 or self.draws.shape[1] != m:
            raise InputError("a ranking needs one score and one column of draws per model")
        if len(set(self.models)) != m:
            raise InputError("a ranking names each model once")

    @classmethod
    def points(cls, models: Sequence[str], scores: Sequence[float]) -> ScoreDraws:
        """A ranking known by its point scores only (a published leaderboard)."""
        estimate = np.asarray(scores, dtype=np.float64)
        return cls(tuple(models), estimate, np.empty((0, len(estimate))))

    @property
    def has_draws(self) -> bool:
        return len(self.draws) > 0

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
    """A ranking by mean score from a (questions × models) table of grades, NaN where a
    model has no grade for a question: each column's mean over its grades, drawn over
    questions with replacement (seeded; one draw serves every model, so that the models
    stay paired; a model's draw is the mean of its grades among the questions drawn)."""
    if table.ndim != 2 or table.shape[1] != len(models) or table.shape[0] < 1:
        raise InputError("a score table has one row per question and one column per model")
    graded = np.isfinite(table)
    empty = np.flatnonzero(~graded.any(axis=0))
    if len(empty):
        raise InputError(f"a score table has no grade of {models[int(empty[0])]!r}")
    questions = table.shape[0]
    values = np.where(graded, table, 0.0)
    picks = resample_indices(questions, resamples, np.random.default_rng(seed))
    weights = draw_weights(picks, questions)
    with np.errstate(invalid="ignore", divide="ignore"):
        draws: FloatArray = (weights @ values) / (weights @ graded.astype(np.float64))
    estimate = values.sum(axis=0) / graded.sum(axis=0)
    return ScoreDraws(tuple(models), estimate, draws)


def _needs_draws(ranking: ScoreDraws, what: str) -> None:
    if not ranking.has_draws:
        raise InputError(f"{what} needs a ranking's bootstrap draws; this one has scores only")


def _bounds(ranking: ScoreDraws, confidence: float) -> tuple[FloatArray, ...]:
    """Every model pair's intervals (i < j, as ``np.triu_indices`` lists them): i's lower
    and upper bounds, then j's."""
    _needs_draws(ranking, "separation")
    low, high = percentiles(ranking.draws, confidence)
    first, second = np.triu_indices(len(ranking.models), k=1)
    return low[first], high[first], low[second], high[second]


def _apart(ranking: ScoreDraws, confidence: float) -> BoolArray:
    """Separability's rule (the notebook's ``get_unique_overlapping_interval_pairs``): of
    two intervals, the one starting later overlaps the other when it starts strictly before
    the earlier one ends (equal starts: before the longer one ends)."""
    low_i, high_i, low_j, high_j = _bounds(ranking, confidence)
    earlier_end = np.where(
        low_i < low_j, high_i, np.where(low_j < low_i, high_j, np.maximum(high_i, high_j))
    )
    apart: BoolArray = ~(np.maximum(low_i, low_j) < earlier_end)
    return apart


def _ordered(ranking: ScoreDraws, confidence: float) -> tuple[BoolArray, IntArray]:
    """Agreement's rule (the notebook's ``get_overlap``): two intervals are apart unless
    the length they share is positive; and their order: +1 where i's (lower, upper) bounds
    come above j's, −1 below, 0 when equal. The two rules differ only where an interval has
    no width: a point inside another interval overlaps it for separability and not here."""
    low_i, high_i, low_j, high_j = _bounds(ranking, confidence)
    shared = np.minimum(high_i, high_j) - np.maximum(low_i, low_j)
    by_low = np.sign(low_i - low_j)
    order = np.where(by_low != 0, by_low, np.sign(high_i - high_j)).astype(np.int64)
    apart: BoolArray = ~(shared > 0)
    return apart, order


def separability(ranking: ScoreDraws, confidence: float = 0.95) -> float:
    """The share of model pairs whose intervals do not overlap (NaN under two models)."""
    apart = _apart(ranking, confidence)
    return float(np.mean(apart)) if len(apart) else float("nan")


def agreement_with_confidence(
    ranking: ScoreDraws, reference: ScoreDraws, confidence: float = 0.95
) -> float:
    """Arena-Hard's agreement with confidence of ``ranking`` with ``reference``."""
    reference = reference.only(ranking.models)
    own_apart, own_order = _ordered(ranking, confidence)
    truth_apart, truth_order = _ordered(reference, confidence)
    if not truth_apart.any():
        return float("nan")
    mine, theirs = own_order[truth_apart], truth_order[truth_apart]
    agrees = (mine == theirs) & (mine != 0)
    scores = np.where(own_apart[truth_apart], np.where(agrees, 1.0, -1.0), 0.0)
    return float(np.mean(scores))


def strict_agreement(ranking: ScoreDraws, reference: ScoreDraws) -> float:
    """The share of all model pairs both point rankings order the same way, strictly."""
    reference = reference.only(ranking.models)
    first, second = np.triu_indices(len(ranking.models), k=1)
    if not len(first):
        return float("nan")
    own = np.sign(ranking.estimate[first] - ranking.estimate[second])
    theirs = np.sign(reference.estimate[first] - reference.estimate[second])
    return float(np.mean((own == theirs) & (own != 0)))


def _normal_below(difference: FloatArray, spread: FloatArray) -> FloatArray:
    """P(X < 0) for X normal with mean ``difference`` and standard deviation ``spread``;
    the step 1, ½, 0 where ``spread`` is 0."""
    safe = np.where(spread > 0, spread, 1.0)
    erf = np.vectorize(math.erf, otypes=[np.float64])
    smooth = 0.5 * (1.0 + erf(-difference / (safe * math.sqrt(2.0))))
    step = np.where(difference < 0, 1.0, np.where(difference > 0, 0.0, 0.5))
    below: FloatArray = np.where(spread > 0, smooth, step)
    return below


def pair_rank_brier(
    ranking: ScoreDraws, reference: ScoreDraws, ties: BrierTies = "upstream"
) -> float:
    """The pair-rank Brier score of ``ranking``'s forecasts against ``reference``'s point
    order, over every model pair in name order (module docstring): a pair the reference
    ties scored as arena-hard's notebook scores it (outcome "the first name is not below"),
    or with ``ties="omit"`` left out (NaN without an untied pair)."""
    _needs_draws(ranking, "the pair-rank Brier score")
    if ties not in BRIER_TIES:
        raise InputError(f"the Brier score's rule for ties is one of {', '.join(BRIER_TIES)}")
    names = sorted(ranking.models)
    if len(names) < 2:
        return float("nan")
    mine, theirs = ranking.only(names), reference.only(names)
    mean, variance = mine.draws.mean(axis=0), mine.draws.var(axis=0)
    first, second = np.triu_indices(len(names), k=1)
    if ties == "omit":
        ordered = theirs.estimate[first] != theirs.estimate[second]
        first, second = first[ordered], second[ordered]
        if not len(first):
            return float("nan")
    forecast = _normal_below(
        mean[first] - mean[second], np.sqrt(variance[first] + variance[second])
    )
    outcome = (theirs.estimate[first] < theirs.estimate[second]).astype(np.float64)
    return float(np.mean((forecast - outcome) ** 2))


def tied_reference_pairs(ranking: ScoreDraws, reference: ScoreDraws) -> int:
    """How many pairs of ``ranking``'s models the reference's point scores tie: the pairs
    whose Brier outcome is upstream's convention (``ties="upstream"``) or that are left
    out (``ties="omit"``)."""
    scores = reference.only(ranking.models).estimate
    first, second = np.triu_indices(len(scores), k=1)
    return int(np.count_nonzero(scores[first] == scores[second]))


@dataclass(frozen=True)
class RankingComparison:
    """Two rankings of the same models (``ranking`` measured against ``reference``);
    ``None`` for a statistic that needs draws the reference does not have."""

    models: tuple[str, ...]
    separability: float
    reference_separability: float | None
    agreement: float | None
    strict_agreement: float
    brier: float
    spearman: Interval
    kendall: Interval
    signature: Signature
    #: the pairs the reference ties, and what ``brier`` did with them
    brier_tied_pairs: int = 0
    brier_ties: BrierTies = "upstream"

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "models": list(self.models),
            "separability": finite_or_none(self.separability),
            "reference_separability": finite_or_none(self.reference_separability),
            "agreement_with_confidence": finite_or_none(self.agreement),
            "strict_agreement": finite_or_none(self.strict_agreement),
            "pair_rank_brier": finite_or_none(self.brier),
            "pair_rank_brier_tied_pairs": self.brier_tied_pairs,
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
    unit: str = "questions",
    brier_ties: BrierTies = "upstream",
) -> RankingComparison:
    """Every statistic of the module's docstring for ``ranking`` (with draws) against
    ``reference`` (with draws, or point scores only: then no reference separability and
    no agreement with confidence), over the models both rank (the ranking's order).
    ``unit``: what the rankings' draws resample, for the signature; ``brier_ties``: the
    Brier score's rule for a pair the reference ties."""
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    _needs_draws(ranking, "comparing rankings")
    shared = [model for model in ranking.models if model in set(reference.models)]
    if len(shared) < 3:
        raise InputError("comparing rankings needs at least three models ranked by both")
    mine, theirs = ranking.only(shared), reference.only(shared)
    correlations = rank_correlations(
        mine.estimate, theirs.estimate, resamples=resamples, confidence=confidence, seed=seed
    )
    with_draws = theirs.has_draws
    return RankingComparison(
        models=tuple(shared),
        separability=separability(mine, confidence),
        reference_separability=separability(theirs, confidence) if with_draws else None,
        agreement=agreement_with_confidence(mine, theirs, confidence) if with_draws else None,
        strict_agreement=strict_agreement(mine, theirs),
        brier=pair_rank_brier(mine, theirs, brier_ties),
        brier_tied_pairs=tied_reference_pairs(mine, theirs),
        brier_ties=brier_ties,
        spearman=correlations.spearman,
        kendall=correlations.kendall,
        signature=RankingComparisonSignature(
            confidence=confidence,
            pairs=PAIRS,
            brier=BRIER[brier_ties],
            rounds=min(len(mine.draws), len(theirs.draws)),
            unit=unit,
            correlation_draws=CORRELATION_DRAWS,
            resamples=resamples,
            seed=seed,
        ).signature(),
    )


@dataclass(frozen=True)
class CurvePoint:
    """Separability with ``questions`` questions: the mean over the draws of that many
    questions, and the lowest and highest draw; the same for the agreement with
    confidence of each draw's ranking with the whole benchmark's (NaN without it)."""

    questions: int
    separability: float
    lowest: float
    highest: float
    agreement: float = float("nan")
    agreement_lowest: float = float("nan")
    agreement_highest: float = float("nan")

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "questions": self.questions,
            "separability": finite_or_none(self.separability),
            "lowest": finite_or_none(self.lowest),
            "highest": finite_or_none(self.highest),
            "agreement_with_full": finite_or_none(self.agreement),
            "agreement_lowest": finite_or_none(self.agreement_lowest),
            "agreement_highest": finite_or_none(self.agreement_highest),
        }


@dataclass(frozen=True)
class SeparabilityCurve:
    points: tuple[CurvePoint, ...]
    signature: Signature

    def needed(self, target: float) -> int | None:
        """The fewest questions whose mean separability reaches ``target``; ``None`` when
        no count on the curve does."""
        return next((p.questions for p in self.points if p.separability >= target), None)

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "points": [p.to_json() for p in self.points],
        }


def _spread(values: list[float]) -> tuple[float, float, float]:
    array = np.asarray(values, dtype=np.float64)
    finite = array[np.isfinite(array)]
    if not len(finite):
        return (float("nan"),) * 3
    return float(finite.mean()), float(finite.min()), float(finite.max())


def separability_curve(
    questions: int,
    rank: Callable[[IntArray], ScoreDraws],
    sizes: Iterable[int],
    *,
    repeats: int = 10,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
    full: ScoreDraws | None = None,
    unit: str = "questions",
) -> SeparabilityCurve:
    """Separability as the benchmark keeps k of its ``questions`` questions, for each k
    in ``sizes``: ``repeats`` draws of k questions without replacement (seeded), each
    ranked by ``rank(question indices)``, the caller's fit on those questions alone (all
    ``questions`` questions form one subset, ranked once). With ``full`` (the whole
    benchmark's ranking), each draw's agreement with confidence with it as well.
    ``unit``: what ``rank``'s draws resample, for the signature."""
    chosen = tuple(sorted(set(sizes)))
    if not chosen or chosen[0] < 1 or chosen[-1] > questions:
        raise InputError(f"question counts must lie between 1 and {questions}")
    if repeats < 1:
        raise InputError("repeats must be at least 1")
    rng = np.random.default_rng(seed)
    points = []
    rounds = 0
    for size in chosen:
        separations, agreements = [], []
        for _ in range(repeats if size < questions else 1):
            ranking = rank(np.sort(rng.choice(questions, size=size, replace=False)))
            rounds = len(ranking.draws)
            separations.append(separability(ranking, confidence))
            if full is not None:
                agreements.append(agreement_with_confidence(ranking, full, confidence))
        mean, low, high = _spread(separations)
        agreement = _spread(agreements) if full is not None else (float("nan"),) * 3
        points.append(CurvePoint(size, mean, low, high, *agreement))
    signature = SeparabilityCurveSignature(
        sizes=chosen, repeats=repeats, confidence=confidence, seed=seed, rounds=rounds,
        unit=unit,
    ).signature()  # fmt: skip
    return SeparabilityCurve(tuple(points), signature)
