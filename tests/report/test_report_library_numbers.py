"""The report's figures are the library's figures: each page's numbers are compared with
the library call that owns them, on inputs covering every case the mapping distinguishes."""

from __future__ import annotations

import itertools
import json
import math
import re
import shutil
from dataclasses import dataclass
from fractions import Fraction
from html import unescape
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from _shared import PFGEN_RESULTS, SHARED_DATA
from hyoka.judge import combine, head_to_head, order_agreement, win_share
from hyoka.mtbench import (
    Bench,
    PairJudgmentLine,
    build_leaderboard,
    display_name,
    mean_interval,
    method_counts,
    round_half_up,
)
from hyoka.mtbench.records import G1_WINNER, G2_WINNER
from hyoka.pfgen import (
    PfgenBenchmark,
    RunSummary,
    Summation,
    collect_run_scores,
    read_result,
    score_answers,
    score_interval,
    score_run,
)
from hyoka.report import ReportOptions, build_report
from hyoka.report.pairwise_pages import analyse, pairwise_page, read_pairs
from hyoka.report.pfgen_data import compare_runs, score_run_answers
from hyoka.stats import (
    Battles,
    bradley_terry,
    correlate,
    paired_two_level_intervals,
    two_level_interval,
)
from hyoka.store import read_records
from report_fixtures import (
    JUDGED_MODELS,
    PFMT_JUDGMENTS,
    crafted_runs,
    write_fastchat_pairs,
)

FloatArray = npt.NDArray[np.float64]

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
    """The judge's order logic takes the A/B mirror from ``hyoka.stats`` (no copy)."""
    import hyoka.judge.pairwise

    assert vars(hyoka.judge.pairwise)["MIRROR"] is hyoka.stats.MIRROR


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
    """The run page's interval and the comparison's are ``hyoka.stats``' two-level
    bootstrap (questions, then answers), the comparison's its paired form."""
    a, b = crafted_runs(tmp_path)
    run_a = score_run_answers(a, benchmark, "crafted-a")
    run_b = score_run_answers(b, benchmark, "crafted-b")
    groups_a = [q.values("average") for q in run_a.questions.values()]
    groups_b = [q.values("average") for q in run_b.questions.values()]

    assert run_a.exact_interval() == two_level_interval(groups_a, run_a.summary.score)
    paired = paired_two_level_intervals(groups_a, groups_b)
    comparison = compare_runs(run_a, run_b)
    assert comparison.overall == paired.overall
    assert [(q.low, q.high) for q in comparison.questions] == [
        (i.low, i.high) for i in paired.groups
    ]


# --- every page of a built site against the library call that owns its figures ---------

ROUNDS = 200  # the site's bootstrap rounds for Bradley–Terry (ReportOptions.rounds)
PUBLIC_RUNS = ("01-ai/Yi-1.5-9B/2ff65a8", "Qwen/Qwen-72B-Chat/e66e759")
JUDGED = [(0.52, 4.0), (0.61, 5.5), (0.70, 5.0), (0.77, 7.5)]  # (pfgen score, judge mean)


@dataclass(frozen=True)
class Site:
    out: Path
    runs: tuple[Path, Path]
    public: Path
    judged: Path
    pairs: Path


def _judged_runs(root: Path) -> Path:
    """Four results with ``hyoka pfgen judge`` summaries beside them (for the judge page)."""
    for n, (score, mean) in enumerate(JUDGED):
        run = root / f"model-{n}"
        (run / "judge" / "smollm2").mkdir(parents=True)
        result = {
            "num_trials": 1, "score": score, "score_std": 0.0, "length": 100.0,
            "length_std": 1.0, "config": {"model": f"model-{n}", "mode": "chat"},
            "scores": {"fluency": {"R": score}, "truthfulness": {"R": score}, "helpfulness": score},
            "input_hash": "0" * 40, "metadata_hash": "0" * 40,
            "questions": {f"Q{q:02d}": {"score": score, "score_std": 0.0} for q in range(1, 51)},
        }  # fmt: skip
        (run / "result.json").write_text(json.dumps(result), encoding="utf-8")
        summary = {"judge": "llamacpp/smollm2", "mean": mean, "failures": 0}
        (run / "judge" / "smollm2" / "summary.json").write_text(json.dumps(summary))
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, index_cache_dir: Path) -> Site:
    root = tmp_path_factory.mktemp("inputs")
    runs = crafted_runs(root)
    public = root / "public"
    for run in PUBLIC_RUNS:
        (public / run).mkdir(parents=True)
        shutil.copy(PFGEN_RESULTS / run / "result.json", public / run / "result.json")
    judged = _judged_runs(root / "judged")
    pairs = root / "judge-x_pair.jsonl"
    write_fastchat_pairs(pairs)
    judgments = [PFMT_JUDGMENTS / f"{m}.jsonl" for m in JUDGED_MODELS]
    out = tmp_path_factory.mktemp("site")
    options = ReportOptions(
        data_dir=SHARED_DATA, cache_dir=index_cache_dir, public_dir=public, rounds=ROUNDS
    )
    build_report([*runs, judged, *judgments, pairs], out, options)
    return Site(out, runs, public, judged, pairs)


def _html(site: Site, relative: str) -> str:
    return (site.out / relative).read_text(encoding="utf-8")


def _cells(html: str, table_id: str | None = None) -> list[list[tuple[str | None, str]]]:
    """Each body row of a table as ``(data-sort, shown text)`` per cell; the first table
    when no id is given."""
    start = html.index(f'id="{table_id}"') if table_id else html.index("<table")
    body = html[start:].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    rows = []
    for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body):
        cells = re.findall(r"<td([^>]*)>(.*?)</td>", row)
        rows.append(
            [
                (
                    unescape(m.group(1)) if (m := re.search(r'data-sort="([^"]*)"', a)) else None,
                    unescape(re.sub(r"<[^>]+>", "", text)).strip(),
                )
                for a, text in cells
            ]
        )
    return rows


def _bounds(text: str) -> tuple[float, float]:
    low, high = re.findall(r"[-+]?\d+\.\d+", text)
    return float(low), float(high)


def _answer_groups(run: Path, benchmark: PfgenBenchmark) -> dict[str, FloatArray]:
    """Every answer's average score per question, as ``pfgen.score_answers`` gives them."""
    scored = score_answers(run, benchmark)
    return {
        q: np.array([score.average for _, score in answers])
        for q, answers in sorted(scored.answers.items())
    }


def test_leaderboard_rows_are_pfgen_summaries_and_score_intervals(
    site: Site, benchmark: PfgenBenchmark
) -> None:
    """Every row of the pfgen leaderboard, public, named or a result given, shows its
    ``RunSummary`` and ``pfgen.score_interval`` exactly."""
    results = {
        **{f"{site.public / run}": read_result(site.public / run) for run in PUBLIC_RUNS},
        **{str(run): score_run(run, benchmark, write=False).result for run in site.runs},
        **{str(site.judged / f"model-{n}"): read_result(site.judged / f"model-{n}")
           for n in range(len(JUDGED))},
    }  # fmt: skip
    summaries = {}
    for folder, result in results.items():
        assert result is not None
        summary = RunSummary.from_result(Path(folder), result, Path(folder).parent.parent)
        summaries[summary.model] = (summary, score_interval(result))
    rows = _cells(_html(site, "pfgen/index.html"), "leaderboard")
    assert sorted(row[1][0] or "" for row in rows) == sorted(summaries)
    for row in rows:
        summary, interval = summaries[row[1][0] or ""]
        assert float(row[3][0] or "nan") == summary.score
        assert row[3][1] == f"{summary.score:.4f}"
        if math.isnan(interval.low):
            assert row[4][1] == "[–, –]"
        else:
            assert float(row[4][0] or "nan") == interval.low
            assert _bounds(row[4][1]) == (round(interval.low, 4), round(interval.high, 4))
        assert float(row[5][0] or "nan") == summary.score_sem
        figures = (summary.fluency, summary.truthfulness, summary.helpfulness, summary.length)
        assert tuple(float(c[0] or "nan") for c in row[6:10]) == figures
        assert int(row[10][0] or "0") == summary.num_trials


def test_run_pages_show_score_answers_and_the_two_level_interval(
    site: Site, benchmark: PfgenBenchmark
) -> None:
    """A named run's page: the run's ``pfgen score`` numbers, ``stats.two_level_interval``
    over its answers' scores, and each question's mean of its answers' scores."""
    for run in site.runs:
        result = score_run(run, benchmark, write=False).result
        summary = RunSummary.from_result(run, result, run.parent.parent)
        groups = _answer_groups(run, benchmark)
        interval = two_level_interval(list(groups.values()), summary.score)
        (page,) = (site.out / "pfgen" / "runs").glob(f"{summary.model}_*.html")
        html = page.read_text(encoding="utf-8")
        overview = _cells(html)[0]
        assert overview[0][1] == f"{summary.score:.4f}"
        assert _bounds(overview[1][1]) == (round(interval.low, 4), round(interval.high, 4))
        assert [c[1] for c in overview[2:5]] == [
            f"{v:.3f}" for v in (summary.fluency, summary.truthfulness, summary.helpfulness)
        ]
        questions = {row[0][1]: row for row in _cells(html, "questions")}
        assert sorted(questions) == sorted(groups)
        for question_id, values in groups.items():
            row = questions[question_id]
            assert float(row[2][0] or "nan") == pytest.approx(float(values.mean()), abs=1e-12)
            # result.json keeps 4 decimals, as upstream writes it
            assert float(row[2][0] or "nan") == pytest.approx(
                result["questions"][question_id]["score"], abs=5e-5
            )
            assert float(row[3][0] or "nan") == pytest.approx(float(values.std()), abs=1e-12)
            assert int(row[9][1]) == len(values)


def test_comparison_page_is_the_paired_two_level_bootstrap(
    site: Site, benchmark: PfgenBenchmark
) -> None:
    a, b = (_answer_groups(run, benchmark) for run in site.runs)
    shared = [q for q in a if q in b]
    paired = paired_two_level_intervals([a[q] for q in shared], [b[q] for q in shared])
    html = _html(site, "pfgen/compare.html")
    rows = {row[0][1]: row for row in _cells(html, "differences")}
    assert sorted(rows) == sorted(shared)
    for question_id, interval in zip(shared, paired.groups, strict=True):
        row = rows[question_id]
        assert float(row[2][0] or "nan") == float(a[question_id].mean())
        assert float(row[3][0] or "nan") == float(b[question_id].mean())
        assert float(row[4][0] or "nan") == interval.estimate
        assert float(row[5][0] or "nan") == interval.low
        assert _bounds(row[5][1]) == (round(interval.low, 3), round(interval.high, 3))
    overall = re.search(r'id="overall">.*?<b>([-+\d.]+)</b>.*?\[([-+\d.]+), ([-+\d.]+)\]', html)
    assert overall is not None
    shown = tuple(float(x) for x in overall.groups())
    estimate = paired.overall
    assert shown == tuple(round(v, 4) for v in (estimate.estimate, estimate.low, estimate.high))
    index = _html(site, "index.html")
    assert f"A − B = {estimate.estimate:+.4f}" in index


def test_mtbench_page_is_the_mtbench_leaderboard(site: Site) -> None:
    bench = Bench.load("pfmt-fin", SHARED_DATA)
    board = build_leaderboard(bench, [PFMT_JUDGMENTS / f"{m}.jsonl" for m in JUDGED_MODELS])
    page = site.out / "mtbench" / "pfmt-fin" / "index.html"
    html = page.read_text(encoding="utf-8")
    rows = {row[0][1]: row for row in _cells(html, "pfmt-fin-1-categories")}
    assert sorted(rows) == sorted(display_name(m.model, board.bench) for m in board.models)
    for model in board.models:
        row = rows[display_name(model.model, board.bench)]
        means = model.means()
        expected = [model.overall(), model.overall(1), model.overall(2)]
        expected += [means[c] for c in bench.spec.categories]
        shown = [row[1], *row[3 : 5 + len(bench.spec.categories)]]
        assert [float(c[0] or "nan") for c in shown] == [float(v or "nan") for v in expected]
        assert [c[1] for c in shown] == [str(round_half_up(v)) if v else "–" for v in expected]
        interval = mean_interval(model)  # the leaderboard's, beside the overall mean
        assert interval is not None and float(row[2][0] or "nan") == interval.low
        bounds = (round_half_up(Fraction(interval.low)), round_half_up(Fraction(interval.high)))
        assert row[2][1] == f"[{bounds[0]}, {bounds[1]}]"
        assert int(row[-1][1]) == model.unrated
        zeroed = [line for line in board.lines if line.model == model.model and line.zeroed_by_rule]
        assert int(row[-2][1]) == len(zeroed) > 0


def test_pairwise_page_is_the_judge_and_stats_libraries(site: Site) -> None:
    """Win/tie/loss matrices are ``judge.head_to_head``, robustness is
    ``judge.order_agreement`` and ratings are ``stats.bradley_terry`` over
    ``judge.win_share`` of each verdict, for every method the page shows."""
    lines = [line for _, line in read_records(site.pairs, PairJudgmentLine)]
    html = _html(site, "pairwise/p1.html")
    orders = order_agreement(line.letters() for line in lines)
    assert orders.robustness is not None
    shown = re.search(r'id="robustness">([\d.]+)</b> \((\d+) agree, (\d+) disagree, (\d+) ', html)
    assert shown is not None
    assert shown.groups() == (
        f"{orders.robustness:.3f}",
        str(orders.agree),
        str(orders.disagree),
        str(orders.missing),
    )
    for method in ("bs1", "bs2"):
        verdicts = [(line.model_1, line.model_2, line.method_verdicts()[method]) for line in lines]
        battles = [(x, y, s) for x, y, v in verdicts if (s := win_share(v)) is not None]
        ratings = bradley_terry(Battles.of(battles), rounds=ROUNDS, seed=0).by_model()
        rows = _cells(html, f"bt-{method}")
        assert sorted(row[0][1] for row in rows) == sorted(ratings)
        for row in rows:
            rating = ratings[row[0][1]]
            assert float(row[1][0] or "nan") == rating.rating
            if math.isfinite(rating.low) and math.isfinite(rating.high):
                assert float(row[2][0] or "nan") == rating.low
                assert _bounds(row[2][1]) == (round(rating.low, 1), round(rating.high, 1))
            else:  # bootstrap draws without a finite maximum reach a bound: n/a, no number
                low, high = (
                    f"{x:.1f}" if math.isfinite(x) else "n/a" for x in (rating.low, rating.high)
                )
                assert row[2][1] == f"[{low}, {high}]"
            assert int(row[3][1]) == rating.games
        assert "nan" not in html.split(f'id="bt-{method}"', 1)[1].split("</svg>", 1)[0]
        counts = head_to_head(verdicts)
        section = html.split(f'id="bt-{method}"', 1)[1]
        matrix = _cells(section[section.index('<table class="matrix"') :])
        models = [row[0][1] for row in matrix]
        for row in matrix:
            for other, cell in zip(models, row[1:], strict=True):
                if other == row[0][1]:
                    continue
                record = counts.get((row[0][1], other))
                won, tied, lost = (
                    (0, 0, 0) if record is None else (record.wins, record.ties, record.losses)
                )
                assert cell[1] == f"{won} / {tied} / {lost}", (method, row[0][1], other)


def test_judge_page_is_the_stats_correlation(site: Site) -> None:
    paired = collect_run_scores(site.judged, "llamacpp/smollm2")
    pairs = paired.pairs
    correlation = correlate([p.pfgen for p in pairs], [p.judge for p in pairs], seed=0)
    rows = {row[0][1]: row for row in _cells(_html(site, "pfgen/judge.html"))}
    for name, interval in (("Pearson", correlation.pearson), ("Spearman", correlation.spearman)):
        assert float(rows[name][1][0] or "nan") == interval.estimate
        assert float(rows[name][2][0] or "nan") == interval.low
        assert _bounds(rows[name][2][1]) == (round(interval.low, 3), round(interval.high, 3))
    # the judge that answered (no manifest beside these summaries: the name they give, said so)
    judge = "llamacpp/smollm2 (the name the judgments give; no hyoka manifest records which"
    assert f'<p class="judge">Judge: {judge} model answered)</p>' in _html(site, "pfgen/judge.html")
