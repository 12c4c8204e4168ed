"""The report's figures are the library's figures: each page's numbers are compared with
the library call that owns them, on inputs covering every case the mapping distinguishes."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path

import numpy as np

import hyoka.judge
import hyoka.stats
from hyoka.judge import combine
from hyoka.mtbench import PairJudgmentLine, method_counts
from hyoka.mtbench.records import G1_WINNER, G2_WINNER
from hyoka.pfgen import PfgenBenchmark, RunSummary, Summation, score_answers, score_run
from hyoka.report.pairwise_pages import analyse, pairwise_page, read_pairs
from hyoka.report.pfgen_data import compare_runs, score_run_answers
from hyoka.stats import Interval, group_means, outer_means, percentiles
from test_report_fixtures import crafted_runs

LETTERS = ("A", "B", "C", None)
MODELS = ("m1", "m2", "m3")


def _lines() -> list[PairJudgmentLine]:
    """Every pair of MODELS judged once with every combination of the two games' letters."""
    lines: list[PairJudgmentLine] = []
    for (model_1, model_2), (g1, g2) in itertools.product(
        itertools.combinations(MODELS, 2), itertools.product(LETTERS, LETTERS)
    ):
        lines.append(
            PairJudgmentLine(
                question_id=len(lines) + 1, model_1=model_1, model_2=model_2,
                g1_winner=G1_WINNER[g1], g2_winner=G2_WINNER[g2], judge=("gpt-4", "pair-v2"),
                turn=1,
            )
        )  # fmt: skip
    return lines


def test_the_mirror_mapping_has_one_home() -> None:
    assert hyoka.judge.MIRROR is hyoka.stats.MIRROR


def test_fastchat_winners_read_back_as_the_letters_the_judge_wrote() -> None:
    for g1, g2 in itertools.product(LETTERS, LETTERS):
        line = PairJudgmentLine(
            question_id=1, model_1="x", model_2="y", g1_winner=G1_WINNER[g1],
            g2_winner=G2_WINNER[g2], judge=("gpt-4", "pair-v2"), turn=1,
        )  # fmt: skip
        assert line.letters() == (g1, g2)
        assert line.method_verdicts() == combine(g1, g2)


def test_report_pairwise_counts_are_mtbench_library_counts(tmp_path: Path) -> None:
    lines = _lines()
    path = tmp_path / "gpt-4_pair.jsonl"
    path.write_text("".join(json.dumps(line.model_dump(mode="json")) + "\n" for line in lines))
    outcomes = read_pairs(path)
    for method in ("bs1", "bs2"):
        page = analyse(outcomes, method, rounds=20, seed=0)
        library = method_counts(lines, [method])[method]
        for model in MODELS:
            row = [page.matrix.get((model, other), (0, 0, 0)) for other in MODELS]
            wins, ties, losses = (sum(column) for column in zip(*row, strict=True))
            counts = library[model]
            assert (wins, ties, losses) == (counts.wins, counts.ties, counts.losses), method
        assert page.invalid * 2 == sum(c.invalid for c in library.values())
    # of the 16 letter pairs, 7 lack a letter; of the 9 others 3 agree (AB, BA, CC)
    bs2 = analyse(outcomes, "bs2", rounds=20, seed=0)
    assert all(bs2.matrix[x, y] == (1, 7, 1) for x, y in itertools.combinations(MODELS, 2))
    assert bs2.invalid == 3 * 7
    bs1 = analyse(outcomes, "bs1", rounds=20, seed=0)
    assert all(bs1.matrix[x, y] == (1, 1, 1) for x, y in itertools.combinations(MODELS, 2))
    assert bs1.invalid == 3 * 13
    html = pairwise_page("gpt-4_pair", "pairwise/x.html", outcomes, rounds=20, seed=0)
    assert '<b id="robustness">0.333</b> (9 agree, 18 disagree, 21 without' in html


def test_report_run_numbers_are_pfgen_score_numbers(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    """A named run's leaderboard row and run page show what ``hyoka pfgen score`` gives
    it: a stale result.json (of other answers) is rescored, not shown as it stands."""
    a, b = crafted_runs(tmp_path)
    score_run(b, benchmark)
    shutil.copy(b / "result.json", a / "result.json")  # a stale result in run a
    library = score_run(a, benchmark, write=False)
    shown = score_run_answers(a, benchmark, "crafted-a")
    assert shown.result == library.result
    assert shown.summary == RunSummary.from_result(a, library.result, a.parent.parent)
    assert shown.summary.score != json.loads((b / "result.json").read_text())["score"]


def test_report_answers_follow_the_runs_summation(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    """A run summed sequentially keeps its numbers, and its answers are scored that way."""
    a, _ = crafted_runs(tmp_path)
    stored = score_run(a, benchmark, summation=Summation.SEQUENTIAL)
    scored = score_answers(a, benchmark)
    assert scored.outcome.skipped and scored.outcome.result == stored.result
    shown = score_run_answers(a, benchmark, "crafted-a")
    assert shown.result == stored.result
    assert scored.outcome.summation is Summation.SEQUENTIAL
    assert sorted(scored.answers) == list(shown.questions)
    for question_id, answers in scored.answers.items():
        assert [s for _, s in answers] == list(shown.questions[question_id].scores)


def test_report_intervals_are_the_stats_bootstrap(
    tmp_path: Path, benchmark: PfgenBenchmark
) -> None:
    """The run page's interval and the comparison's come from ``hyoka.stats``' two-level
    bootstrap (questions, then answers), the comparison resampling both runs' questions
    with one draw (paired)."""
    a, b = crafted_runs(tmp_path)
    run_a = score_run_answers(a, benchmark, "crafted-a")
    run_b = score_run_answers(b, benchmark, "crafted-b")
    groups_a = [q.values("average") for q in run_a.questions.values()]
    groups_b = [q.values("average") for q in run_b.questions.values()]

    rng = np.random.default_rng(0)
    low, high = percentiles(outer_means(group_means(groups_a, 2000, rng), rng), 0.95)
    assert run_a.exact_interval() == Interval(
        run_a.summary.score, float(low), float(high), 0.95, 2000
    )

    rng = np.random.default_rng(0)
    inner = group_means(groups_a, 2000, rng) - group_means(groups_b, 2000, rng)
    low, high = percentiles(outer_means(inner, rng), 0.95)
    overall = compare_runs(run_a, run_b).overall
    assert (overall.low, overall.high) == (float(low), float(high))
