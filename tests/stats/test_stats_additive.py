"""Group (cluster) bootstrap: equal to the loop over resampled groups, and to items alone."""

from __future__ import annotations

import numpy as np
import pytest

from _shared import needs
from hyoka.stats import bootstrap
from hyoka.stats.additive import additive_interval, cohen, fleiss, share
from hyoka.stats.bootstrap import FloatArray, IntArray, resample_indices
from hyoka.stats.kappa import (
    FleissParts,
    category_counts,
    cohen_kappa,
    cohen_kappa_rows,
    fleiss_kappa,
)

needs("statsmodels")
from statsmodels.stats.inter_rater import (  # type: ignore[import-untyped]  # noqa: E402
    cohens_kappa as sm_cohens_kappa,
)
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa  # noqa: E402

RNG = np.random.default_rng(42)
FIRST = RNG.integers(0, 3, size=90)
SECOND = np.where(RNG.random(90) < 0.6, FIRST, RNG.integers(0, 4, size=90))
RATERS = np.where(RNG.random((3, 90)) < 0.7, FIRST, RNG.integers(0, 3, size=(3, 90)))
GROUPS = np.repeat(np.arange(30), 3)  # three items per "question"


def test_full_data_estimates_equal_the_direct_formulas() -> None:
    ones = np.zeros(len(FIRST), dtype=np.int64)
    kappa = additive_interval(cohen(FIRST, SECOND, 4), ones, resamples=5, confidence=0.95, seed=0)
    assert kappa.estimate == pytest.approx(cohen_kappa(FIRST, SECOND, 4))
    table = category_counts(RATERS, 3)
    fl = additive_interval(fleiss(table), ones, resamples=5, confidence=0.95, seed=0)
    assert fl.estimate == pytest.approx(fleiss_kappa(table))
    agree = (FIRST == SECOND).astype(np.float64)
    assert additive_interval(
        share(agree), ones, resamples=5, confidence=0.95, seed=0
    ).estimate == pytest.approx(agree.mean())


def test_items_as_groups_is_the_plain_item_bootstrap() -> None:
    items = np.arange(len(FIRST), dtype=np.int64)
    grouped = additive_interval(
        cohen(FIRST, SECOND, 4), items, resamples=400, confidence=0.9, seed=3
    )

    def rows(index: IntArray) -> FloatArray:
        return cohen_kappa_rows(FIRST[index], SECOND[index], 4)

    plain = bootstrap(rows, len(FIRST), resamples=400, confidence=0.9, seed=3)
    assert grouped.low == pytest.approx(plain.low) and grouped.high == pytest.approx(plain.high)
    parts = FleissParts(category_counts(RATERS, 3))
    by_item = additive_interval(
        fleiss(category_counts(RATERS, 3)), items, resamples=400, confidence=0.9, seed=3
    )
    plain_fleiss = bootstrap(parts.rows, len(FIRST), resamples=400, confidence=0.9, seed=3)
    assert by_item.low == pytest.approx(plain_fleiss.low)
    assert by_item.high == pytest.approx(plain_fleiss.high)


def test_group_bootstrap_equals_the_loop_over_drawn_groups() -> None:
    interval = additive_interval(
        cohen(FIRST, SECOND, 4), GROUPS, resamples=300, confidence=0.95, seed=9
    )
    fleiss_ci = additive_interval(
        fleiss(category_counts(RATERS, 3)), GROUPS, resamples=300, confidence=0.95, seed=9
    )
    members = [np.flatnonzero(np.equal(GROUPS, g)) for g in range(30)]
    kappas, fleisses = [], []
    for drawn in resample_indices(30, 300, np.random.default_rng(9)):
        picked = np.concatenate([members[g] for g in drawn])
        joint = np.zeros((4, 4))
        np.add.at(joint, (FIRST[picked], SECOND[picked]), 1)
        kappas.append(sm_cohens_kappa(joint, return_results=False))
        fleisses.append(sm_fleiss_kappa(category_counts(RATERS[:, picked], 3)))
    assert interval.low == pytest.approx(np.quantile(kappas, 0.025))
    assert interval.high == pytest.approx(np.quantile(kappas, 0.975))
    assert fleiss_ci.low == pytest.approx(np.quantile(fleisses, 0.025))
    assert fleiss_ci.high == pytest.approx(np.quantile(fleisses, 0.975))
