"""The explanation of a pfgen score agrees with the score and points at the right characters."""

from __future__ import annotations

import time

import pytest

from _shared import SHARED_DATA
from hyoka.pfgen._pysum import float_sum
from hyoka.pfgen.benchmark import PfgenBenchmark
from hyoka.pfgen.explanation import DISCOUNT_START, explain, explain_many, reference_answers

#: A common opening of Q01's reference answers, then words no reference holds.
COMMON = "時計の長針と短針が1日に重なる回数は、22回です。"
INVENTED = "ゑゐゑゐ火星"


def test_explanation_numbers_equal_the_scorers(benchmark: PfgenBenchmark) -> None:
    answers = [
        COMMON + "これは長針が1時間に1周するのに対し、短針は12時間で1周するためです。",
        "わかりません。",
        "重なる回数は24回です。" * 12,  # long: discounted
        "",
    ]
    for answer in answers:
        explained = explain(benchmark, "Q01", answer)
        score = benchmark.score("Q01", answer)
        assert explained.score == score
        count = len(explained.sets)
        fluency = float_sum(round(s.fluency / count, 6) for s in explained.sets)
        truth = float_sum(round(s.truthfulness / count, 6) for s in explained.sets)
        assert fluency == pytest.approx(score.fluency, abs=1e-12)
        assert truth == pytest.approx(score.truthfulness, abs=1e-12)
        assert len(explained.weak) == len(answer)


def test_invented_words_are_the_highlighted_characters(benchmark: PfgenBenchmark) -> None:
    answer = COMMON + INVENTED + COMMON
    explained = explain(benchmark, "Q01", answer)
    start = len(COMMON)
    assert explained.weak_spans() == [(start, start + len(INVENTED))]
    assert [answer[a:b] for a, b in explained.weak_spans()] == [INVENTED]
    assert 0 < explained.weak_share < 0.5


def test_rules_met_and_missed_follow_the_scorer(benchmark: PfgenBenchmark) -> None:
    answer = "時計の長針と短針は1日に24回重なります。"
    explained = explain(benchmark, "Q01", answer)
    outcomes = {r.name: r for r in explained.rules}
    assert outcomes["22回"].met is False and outcomes["22回"].end is None
    assert outcomes["長針"].met and outcomes["長針"].end == answer.index("長針") + 2
    missed = {name for name, _ in benchmark.score("Q01", answer).missed}
    assert {r.name for r in explained.rules if not r.met} == missed
    assert explained.over_length is None


def test_length_discount_and_fluency_peak(benchmark: PfgenBenchmark) -> None:
    # the last rule is met only past 100 characters: Helpfulness pays the length discount
    long_answer = "時計の長針と短針が重なる回数について、" * 6 + "22回です。"
    explained = explain(benchmark, "Q01", long_answer)
    assert explained.discount_start == DISCOUNT_START
    late = long_answer.index("22回") + 3
    assert explained.over_length == f"{late - 100}字超過"
    assert explained.over_length in {n for n, _ in benchmark.score("Q01", long_answer).missed}
    explained = explain(benchmark, "Q01", COMMON * 8)
    for s in explained.sets:
        assert 0 < s.best_prefix <= 150
    assert explained.frequent_share > 0.5


def test_nearest_references_are_reference_answers(benchmark: PfgenBenchmark) -> None:
    references = reference_answers(benchmark, "Q01")
    pool = {text for texts in references.values() for text in texts}
    nearest = explain(benchmark, "Q01", sorted(pool)[0]).nearest
    assert nearest[0].text == sorted(pool)[0] and nearest[0].similarity == 1.0
    assert all(n.text in pool for n in nearest)
    assert [n.similarity for n in nearest] == sorted((n.similarity for n in nearest), reverse=True)


def test_explain_is_fast_with_a_warm_index(benchmark: PfgenBenchmark) -> None:
    explain(benchmark, "Q07", "warm")
    started = time.perf_counter()
    explain(benchmark, "Q07", COMMON)
    # generous bound for a shared machine; benchmarks/report_speed.py reports the figure
    assert time.perf_counter() - started < 5.0
    assert SHARED_DATA.is_dir()


def test_many_answers_at_once_explain_as_each_alone(benchmark: PfgenBenchmark) -> None:
    answers = [COMMON + INVENTED, "わかりません。", COMMON * 9, "", COMMON]
    together = explain_many(benchmark, "Q01", answers)
    assert together == [explain(benchmark, "Q01", a) for a in answers]
