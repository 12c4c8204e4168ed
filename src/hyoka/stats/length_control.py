"""Length-controlled win rates against a baseline, in the manner of alpaca_eval.

alpaca_eval (``metrics/glm_winrate.py``) asks what a model's win rate against the baseline
would be if its answers were as long as the baseline's. For each model separately it fits
a logistic model of the judged share of the win on that model's verdicts:

    logit P(model beats baseline on question q) = θ + γ·tanh(Δ_q / sd(Δ)) [+ φ·d_q]

where Δ_q is the length of the model's answer minus the baseline's, sd(Δ) its standard
deviation over the model's verdicts (ddof 1, as pandas' ``std``), and d_q an instruction
difficulty where the user has one per question. The controlled win rate is the model's
prediction with the length difference set to 0, averaged over its verdicts:
mean_q σ(θ + φ·d_q). The raw win rate (the mean share) is always shown beside it.

What differs from upstream, and is named in the signature: lengths are counted in
**characters** (Japanese is written without spaces between words, so whitespace tokens
would count sentences); the fit is plain maximum likelihood (upstream chooses an L1
penalty by 5-fold cross-validation and regularises toward two "gamed" baselines it ships
with its own data, which no other benchmark has); difficulty is taken only where given
(upstream's comes from its own precomputed table). Intervals are percentile bootstrap
intervals over the model's verdicts drawn with replacement (seeded), each draw refitted;
where verdicts belong to groups (the turns of one question), a draw weights whole groups
(named in the signature), as every other statistic of two-turn judgments resamples
questions; the length scale sd(Δ) is the full data's.

Where the answers were always equally long there is nothing to control: the controlled
rate is the fit of the model term alone (from ``MIN_VERDICTS`` verdicts on, as every
controlled rate). Where every verdict is a whole win (or every one a whole loss) the
model's own term has no finite maximum, with or without lengths: no controlled rate
either. Where the length term cannot be told apart from
the model's own (fewer than ``MIN_VERDICTS`` verdicts, or lengths that differ in one
direction by far more than they vary, so that tanh(Δ/sd(Δ)) hardly varies: its standard
deviation under ``MIN_SPREAD``) there is no controlled rate (NaN, shown as n/a): any
value would be the one the fit's regularisation picks, with an interval that hides it.
The same holds where the length alone splits the model's wins from its losses (every
verdict a whole win or loss, and every win on one side of every loss: the longer answer
always won): the likelihood then grows without bound as γ does, so no maximum exists and
the fit's value is wherever its iterations stopped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from hyoka.errors import InputError
from hyoka.signature import SIGNATURE_KEY, Signature, SignatureType, only_when_set
from hyoka.stats.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    FloatArray,
    IntArray,
    Interval,
    draw_weights,
    percentiles,
    resampled,
)
from hyoka.stats.logistic import fit_logistic, sigmoid

LENGTH_UNIT = "characters"
#: what a grouped bootstrap draws (the signature's ``resample``)
RESAMPLED_GROUP = "question"
#: the fit's name in the signature
FIT = "logistic-ml"
LENGTH_FEATURE = "tanh-std-length-difference"
DIFFICULTY_FEATURE = "instruction-difficulty"
#: fewer verdicts than this: no controlled rate (the length term is not identified)
MIN_VERDICTS = 10
#: a length feature whose standard deviation is under this: no controlled rate
MIN_SPREAD = 0.1
#: Verdicts × resamples per batch of refits (bounds memory).
_BATCH_CELLS = 2_000_000


@dataclass(frozen=True, kw_only=True)
class LengthControlSignature(SignatureType):
    """How a length-controlled win rate was made: the baseline, the fit, its features,
    the unit lengths are counted in, and the bootstrap (resamples, confidence, seed).
    numpy's version is recorded: the draws come from its seeded ``Generator``."""

    kind: ClassVar[str] = "length-controlled-winrate"
    packages: ClassVar[tuple[str, ...]] = ("numpy",)
    baseline: str
    fit: str
    features: tuple[str, ...]
    length: str
    resamples: int
    confidence: float
    seed: int
    #: what a bootstrap draw resamples where not verdicts (``question``: a group's turns)
    resample: str | None = only_when_set()


@dataclass(frozen=True)
class BaselineVerdict:
    """One judged comparison of ``model`` with the baseline on ``question``: the model's
    share of the win (1 win, 0.5 tie, 0 loss, or P(model) + P(tie)/2 where the judge gave
    probabilities) and both answers' lengths in characters; ``group``: the question it
    belongs to, where the bootstrap should draw questions, not verdicts (a turn of a
    two-turn dialogue)."""

    model: str
    question: str
    share: float
    model_chars: int
    baseline_chars: int
    group: str | None = None


@dataclass(frozen=True)
class ControlledWinRate:
    """One model's raw and length-controlled win rates against the baseline (shares in
    [0, 1]), the fitted length coefficient γ (how much the judge rewards length; 0 where
    there was no length variation), each with its interval, and the length scale sd(Δ)
    in characters."""

    model: str
    verdicts: int
    raw: Interval
    controlled: Interval
    length_coefficient: Interval
    length_scale: float

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "verdicts": self.verdicts,
            "win_rate": self.raw.to_json(),
            "length_controlled_win_rate": self.controlled.to_json(),
            "length_coefficient": self.length_coefficient.to_json(),
            "length_scale_characters": self.length_scale,
        }


@dataclass(frozen=True)
class LengthControlled:
    """Every model's rates against ``baseline``, in first-seen order, and the signature."""

    baseline: str
    rates: tuple[ControlledWinRate, ...]
    signature: Signature

    def by_model(self) -> dict[str, ControlledWinRate]:
        return {rate.model: rate for rate in self.rates}

    def to_json(self) -> dict[str, Any]:
        return {
            SIGNATURE_KEY: self.signature.to_json(),
            "baseline": self.baseline,
            "length_unit": LENGTH_UNIT,
            "models": [rate.to_json() for rate in self.rates],
        }


def length_design(differences: FloatArray, extra: FloatArray | None = None) -> FloatArray:
    """The design matrix: the model term (a column of ones), tanh(Δ / sd(Δ)) where the
    differences vary, then the extra covariate (difficulty) where given."""
    columns = [np.ones_like(differences)]
    scale = float(np.std(differences, ddof=1)) if len(differences) > 1 else 0.0
    if scale > 0:
        columns.append(np.tanh(differences / scale))
    if extra is not None:
        columns.append(extra)
    return np.stack(columns, axis=1)


def _separated(feature: FloatArray, outcome: FloatArray) -> bool:
    """Whether ``feature`` alone splits the whole wins (1) from the whole losses (0), ties
    allowed: complete or quasi-complete separation, where the logistic maximum-likelihood
    coefficient is infinite. A fractional verdict (a tie, averaged probabilities) is never
    separated, nor are verdicts all of one kind (the length term has nothing to split)."""
    if not np.isin(outcome, (0.0, 1.0)).all():
        return False
    wins, losses = feature[outcome == 1.0], feature[outcome == 0.0]
    if len(wins) == 0 or len(losses) == 0:
        return False
    return bool(wins.min() >= losses.max() or losses.min() >= wins.max())


def _bounded(outcome: FloatArray) -> bool:
    """Whether the model's own term has a finite maximum: not every verdict a whole win,
    nor every one a whole loss (then the likelihood rises without end as the term does,
    whatever the lengths)."""
    return not (np.all(outcome == 1.0) or np.all(outcome == 0.0))


def _controlled_rows(
    design: FloatArray, outcome: FloatArray, weights: FloatArray, has_length: bool
) -> FloatArray:
    """Per weighting: the raw rate, the controlled rate and γ (rows × 3)."""
    beta = fit_logistic(design, outcome, weights)
    at_zero = design.copy()
    if has_length:
        at_zero[:, 1] = 0.0
    predicted = sigmoid(beta @ at_zero.T)  # rows × n
    total = weights.sum(axis=1)
    raw = (weights * outcome).sum(axis=1) / total
    controlled = (weights * predicted).sum(axis=1) / total
    gamma = beta[:, 1] if has_length else np.zeros(len(beta))
    return np.stack([raw, controlled, gamma], axis=1)


def _one_model(
    model: str,
    verdicts: Sequence[BaselineVerdict],
    difficulty: Mapping[str, float] | None,
    resamples: int,
    confidence: float,
    seed: int,
) -> ControlledWinRate:
    outcome = np.asarray([v.share for v in verdicts], dtype=np.float64)
    differences = np.asarray([v.model_chars - v.baseline_chars for v in verdicts], dtype=np.float64)
    extra = None
    if difficulty is not None:
        missing = sorted({v.question for v in verdicts} - set(difficulty))
        if missing:
            raise InputError(f"{model}: no instruction difficulty for question {missing[0]!r}")
        extra = np.asarray([difficulty[v.question] for v in verdicts], dtype=np.float64)
    design = length_design(differences, extra)
    scale = float(np.std(differences, ddof=1)) if len(differences) > 1 else 0.0
    has_length = scale > 0
    n = len(verdicts)
    # equal lengths leave no length term to tell apart, but never fewer verdicts than
    # MIN_VERDICTS nor a model term without a finite maximum
    identified = (
        n >= MIN_VERDICTS
        and _bounded(outcome)
        and (
            not np.any(differences)
            or (
                has_length
                and float(np.std(design[:, 1], ddof=1)) >= MIN_SPREAD
                and not _separated(design[:, 1], outcome)
            )
        )
    )
    point = _controlled_rows(design, outcome, np.ones((1, n)), has_length)[0]

    unit, units = _units(verdicts)

    def statistic(picks: IntArray) -> FloatArray:
        weights = draw_weights(picks, units)[:, unit]
        return _controlled_rows(design, outcome, weights, has_length)

    rng = np.random.default_rng(seed)
    cells = _BATCH_CELLS // max(1, design.shape[1])
    draws = resampled(statistic, units, resamples, rng, batch_cells=cells)
    low, high = percentiles(draws, confidence)

    def interval(k: int) -> Interval:
        if k > 0 and not identified:
            return Interval(math.nan, math.nan, math.nan, confidence, resamples)
        return Interval(float(point[k]), float(low[k]), float(high[k]), confidence, resamples)

    return ControlledWinRate(model, n, interval(0), interval(1), interval(2), scale)


def _units(verdicts: Sequence[BaselineVerdict]) -> tuple[IntArray, int]:
    """Each verdict's resampling unit and how many: its group (in first-seen order) where
    the verdicts carry groups, else the verdict itself."""
    if verdicts[0].group is None:
        return np.arange(len(verdicts), dtype=np.int64), len(verdicts)
    index: dict[str | None, int] = {}
    unit = np.asarray([index.setdefault(v.group, len(index)) for v in verdicts], dtype=np.int64)
    return unit, len(index)


def length_controlled_winrates(
    verdicts: Iterable[BaselineVerdict],
    *,
    baseline: str,
    difficulty: Mapping[str, float] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = 0.95,
    seed: int = DEFAULT_SEED,
) -> LengthControlled:
    """Each model's raw and length-controlled win rate against ``baseline``, each with its
    bootstrap interval (one fit per model, as upstream; see the module's docstring)."""
    if resamples < 1:
        raise InputError("`resamples` must be at least 1")
    if not 0.0 < confidence < 1.0:
        raise InputError("confidence must lie strictly between 0 and 1")
    by_model: dict[str, list[BaselineVerdict]] = {}
    grouped: set[bool] = set()
    for verdict in verdicts:
        grouped.add(verdict.group is not None)
        if verdict.model == baseline:
            raise InputError(f"a verdict compares the baseline {baseline!r} with itself")
        if math.isnan(verdict.share) or not 0.0 <= verdict.share <= 1.0:
            raise InputError(
                f"{verdict.model} on {verdict.question!r}: share {verdict.share!r} "
                "is not between 0 and 1"
            )
        by_model.setdefault(verdict.model, []).append(verdict)
    if not by_model:
        raise InputError("length-controlled win rate: no verdicts against the baseline")
    if len(grouped) > 1:
        raise InputError("length-controlled win rate: either every verdict has a group or none")
    rates = tuple(
        _one_model(model, rows, difficulty, resamples, confidence, seed)
        for model, rows in by_model.items()
    )
    features = (LENGTH_FEATURE, *((DIFFICULTY_FEATURE,) if difficulty is not None else ()))
    signature = LengthControlSignature(
        baseline=baseline,
        fit=FIT,
        features=features,
        length=LENGTH_UNIT,
        resamples=resamples,
        confidence=confidence,
        seed=seed,
        resample=RESAMPLED_GROUP if True in grouped else None,
    ).signature()
    return LengthControlled(baseline, rates, signature)
