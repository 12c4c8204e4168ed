"""Finishing measured answers (rounding each set's share, Helpfulness and the average) in bulk,
column by column, gives every float the answer-by-answer formula of upstream gives, under
both summations, and re-summing a score is free where one or two sets make the summations
agree."""

from __future__ import annotations

import dataclasses
import itertools
import operator
import struct
from collections.abc import Iterable
from typing import Any

import pytest

from _shared import needs
from hyoka.pfgen._pysum import Summation, compensated_sum_in_python
from hyoka.pfgen.keywords import HelpfulnessResult
from hyoka.pfgen.questions import QuestionInfo
from hyoka.pfgen.scorer import (
    AnswerScore,
    Measurement,
    QuestionScorer,
    ReferenceSet,
    _answer_score,
    _measurement,
)

needs("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PROPERTY = settings(max_examples=200, deadline=None)
NAMES = ("P", "Q", "R")

#: Values as the metrics make them (0 to 1, with ties at the rounding digit) and any double.
VALUES = (
    st.floats(0, 1)
    | st.integers(0, 3 * 10**7).map(lambda n: n / 10**7)
    | st.floats(allow_nan=False, width=64)
    | st.sampled_from((0.0, -0.0, 1e-7, 0.5e-6, 2.5e-6, 1.0, 1e16, 5e-324))
)


def scorer_of(count: int) -> QuestionScorer:
    """A scorer with ``count`` tiny reference sets (finishing reads only their names)."""
    info = QuestionInfo("Q01", "q", "c", "", [], NAMES[:count], ())
    sets = [ReferenceSet.build(name, ["あいうえお"]) for name in NAMES[:count]]
    return QuestionScorer(info, sets)


SCORERS = {count: scorer_of(count) for count in (1, 2, 3)}


def left_to_right(values: Iterable[float]) -> float:
    total = 0.0
    for value in values:
        total += value
    return total


def upstream(measured: Measurement, count: int, summation: Summation) -> AnswerScore:
    """The formula as upstream writes it, answer by answer, with the Python sums."""
    names = NAMES[:count]
    fluency = {n: round(v / count, 6) for n, v in zip(names, measured.fluency, strict=True)}
    truth = {n: round(v / count, 6) for n, v in zip(names, measured.truthfulness, strict=True)}
    add = compensated_sum_in_python if summation is Summation.COMPENSATED else left_to_right
    helpful = round(measured.helpfulness.score, 5)
    total = add(fluency.values()) + add(truth.values())
    return AnswerScore(
        fluency, truth, helpful, measured.helpfulness.missed, round((total + helpful) / 3, 5)
    )


def exact(score: AnswerScore) -> tuple[Any, ...]:
    """Every float of a score as its bytes, with its keys in order (-0.0 is not 0.0)."""

    def b(value: float) -> bytes:
        return struct.pack("<d", value)

    return (
        [(k, b(v)) for k, v in score.fluency_shares.items()],
        [(k, b(v)) for k, v in score.truthfulness_shares.items()],
        b(score.helpfulness),
        score.missed,
        b(score.average),
    )


@st.composite
def measurements(draw: st.DrawFn) -> tuple[int, list[Measurement]]:
    count = draw(st.integers(1, 3))
    row = st.tuples(*[VALUES] * count)
    helpful = st.builds(
        HelpfulnessResult,
        VALUES,
        st.lists(st.tuples(st.sampled_from(("a", "b")), VALUES), max_size=2),
    )
    items = draw(st.lists(st.builds(Measurement, row, row, helpful), max_size=12))
    return count, items


@PROPERTY
@given(measurements(), st.sampled_from(Summation))
def test_finishing_in_bulk_is_upstreams_formula_answer_by_answer(
    case: tuple[int, list[Measurement]], summation: Summation
) -> None:
    count, measured = case
    scorer = SCORERS[count]
    expected = [exact(upstream(m, count, summation)) for m in measured]
    assert [exact(s) for s in scorer.finish_many(measured, summation)] == expected
    assert [exact(scorer.finish(m, summation)) for m in measured] == expected
    # the averages alone (a run's score under another set, ``pfgen stability``): the same bytes
    averages = [struct.pack("<d", a) for a in scorer.averages(measured, summation)]
    assert averages == [e[-1] for e in expected]
    for score, m in zip(scorer.finish_many(measured, summation), measured, strict=True):
        assert score.missed is m.helpfulness.missed


@PROPERTY
@given(measurements())
def test_resumming_is_finishing_under_the_other_summation(
    case: tuple[int, list[Measurement]],
) -> None:
    count, measured = case
    scorer = SCORERS[count]
    for m in measured:
        compensated = scorer.finish(m, Summation.COMPENSATED)
        again = QuestionScorer.resum(compensated, Summation.SEQUENTIAL)
        assert exact(again) == exact(upstream(m, count, Summation.SEQUENTIAL))
        if count <= 2:
            assert again is compensated  # nothing to re-sum: the averages are the same
    for first, other in itertools.permutations(Summation):
        scores = scorer.finish_many(measured, first)
        again_many = QuestionScorer.resum_many(scores, other)
        assert [exact(s) for s in again_many] == [
            exact(upstream(m, count, other)) for m in measured
        ]
        if count <= 2:
            assert all(map(operator.is_, again_many, scores))


def test_a_measurement_of_other_sets_is_refused() -> None:
    wrong = Measurement((0.5, 0.5), (0.5, 0.5), HelpfulnessResult(1.0, []))
    for finish in (
        lambda: SCORERS[3].finish_many([wrong], Summation.COMPENSATED),
        lambda: SCORERS[3].finish(wrong, Summation.COMPENSATED),
    ):
        with pytest.raises(ValueError):
            finish()


def test_scores_and_measurements_made_in_bulk_are_the_dataclasses_init_makes() -> None:
    """``_answer_score`` / ``_measurement`` skip the frozen ``__init__``: every field is set,
    and the objects equal (and behave as) those the constructor makes."""
    helpful = HelpfulnessResult(0.5, [("a", 0.5)])
    made = _measurement((0.1,), (0.2,), helpful)
    assert made == Measurement((0.1,), (0.2,), helpful)
    assert list(vars(made)) == [f.name for f in dataclasses.fields(Measurement)]
    score = _answer_score({"P": 0.1}, {"P": 0.2}, 0.5, [("a", 0.5)], 0.26667)
    assert score == AnswerScore({"P": 0.1}, {"P": 0.2}, 0.5, [("a", 0.5)], 0.26667)
    assert list(vars(score)) == [f.name for f in dataclasses.fields(AnswerScore)]
    assert score.fluency == 0.1
    with pytest.raises(dataclasses.FrozenInstanceError):
        score.average = 1.0  # type: ignore[misc]
