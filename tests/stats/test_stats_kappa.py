"""Cohen's and Fleiss' kappa: textbook worked examples, then statsmodels on random data."""

from __future__ import annotations

import numpy as np
import pytest

from _shared import needs
from hyoka.errors import InputError
from hyoka.stats.kappa import FleissParts, category_counts, cohen_kappa, fleiss_kappa

needs("hypothesis")
needs("statsmodels")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from statsmodels.stats.inter_rater import (  # type: ignore[import-untyped]  # noqa: E402
    cohens_kappa as sm_cohens_kappa,
)
from statsmodels.stats.inter_rater import (  # noqa: E402
    fleiss_kappa as sm_fleiss_kappa,
)

# The worked example of Fleiss' kappa (Wikipedia, "Fleiss' kappa"): 10 subjects, 14 raters,
# 5 categories; the page's hand computation gives p_j, P_i, P-bar = 0.378, P-bar_e = 0.213
# and kappa = 0.210.
FLEISS_TABLE = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_worked_example_by_hand() -> None:
    # p_j = column totals / (10 * 14)
    p = [20 / 140, 28 / 140, 39 / 140, 21 / 140, 32 / 140]
    # P_i = (sum_j n_ij^2 - 14) / (14 * 13), e.g. row 2: (4 + 36 + 16 + 4 - 14) / 182
    p_i = [(sum(n * n for n in row) - 14) / 182 for row in FLEISS_TABLE]
    assert p_i[0] == 1.0 and p_i[1] == pytest.approx(46 / 182)
    p_bar = sum(p_i) / 10
    p_e = sum(x * x for x in p)
    assert round(p_bar, 3) == 0.378 and round(p_e, 3) == 0.213
    expected = (p_bar - p_e) / (1 - p_e)
    assert round(expected, 3) == 0.210
    assert fleiss_kappa(FLEISS_TABLE) == pytest.approx(expected, abs=1e-12)


def test_cohen_two_by_two_textbook() -> None:
    # Wikipedia's "Cohen's kappa" example: 50 grant proposals, two readers;
    # yes/yes 20, yes/no 5, no/yes 10, no/no 15: p_o = 0.7, p_e = 0.5, kappa = 0.4.
    first = [0] * 25 + [1] * 25
    second = [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15
    assert cohen_kappa(first, second) == pytest.approx(0.4, abs=1e-12)


def test_cohen_three_categories_by_hand() -> None:
    # confusion (rows first rater A/B/C, columns second): p_o = 81/100;
    # margins 32/34/34 and 29/31/40: p_e = (32*29 + 34*31 + 34*40)/100^2 = 0.3342
    table = [[25, 2, 5], [3, 26, 5], [1, 3, 30]]
    first = [i for i, row in enumerate(table) for j, n in enumerate(row) for _ in range(n)]
    second = [j for row in table for j, n in enumerate(row) for _ in range(n)]
    assert cohen_kappa(first, second) == pytest.approx((0.81 - 0.3342) / (1 - 0.3342))


def test_cohen_perfect_and_degenerate() -> None:
    assert cohen_kappa([0, 1, 2, 1], [0, 1, 2, 1]) == 1.0
    assert np.isnan(cohen_kappa([2, 2, 2], [2, 2, 2]))  # p_e = 1: undefined


labels = st.lists(st.integers(0, 3), min_size=2, max_size=200)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_cohen_matches_statsmodels(data: st.DataObject) -> None:
    first = data.draw(labels)
    second = data.draw(st.lists(st.integers(0, 3), min_size=len(first), max_size=len(first)))
    table = np.zeros((4, 4))
    for a, b in zip(first, second, strict=True):
        table[a, b] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = sm_cohens_kappa(table, return_results=False)
    ours = cohen_kappa(first, second, categories=4)
    if np.isnan(ours):
        assert len(set(first)) == 1 and set(first) == set(second)
    else:
        assert ours == pytest.approx(expected, abs=1e-9)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda raters: st.lists(
            st.lists(st.integers(0, 2), min_size=raters, max_size=raters), min_size=1, max_size=60
        )
    )
)
def test_fleiss_matches_statsmodels(items: list[list[int]]) -> None:
    labels_by_rater = np.array(items, dtype=np.int64).T  # (raters, items)
    table = category_counts(labels_by_rater, 3)
    assert table.sum(axis=1).tolist() == [labels_by_rater.shape[0]] * len(items)
    ours = fleiss_kappa(table)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = sm_fleiss_kappa(table, method="fleiss")
    if np.isnan(ours):
        assert np.isnan(expected) or not np.isfinite(expected)
    else:
        assert ours == pytest.approx(expected, abs=1e-9)


def test_fleiss_rows_equal_one_at_a_time() -> None:
    parts = FleissParts(FLEISS_TABLE)
    rng = np.random.default_rng(3)
    index = rng.integers(0, 10, size=(20, 10))
    rows = parts.rows(index)
    for row, picked in zip(rows, index, strict=True):
        expected = sm_fleiss_kappa(np.array(FLEISS_TABLE)[picked], method="fleiss")
        assert row == pytest.approx(expected, abs=1e-12)


def test_fleiss_rejects_unequal_rater_counts() -> None:
    with pytest.raises(InputError, match="same number"):
        fleiss_kappa([[1, 2], [1, 1]])
