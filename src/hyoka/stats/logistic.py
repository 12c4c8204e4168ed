"""Logistic regression with fractional outcomes, fitted for many row weightings at once.

The length-controlled win rate and the style-controlled Bradley–Terry ratings are both a
logistic model of a judged share of the win (1, 0.5, 0, or a judge's probability-averaged
verdict P(A) + P(tie)/2) on a design matrix. A fractional outcome y counts as y of a win
and 1 − y of a loss: the log-likelihood Σ w·(y·log p + (1 − y)·log(1 − p)), the one
statsmodels' binomial ``GLM`` and alpaca_eval's duplicated rows (one per class, weighted
by y and 1 − y) maximise.

A bootstrap resample is a row weighting (how often each row was drawn), so every resample
is fitted at once: Newton's method on a stack of p × p systems, one per weighting, with
step halving so that no step lowers the likelihood. A vanishing ridge keeps the optimum
finite where the data separate (a model that won every game) and moves ordinary
coefficients by far less than a shown digit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hyoka.errors import InputError
from hyoka.stats.bootstrap import FloatArray

BoolArray = npt.NDArray[np.bool_]

#: Ridge on every coefficient: a finite optimum where the data separate.
RIDGE = 1e-6
_TOLERANCE = 1e-10
_MAX_ITERATIONS = 100


def _log_likelihood(
    coefficients: FloatArray,
    design: FloatArray,
    outcome: FloatArray,
    weights: FloatArray,
    ridge: float = RIDGE,
) -> FloatArray:
    """The penalised log-likelihood of each row of ``coefficients`` (rows × p)."""
    linear = coefficients @ design.T  # rows × n
    # −(y log σ(x) + (1 − y) log σ(−x)) = log(1 + e^{−|x|}) + (1 − y) max(x, 0) − y min(x, 0):
    # one exponential and one logarithm a cell, not two of each (most of a fit's time), and
    # every term at least 0, so nothing cancels (log(1 + e^{−x}) + (1 − y) x lost |x|·1e-16
    # a cell to cancellation where a model lost every game)
    value = weights * (
        np.log1p(np.exp(-np.abs(linear)))
        + (1.0 - outcome) * np.maximum(linear, 0.0)
        - outcome * np.minimum(linear, 0.0)
    )
    penalised: FloatArray = -value.sum(axis=1) - ridge / 2 * np.sum(coefficients**2, axis=1)
    return penalised


def fit_logistic(
    design: FloatArray,
    outcome: FloatArray,
    weights: FloatArray,
    *,
    ridge: float = RIDGE,
    start: FloatArray | None = None,
) -> FloatArray:
    """Coefficients (rows × p) maximising the fractional-outcome log-likelihood of
    ``outcome`` (n shares in [0, 1]) on ``design`` (n × p, no intercept added) under each
    row of ``weights`` (rows × n; a bootstrap resample's draw counts, or ones), penalised
    by ``ridge``; Newton's method from ``start`` (rows × p; zeros where not given)."""
    n, p = design.shape
    if outcome.shape != (n,) or weights.ndim != 2 or weights.shape[1] != n:
        raise InputError("logistic fit: design, outcome and weights disagree in size")
    if not (np.all(outcome >= 0.0) and np.all(outcome <= 1.0)):
        raise InputError("logistic fit: every outcome must be a share between 0 and 1")
    rows = weights.shape[0]
    beta = np.zeros((rows, p)) if start is None else np.array(start, dtype=np.float64)
    eye = np.eye(p)
    current = _log_likelihood(beta, design, outcome, weights, ridge)
    for _ in range(_MAX_ITERATIONS):
        with np.errstate(over="ignore"):  # e^(−η) overflows to ∞ where η ≪ 0: p = 0
            probability = 1.0 / (1.0 + np.exp(-(beta @ design.T)))
        gradient = (weights * (outcome - probability)) @ design - ridge * beta
        curvature = weights * probability * (1.0 - probability)  # rows × n
        hessian = np.matmul(design.T[None, :, :] * curvature[:, None, :], design) + ridge * eye
        step = np.linalg.solve(hessian, gradient[:, :, None])[:, :, 0]
        size = np.ones(rows)
        for _ in range(30):  # step halving: never accept a worse likelihood
            trial = beta + size[:, None] * step
            value = _log_likelihood(trial, design, outcome, weights, ridge)
            worse = value < current - 1e-12 * np.abs(current)
            if not worse.any():
                break
            size = np.where(worse, size / 2, size)
        # a row whose step still lowers the likelihood after every halving (a step that
        # rounding has turned against the slope) keeps its coefficients: it has converged
        # as far as the arithmetic allows
        size = np.where(worse, 0.0, size)
        beta = np.where(worse[:, None], beta, trial)
        previous, current = current, np.where(worse, current, value)
        if np.max(np.abs(size[:, None] * step)) < _TOLERANCE or np.all(
            np.abs(current - previous) <= 1e-15 * np.maximum(1.0, np.abs(current))
        ):
            break
    return beta


def sigmoid(values: FloatArray) -> FloatArray:
    """σ(x) = 1 / (1 + e^{−x}), without overflow for large |x|."""
    result: FloatArray = np.exp(-np.logaddexp(0.0, -values))
    return result


#: ``separating_move`` refits with the ridge divided by this
_SMALLER_RIDGE = 100.0
#: a move of the linear predictor at least this large is growth without bound (a finite
#: maximum moves it by about the ridge, 1e-6; a separation by about ln 100 ≈ 4.6)
_GROWTH = 1.0
#: a move this small against the largest is none (the certificate's rounding allowance)
_RELATIVE = 1e-3


def separating_move(
    design: FloatArray, outcome: FloatArray, weights: FloatArray, beta: FloatArray
) -> FloatArray:
    """Per row of ``weights``: how the coefficients (rows × p) move as the ridge shrinks
    where the likelihood has no maximum (the data separate), along the separating
    direction; zeros where it has one (``beta``: ``fit_logistic``'s coefficients under the
    default ridge).

    The mechanism: the fit is repeated from ``beta`` with a ridge a hundred times smaller.
    Where a maximum exists the coefficients move by about the ridge. Where the data
    separate, the penalised optimum lies where the ridge balances a likelihood gain that
    decays like e^(−η) on the separated outcomes, so η ≈ ln(1/ridge) there and the smaller
    ridge moves it by about ln 100 ≈ 4.6, along a separating direction: every whole win's
    linear predictor rises or stays, every whole loss's falls or stays, and every
    fractional outcome's (a tie counts half a win and half a loss) stays. Separation is
    said where the move passes that check (up to ``_RELATIVE`` of the largest move) and
    some whole outcome's predictor moved at least ``_GROWTH`` toward it; the check is
    exact in one direction (a move that passes it is a separating direction, which data
    with a maximum do not have)."""
    further = fit_logistic(design, outcome, weights, ridge=RIDGE / _SMALLER_RIDGE, start=beta)
    move = further - beta
    linear = move @ design.T  # rows × n
    used = weights > 0
    sign = np.where(outcome == 1.0, 1.0, np.where(outcome == 0.0, -1.0, 0.0))
    whole = sign != 0.0
    largest = np.max(np.where(used, np.abs(linear), 0.0), axis=1)
    allowance = _RELATIVE * largest[:, None]
    toward = sign * linear
    against = used & whole & (toward < -allowance)
    fractional_moved = used & ~whole & (np.abs(linear) > allowance)
    grew = np.max(np.where(used & whole, toward, 0.0), axis=1) >= _GROWTH
    separated = grew & ~against.any(axis=1) & ~fractional_moved.any(axis=1)
    found: FloatArray = np.where(separated[:, None], move, 0.0)
    return found


def moved(move: FloatArray) -> BoolArray:
    """Which entries of each row of ``move`` moved: more than ``_RELATIVE`` of the row's
    largest (the certificate's rounding allowance); none in a row of zeros."""
    size = np.abs(move)
    found: BoolArray = size > _RELATIVE * np.max(size, axis=1, keepdims=True)
    return found
