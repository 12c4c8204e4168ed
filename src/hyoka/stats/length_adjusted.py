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

Intervals are percentile bootstrap intervals over questions drawn with replacement
(seeded): the answers to one question share it, so questions are the unit resampled.
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
    IntArray,
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
    and its unit, the bootstrap over questions (resamples, confidence, seed). numpy's
    version is recorded (its seeded draws)."""

    kind: ClassVar[str] = "length-adjusted-scores"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    model: str
    feature: str
    length: str
    resamples: int
    confidence: float
    seed: int


@dataclass(frozen=True)
class Grade:
    """One single grade: ``model``'s answer to ``question`` got ``score`` and was
    ``chars`` characters long."""

    question: str
    model: str
    score: float
    chars: int


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
    model's raw and adjusted mean (first-seen order), and the signature."""

    partial_correlation: Interval
    length_coefficient: Interval
    scores: tuple[AdjustedScore, ...]
    questions: int
    signature: Signature

    def by_model(self) -> dict[str, AdjustedScore]:
        return {score.model: score for score in self.scores}

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "length_unit": LENGTH_UNIT,
            "questions": self.questions,
            "partial_correlation_within_question": self.partial_correlation.to_json(),
            "length_coefficient": self.length_coefficient.to_json(),
            "models": [score.to_json() for score in self.scores],
        }


def _group_means(values: FloatArray, weights: FloatArray, group: IntArray, size: int) -> FloatArray:
    """Per row of ``values`` (rows × n): each item's weighted group mean (rows × n)."""
    rows = values.shape[0]
    cells = (group[None, :] + np.arange(rows, dtype=np.int64)[:, None] * size).ravel()
    totals = np.bincount(cells, weights=(values * weights).ravel(), minlength=rows * size)
    counts = np.bincount(cells, weights=weights.ravel(), minlength=rows * size)
    means = np.divide(totals, counts, out=np.zeros_like(totals), where=counts > 0)
    result: FloatArray = means.reshape(rows, size)[:, group]
    return result


def _two_way_residuals(
    values: FloatArray, weights: FloatArray, question: IntArray, model: IntArray
) -> FloatArray:
    """``values`` with question and model means removed (weighted), by alternating
    projections; one sweep is exact when every model answered every question."""
    questions, models = int(question.max()) + 1, int(model.max()) + 1
    residual = values - _group_means(values, weights, question, questions)
    for _ in range(_MAX_SWEEPS):
        shift = _group_means(residual, weights, model, models)
        residual = residual - shift
        back = _group_means(residual, weights, question, questions)
        residual = residual - back
        if max(float(np.max(np.abs(shift))), float(np.max(np.abs(back)))) < _SWEEP_TOLERANCE:
            break
    return residual


def _statistics(
    score: FloatArray,
    length: FloatArray,
    weights: FloatArray,
    question: IntArray,
    model: IntArray,
    models: int,
) -> FloatArray:
    """Per weighting (rows × n): partial r, γ, then every model's raw and adjusted mean."""
    rows = weights.shape[0]
    questions = int(question.max()) + 1
    scores = np.broadcast_to(score, weights.shape)
    lengths = np.broadcast_to(length, weights.shape)
    centred_score = scores - _group_means(scores, weights, question, questions)
    centred_length = lengths - _group_means(lengths, weights, question, questions)
    with np.errstate(divide="ignore", invalid="ignore"):
        partial = (weights * centred_score * centred_length).sum(axis=1) / np.sqrt(
            (weights * centred_score**2).sum(axis=1) * (weights * centred_length**2).sum(axis=1)
        )
        both_length = _two_way_residuals(lengths, weights, question, model)
        both_score = _two_way_residuals(scores, weights, question, model)
        gamma = (weights * both_length * both_score).sum(axis=1) / (weights * both_length**2).sum(
            axis=1
        )
    cells = (model[None, :] + np.arange(rows, dtype=np.int64)[:, None] * models).ravel()

    def per_model(values: FloatArray) -> FloatArray:
        total = np.bincount(cells, weights=(values * weights).ravel(), minlength=rows * models)
        count = np.bincount(cells, weights=weights.ravel(), minlength=rows * models)
        with np.errstate(divide="ignore", invalid="ignore"):
            result: FloatArray = (total / count).reshape(rows, models)
        return result

    raw = per_model(scores)
    relative = per_model(centred_length)
    adjusted = raw - np.nan_to_num(gamma)[:, None] * relative
    return np.concatenate([partial[:, None], gamma[:, None], raw, adjusted], axis=1)


def length_adjusted_scores(
    grades: Iterable[Grade],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> LengthAdjusted:
    """The partial correlation of score with length within question and every model's
    length-adjusted mean (see the module's docstring), with intervals over questions."""
    if resamples < 1:
        raise InputError("--resamples must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    question_index: dict[str, int] = {}
    model_index: dict[str, int] = {}
    rows: list[tuple[int, int, float, float]] = []
    for grade in grades:
        if not math.isfinite(grade.score):
            raise InputError(f"{grade.model} on {grade.question!r}: score {grade.score!r}")
        if grade.chars < 0:
            raise InputError(f"{grade.model} on {grade.question!r}: negative length")
        q = question_index.setdefault(grade.question, len(question_index))
        m = model_index.setdefault(grade.model, len(model_index))
        rows.append((q, m, grade.score, math.log1p(grade.chars)))
    if len(question_index) < 2 or len(model_index) < 2:
        raise InputError("length adjustment needs at least two questions and two models")
    question = np.asarray([r[0] for r in rows], dtype=np.int64)
    model = np.asarray([r[1] for r in rows], dtype=np.int64)
    score = np.asarray([r[2] for r in rows], dtype=np.float64)
    length = np.asarray([r[3] for r in rows], dtype=np.float64)
    models, questions = len(model_index), len(question_index)

    def of(question_weights: FloatArray) -> FloatArray:
        return _statistics(score, length, question_weights[:, question], question, model, models)

    point = of(np.ones((1, questions)))[0]
    rng = np.random.default_rng(seed)
    draws = resampled(
        lambda picks: of(draw_weights(picks, questions)),
        questions,
        resamples,
        rng,
        batch_cells=max(questions, _BATCH_CELLS * questions // max(1, len(rows))),
    )
    low, high = _nan_percentiles(draws, confidence)

    def interval(k: int) -> Interval:
        return Interval(float(point[k]), float(low[k]), float(high[k]), confidence, resamples)

    counts = np.bincount(model, minlength=models)
    centred = (
        length - _group_means(length[None, :], np.ones((1, len(rows))), question, questions)[0]
    )
    shift = np.bincount(model, weights=centred, minlength=models) / counts
    scores = tuple(
        AdjustedScore(
            model=name,
            grades=int(counts[m]),
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
        resamples=resamples,
        confidence=confidence,
        seed=seed,
    ).signature()
    return LengthAdjusted(interval(0), interval(1), scores, questions, signature)


def _nan_percentiles(draws: FloatArray, confidence: float) -> tuple[FloatArray, FloatArray]:
    """Percentiles per column over the draws where it is defined (a model absent from a
    draw of questions has no mean there); NaN where it never is."""
    alpha = (1.0 - confidence) / 2.0
    with warnings.catch_warnings():  # "All-NaN slice": the column's bounds are NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(draws, [alpha, 1.0 - alpha], axis=0)
    return low, high
