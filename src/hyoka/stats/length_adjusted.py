"""Single grades and answer length: does a model lead because it writes longer?

Two numbers, both over (question, model, score, length) rows, lengths in **characters**
(Japanese is written without spaces between words) and taken as x = log(1 + characters):

* the **partial correlation of score with length within question**: Pearson's r of the
  score and x after each is centred on its question's mean, so that hard questions with
  long answers do not pass for a length effect;
* a **length-adjusted mean** per model, from the two-way fixed-effects regression

      score(q, m) = α_q + μ_m + γ·x(q, m) + ε

  fitted by least squares (γ from the scores and lengths with both question and model
  means removed, alternating projections until they no longer move). γ is the judge's
  reward for length *within* a model and a question, so that it is not a better model's
  quality that happens to come with longer answers. The adjusted mean is the model's mean
  prediction with every answer as long as its question's mean: raw mean − γ·(the model's
  mean of x − x̄_q), x̄_q the mean of x over the answers to question q. (Least squares
  with a model term leaves each model's residuals summing to 0, so this equals
  mean_q(α_q + μ_m + γ·x̄_q).)

Intervals are percentile bootstrap intervals over clusters of questions drawn with
replacement (seeded): the answers to one question share it, so a question is never split,
and questions that hang together (the turns of one dialogue: turn 2 is asked after turn
1's answer) are given one ``cluster`` and drawn together. Without clusters each question
is its own. The unit drawn is named in the signature (``unit``): resampling turns one by
one where the turns of a dialogue move together would give too narrow an interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hyoka.errors import InputError
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    Interval,
    draw_weights,
    resampled,
)
from hyoka.stats.length_control import LENGTH_UNIT

MODEL = "two-way-fixed-effects"
FEATURE = "log1p-characters"
#: rows × resamples per batch (bounds memory)
_BATCH_CELLS = 2_000_000
_MAX_SWEEPS = 1000
_SWEEP_TOLERANCE = 1e-12


@dataclass(frozen=True, kw_only=True)
class LengthAdjustedSignature(SignatureType):
    """How length-adjusted single grades were made: the regression, the length feature
    and its unit, the bootstrap (the unit it draws: ``question``, or what the caller's
    clusters are, e.g. ``dialogue``; resamples, confidence, seed). numpy's version is
    recorded (its seeded draws)."""

    kind: ClassVar[str] = "length-adjusted-scores"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    model: str
    feature: str
    length: str
    unit: str
    resamples: int
    confidence: float
    seed: int


@dataclass(frozen=True)
class Grade:
    """One single grade: ``model``'s answer to ``question`` got ``score`` and was
    ``chars`` characters long; ``cluster``: the unit the bootstrap draws the question
    with (e.g. its dialogue), ``None``: the question alone."""

    question: str
    model: str
    score: float
    chars: int
    cluster: str | None = None


@dataclass(frozen=True)
class AdjustedScore:
    """One model's raw and length-adjusted mean score, and how much longer than its
    questions' mean its answers were (the mean of x − x̄_q; 0.1 is about 10% longer)."""

    model: str
    grades: int
    raw: Interval
    adjusted: Interval
    relative_length: float

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "grades": self.grades,
            "mean": self.raw.to_json(),
            "length_adjusted_mean": self.adjusted.to_json(),
            "mean_log_length_above_question": self.relative_length,
        }


@dataclass(frozen=True)
class LengthAdjusted:
    """The within-question partial correlation, γ (score per unit of log length), every
    model's raw and adjusted mean (first-seen order), the signature, and what the
    bootstrap drew: ``clusters`` of ``unit`` (``questions`` where it is ``question``)."""

    partial_correlation: Interval
    length_coefficient: Interval
    scores: tuple[AdjustedScore, ...]
    questions: int
    signature: Signature
    clusters: int
    unit: str

    def by_model(self) -> dict[str, AdjustedScore]:
        return {score.model: score for score in self.scores}

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "length_unit": LENGTH_UNIT,
            "questions": self.questions,
            "resampled": {"unit": self.unit, "count": self.clusters},
            "partial_correlation_within_question": self.partial_correlation.to_json(),
            "length_coefficient": self.length_coefficient.to_json(),
            "models": [score.to_json() for score in self.scores],
        }


@dataclass(frozen=True)
class _Panel:
    """The grades as a question × model table: scores, log lengths, which cells hold a
    grade (``present``, 0 or 1), and the scores and log lengths centred on their
    question's mean over the cells present (0 where absent)."""

    score: FloatArray
    length: FloatArray
    present: FloatArray
    centred_score: FloatArray
    centred_length: FloatArray

    @classmethod
    def of(cls, score: FloatArray, length: FloatArray, present: FloatArray) -> _Panel:
        count = present.sum(axis=1, keepdims=True)

        def centred(values: FloatArray) -> FloatArray:
            mean = (values * present).sum(axis=1, keepdims=True) / count
            result: FloatArray = (values - mean) * present
            return result

        return cls(score, length, present, centred(score), centred(length))


def _two_way_residuals(centred: FloatArray, weight: FloatArray, present: FloatArray) -> FloatArray:
    """Question-centred values (questions × models) with the models' weighted means
    removed too, for each question weighting (rows × questions × models out), by
    alternating projections: within a question every cell has its weight, so the question
    step is a plain mean. One sweep is exact when every model answered every question."""
    cells = weight[:, :, None] * present[None, :, :]
    model_weight = cells.sum(axis=1)
    per_question = present.sum(axis=1)
    residual = np.broadcast_to(centred, cells.shape).copy()
    for _ in range(_MAX_SWEEPS):
        shift = np.divide(
            (cells * residual).sum(axis=1),
            model_weight,
            out=np.zeros_like(model_weight),
            where=model_weight > 0,
        )
        residual -= shift[:, None, :] * present
        back = (residual * present).sum(axis=2) / per_question
        residual -= back[:, :, None] * present
        if max(float(np.max(np.abs(shift))), float(np.max(np.abs(back)))) < _SWEEP_TOLERANCE:
            break
    return residual


def _statistics(panel: _Panel, weight: FloatArray) -> FloatArray:
    """Per question weighting (rows × questions): the partial r, γ, then every model's
    raw and adjusted mean (NaN for a model none of whose questions was drawn)."""
    cells = weight[:, :, None] * panel.present[None, :, :]
    model_weight = cells.sum(axis=1)

    def total(values: FloatArray) -> FloatArray:
        """Per row and model: Σ over questions of each cell's weight × value."""
        result: FloatArray = weight @ (panel.present * values)
        return result

    def summed(values: FloatArray) -> FloatArray:
        """Σ over questions and models of each cell's weight × value (per row)."""
        result: FloatArray = weight @ (panel.present * values).sum(axis=1)
        return result

    with np.errstate(divide="ignore", invalid="ignore"):
        partial = summed(panel.centred_score * panel.centred_length) / np.sqrt(
            summed(panel.centred_score**2) * summed(panel.centred_length**2)
        )
        length = _two_way_residuals(panel.centred_length, weight, panel.present)
        score = _two_way_residuals(panel.centred_score, weight, panel.present)
        gamma = (cells * length * score).sum(axis=(1, 2)) / (cells * length**2).sum(axis=(1, 2))
        raw = total(panel.score) / model_weight
        relative = total(panel.centred_length) / model_weight
    adjusted = raw - np.nan_to_num(gamma)[:, None] * relative
    return np.concatenate([partial[:, None], gamma[:, None], raw, adjusted], axis=1)


def length_adjusted_scores(
    grades: Iterable[Grade],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
    unit: str = "question",
) -> LengthAdjusted:
    """The partial correlation of score with length within question and every model's
    length-adjusted mean (see the module's docstring), with intervals over the grades'
    clusters (``unit`` names what a cluster is; ``question`` where none is given). A
    model answers a question at most once (repeats are aggregated before)."""
    if resamples < 1:
        raise InputError("`resamples` must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    question_index: dict[str, int] = {}
    model_index: dict[str, int] = {}
    cells: dict[tuple[int, int], tuple[float, float]] = {}
    cluster_index: dict[str, int] = {}
    cluster_of: dict[int, int] = {}
    for grade in grades:
        if not math.isfinite(grade.score):
            raise InputError(f"{grade.model} on {grade.question!r}: score {grade.score!r}")
        if grade.chars < 0:
            raise InputError(f"{grade.model} on {grade.question!r}: negative length")
        q = question_index.setdefault(grade.question, len(question_index))
        m = model_index.setdefault(grade.model, len(model_index))
        cluster = grade.question if grade.cluster is None else grade.cluster
        c = cluster_index.setdefault(cluster, len(cluster_index))
        if cluster_of.setdefault(q, c) != c:
            raise InputError(f"question {grade.question!r} is in two clusters")
        if (q, m) in cells:
            raise InputError(f"{grade.model} on {grade.question!r}: graded twice")
        cells[q, m] = (grade.score, math.log1p(grade.chars))
    questions, models = len(question_index), len(model_index)
    if questions < 2 or models < 2:
        raise InputError("length adjustment needs at least two questions and two models")
    score, length, present = (np.zeros((questions, models)) for _ in range(3))
    for (q, m), (value, log_length) in cells.items():
        score[q, m], length[q, m], present[q, m] = value, log_length, 1.0
    panel = _Panel.of(score, length, present)

    if unit == "question" and len(cluster_index) != questions:
        raise ValueError("grades with clusters need the unit the clusters are named")
    point = _statistics(panel, np.ones((1, questions)))[0]
    rng = np.random.default_rng(seed)
    clusters = len(cluster_index)
    # each question weighs as often as its cluster was drawn
    members = np.asarray([cluster_of[q] for q in range(questions)], dtype=np.int64)
    # a batch of r draws holds r × clusters indices and r × questions × models cells
    draws = resampled(
        lambda picks: _statistics(panel, draw_weights(picks, clusters)[:, members]),
        clusters,
        resamples,
        rng,
        batch_cells=max(clusters, _BATCH_CELLS // (models * questions) * clusters),
    )
    low, high = _nan_percentiles(draws, confidence)

    def interval(k: int) -> Interval:
        return Interval(float(point[k]), float(low[k]), float(high[k]), confidence, resamples)

    answered = present.sum(axis=0)
    shift = panel.centred_length.sum(axis=0) / answered
    scores = tuple(
        AdjustedScore(
            model=name,
            grades=int(answered[m]),
            raw=interval(2 + m),
            adjusted=interval(2 + models + m),
            relative_length=float(shift[m]),
        )
        for name, m in model_index.items()
    )
    signature = LengthAdjustedSignature(
        model=MODEL,
        feature=FEATURE,
        length=LENGTH_UNIT,
        unit=unit,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    ).signature()
    return LengthAdjusted(
        interval(0), interval(1), scores, questions, signature, clusters=clusters, unit=unit
    )


def _nan_percentiles(draws: FloatArray, confidence: float) -> tuple[FloatArray, FloatArray]:
    """Percentiles per column over the draws where it is defined (a model absent from a
    draw of questions has no mean there); NaN where it never is."""
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():  # "All-NaN slice": the column's bounds are NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(draws, [alpha, 1.0 - alpha], axis=0)
    return low, high
