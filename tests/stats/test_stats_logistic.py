"""The logistic fit never takes a step that lowers the likelihood (``stats.logistic``)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from hyoka.stats import logistic

#: two nearly equal columns of large values: the p x p solve is so ill-conditioned that
#: rounding turns one Newton step against the slope, and halving it 30 times cannot help
_DESIGN = [
    [-21334.7874, -21334.7872], [15673.6276, 15673.6276], [8987.774, 8987.7739],
    [254.5869, 254.5871], [4588.9433, 4588.9434], [-9397.6511, -9397.6511],
    [5124.8199, 5124.8201], [15607.2317, 15607.2315], [-11785.6588, -11785.6588],
    [26938.5522, 26938.5523], [-4371.071, -4371.0708], [8277.4516, 8277.452],
]  # fmt: skip
_OUTCOME = [1.0, 0.0, 1.0, 0.0, 0.5, 0.5, 0.5, 0.0, 0.0, 0.0, 0.5, 1.0]
_WEIGHTS = [[0.0, 2.0, 2.0, 1.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0]]


def test_no_iteration_lowers_the_likelihood_on_an_ill_conditioned_design(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fit stopped after 1, 2, ... iterations: each stop's likelihood is at least the
    one before, up to the halving's own tolerance (1e-12 of its size). A step that every
    halving leaves worse keeps the coefficients it started from."""
    design, outcome, weights = np.array(_DESIGN), np.array(_OUTCOME), np.array(_WEIGHTS)
    values = []
    for iterations in range(1, 16):
        monkeypatch.setattr(logistic, "_MAX_ITERATIONS", iterations)
        with np.errstate(over="ignore"):
            beta = logistic.fit_logistic(design, outcome, weights)
        values.append(float(logistic._log_likelihood(beta, design, outcome, weights)[0]))
    for before, after in itertools.pairwise(values):
        assert after >= before - 1e-12 * abs(before)


def test_the_log_likelihood_is_its_definition_to_rounding_where_the_data_separate() -> None:
    """One exponential and one logarithm a cell, not two of each, and no term cancelling
    another: the log-likelihood equals Σ w (y log σ(x) + (1 − y) log σ(−x)) to a relative
    1e-15, for wins, ties and losses, at |x| up to 800, and cell by cell where a model lost
    far on the losing side (the shorter log(1 + e^{−x}) + (1 − y) x lost |x|·1e-16 a cell
    there to cancellation)."""
    rng = np.random.default_rng(7)
    linear = np.concatenate([rng.normal(0, 8, 4000), [-800.0, -60.0, -1e-9, 0.0, 1e-9, 60.0]])
    outcome = rng.choice([0.0, 0.5, 1.0], size=linear.size)
    weights = rng.uniform(0.5, 2.0, size=linear.size)
    cells = weights * (
        outcome * -np.logaddexp(0.0, -linear) + (1.0 - outcome) * -np.logaddexp(0.0, linear)
    )

    def likelihood(rows: slice) -> float:  # x = 1 · design: the design column is x itself
        design = linear[rows, None]
        return float(logistic._log_likelihood(
            np.ones((1, 1)), design, outcome[rows], weights[rows], ridge=0.0)[0])  # fmt: skip

    expected = math.fsum(cells.tolist())
    assert abs(likelihood(slice(None)) - expected) <= 1e-15 * abs(expected)
    for at, x in ((4000, -800.0), (4001, -60.0), (0, -7.5)):  # a loss far on the losing side
        linear[at], outcome[at] = x, 0.0
        cells[at] = weights[at] * -np.logaddexp(0.0, x)
        alone = likelihood(slice(at, at + 1))
        assert abs(alone - cells[at]) <= 1e-15 * abs(cells[at]), (x, alone, cells[at])
