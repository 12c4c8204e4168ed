"""``hyoka report`` over every judged benchmark (issue 19): a page per benchmark and
variant, told by what hyoka wrote beside a judgment file (its manifest) or, for upstream's
published files, by the questions the lines judge; each page shows the variant, the
signature and the numbers of the library call that owns them.

Inputs, all real and small: two models of Stability's published JMT-bench judgments (the
two keep the pages small; the whole file works too, its four repeated turns counted as
FastChat counts them), one published ja-vicuna-qa pair file, and ELYZA-tasks-100,
JMT-bench (variant llm-jp) and Rakuda judged through ``hyoka mtbench judge`` by a
scripted judge, with Rakuda's ranking from ``hyoka mtbench leaderboard``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from fractions import Fraction
from html import escape, unescape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, elyza_data
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.judge import judged_by
from hyoka.mtbench import (
    Bench,
    IntervalSettings,
    build_leaderboard,
    display_name,
    mean_interval,
    ranking_signature,
    round_half_up,
    table_separability,
)
from hyoka.report import ReportOptions, build_report
from hyoka.report.mtbench_pages import BenchFinder
from hyoka.report.pairwise_pages import read_pairs
from hyoka.signature import Signature
from hyoka.store import read_manifest
from test_report_library_numbers import _cells

PUBLISHED_JMT = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"
JMT_MODELS = ("japanese-stablelm-instruct-alpha-7b", "jslma-7b-ja-orca-6k-3ep")
JMT_ANSWERS = SHARED_DATA / "jmt-bench" / "model_answer"
VICUNA_PAIRS = next((SHARED_DATA / "ja-vicuna-qa" / "model_judgment").rglob("*calm2*.jsonl"))
RAKUDA_MODELS = ("claude-2", "rinna-3.6b-sft")
ROUNDS = 20


@dataclass(frozen=True)
class Inputs:
    data: Path
    out: Path
    jmt_published: Path
    jmt_llm_jp: Path
    elyza: Path
    rakuda_ranking: Path


def _judge(args: list[str]) -> None:
    result = CliRunner().invoke(app, ["mtbench", "judge", *args])
    assert result.exit_code == 0, result.output


def _script(path: Path, rules: list[dict[str, str]]) -> str:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rules))
    return f"scripted/{path}"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    root = tmp_path_factory.mktemp("benchmarks")
    data = elyza_data(root / "data")  # ELYZA with the stand-in prompt, beside the rest
    for name in ("jmt-bench", "ja-vicuna-qa", "rakuda", "mt-bench", "pfmt-bench-fin-ja"):
        (data / name).symlink_to(SHARED_DATA / name)
    published = root / "stability" / "model_judgment" / "gpt-4_single.jsonl"
    published.parent.mkdir(parents=True)
    lines = PUBLISHED_JMT.read_text(encoding="utf-8").splitlines()
    kept = [ln for ln in lines if json.loads(ln)["model"] in JMT_MODELS]
    published.write_text("\n".join(kept) + "\n", encoding="utf-8")
    answers = published.parent.parent / "model_answer"  # FastChat's layout beside it
    answers.mkdir()
    for model in JMT_MODELS:
        (answers / f"{model}.jsonl").symlink_to(JMT_ANSWERS / f"{model}.jsonl")

    with pytest.MonkeyPatch.context() as env:
        env.setenv("HYOKA_DATA_DIR", str(data))
        env.setenv("HYOKA_CACHE_DIR", str(root / "cache"))
        elyza = Bench.load("elyza-tasks-100", data)
        answers = root / "tiny.jsonl"
        records = [
            {"question_id": q.question_id, "model_id": "tiny", "choices": [{"turns": ["答え"]}]}
            for q in elyza.questions[:3]
        ]
        answers.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        rules = [{"contains": elyza.questions[0].turns[0], "reply": "5"}, {"reply": "3"}]
        judge = _script(root / "elyza-judge.jsonl", rules)
        _judge(["--bench", "elyza-tasks-100", "-j", judge, "--judge-name", "scripted",
                "-a", str(answers), "--limit", "3",
                "--output-dir", str(root / "elyza" / "scripted_single")])  # fmt: skip

        jmt = Bench.load("jmt-bench", data, "llm-jp")
        two_turns = root / "jmt-answers" / "tiny.jsonl"  # JMT names a model by its file
        two_turns.parent.mkdir()
        records = [
            {"question_id": q.question_id, "model_id": "tiny",
             "choices": [{"turns": ["一つ目の答え", "二つ目の答え"]}]}
            for q in jmt.questions
        ]  # fmt: skip
        two_turns.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        rules = [{"contains": "二つ目の答え", "reply": "評価: [[4]]"}, {"reply": "評価: [[8]]"}]
        judge = _script(root / "jmt-judge.jsonl", rules)
        _judge(["--bench", "jmt-bench", "--variant", "llm-jp", "-j", judge,
                "--judge-name", "scripted", "-a", str(two_turns), "--limit", "2",
                "--output-dir", str(root / "jmt" / "scripted_single")])  # fmt: skip

        judge = _script(root / "rakuda-judge.jsonl", [{"reply": "1"}])
        rakuda = root / "rakuda"
        args = ["--bench", "rakuda", "--mode", "pairwise", "--matches", "6", "-j", judge]
        args += ["--judge-name", "gpt-4", "--output-dir", str(rakuda)]
        for model in RAKUDA_MODELS:
            args += ["-a", str(SHARED_DATA / "rakuda" / "answers" / f"{model}.jsonl")]
        _judge(args)
        board = CliRunner().invoke(
            app,
            ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(rakuda),
             "--format", "json", "--rounds", str(ROUNDS)],
        )  # fmt: skip
        assert board.exit_code == 0, board.output
        ranking = root / "rakuda-ranking.json"
        ranking.write_text(board.stdout, encoding="utf-8")

    out = root / "site"
    options = ReportOptions(data_dir=data, public=False, rounds=50, answers=True)
    paths = [published.parent, root / "elyza", root / "jmt", VICUNA_PAIRS, rakuda, ranking]
    build_report(paths, out, options)
    return Inputs(
        data, out, published, root / "jmt" / "scripted_single" / "tiny.jsonl",
        root / "elyza" / "scripted_single" / "tiny.jsonl", ranking,
    )  # fmt: skip


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def _page(site: Inputs, relative: str) -> str:
    return (site.out / relative).read_text(encoding="utf-8")


def _assert_board(html: str, table_id: str, bench: Bench, files: list[Path]) -> None:
    """The table is ``build_leaderboard``'s, the signature its signature's line."""
    board = build_leaderboard(bench, files)
    rows = {row[0][1].split(" (incomplete")[0]: row for row in _cells(html, table_id)}
    assert sorted(rows) == sorted(display_name(m.model, board.bench) for m in board.models)
    turns = list(bench.turns) if len(bench.turns) > 1 else []
    for model in board.models:
        means = model.means()
        expected = [model.overall(), *(model.overall(t) for t in turns)]
        expected += [means[c] for c in bench.spec.categories]
        row = rows[display_name(model.model, board.bench)]
        shown = [row[1], *row[3 : 2 + len(expected)]]  # row[2]: the interval, beside Avg.
        assert [c[1] for c in shown] == [str(round_half_up(v)) if v else "–" for v in expected]
        interval = mean_interval(model)  # the leaderboard's
        assert interval is not None
        bounds = (round_half_up(Fraction(interval.low)), round_half_up(Fraction(interval.high)))
        assert row[2][1] == f"[{bounds[0]}, {bounds[1]}]"
        assert int(row[-1][1]) == model.unrated
    assert board.signature is not None
    # the signature names how the intervals (and the separability under them) were drawn,
    # and the rule its cells and "Overall" were computed by
    signed = (
        board.signature.with_field("interval", IntervalSettings().signed)
        .with_field("headline", board.headline.name)
        .line
    )
    assert f'<code class="signature">{signed}</code>' in html.replace("&#x27;", "'")
    # under the table, its separability where two complete rows make a pair
    section = html.split(f'id="{table_id}"')[1].split("</section>")[0]
    separated = table_separability(board)
    lines = [f"<p>{separated.line}</p>"] if separated else []
    assert re.findall(r"<p>separability:[^<]*</p>", section) == lines


def test_published_jmt_file_gets_its_variants_page_told_by_its_questions(site: Inputs) -> None:
    html = _page(site, "mtbench/jmt-bench.stability@aed16da/index.html")
    text = _text(html)
    assert 'id="variant">stability@aed16da<' in html
    # no manifest: told by the judged questions, the variant by the judged prompts (the
    # other 2023 snapshot has the same questions, not the same prompts)
    assert "matched by its judged questions" in text
    assert "its variant read from its judged prompts" in text and "aedb44e" not in text
    bench = Bench.load("jmt-bench", site.data, "stability@aed16da")
    _assert_board(html, "jmt-bench.stability@aed16da-1-categories", bench, [site.jmt_published])
    assert "Turn 2" not in text  # Stability's variant judges turn 1 only
    assert "<svg" in html
    # no manifest says which model answered: the judge is the name the lines give
    assert "Judge: gpt-4 (the name the judgments give; no hyoka manifest" in text
    # the answers beside upstream's one-file layout are on the question pages
    question = _page(site, "mtbench/jmt-bench.stability@aed16da/q0001.html")
    assert all(f"<b>{model}</b>" in question for model in JMT_MODELS)


def test_jmt_file_judged_by_hyoka_is_on_its_variants_page(site: Inputs) -> None:
    html = _page(site, "mtbench/jmt-bench.llm-jp/index.html")
    assert 'id="variant">llm-jp<' in html
    assert "named by the hyoka manifest beside it" in _text(html)
    bench = Bench.load("jmt-bench", site.data, "llm-jp")
    # the variant's judge is upstream's; these grades are a script's, and said so
    assert bench.variant is not None
    settings = {row[0][1]: row[1][1] for row in _cells(html, "variant-settings")}
    assert settings["upstream's judge"] == bench.variant.judge and "judge" not in settings
    judge = judged_by(site.jmt_llm_jp)
    assert judge.dry_run and f"Judge: {judge.shown}" in _text(html)
    assert "<h2>scripted_single (dry run)</h2>" in html
    _assert_board(html, "jmt-bench.llm-jp-1-categories", bench, [site.jmt_llm_jp])
    manifest = read_manifest(site.jmt_llm_jp)
    assert manifest is not None
    stored = Signature.from_json(manifest.signature)
    assert stored is not None and "llm-jp.v1" in stored.line
    # the variants are never ranked together: each has its own page
    assert "jslma" not in html
    question = _page(site, f"mtbench/jmt-bench.llm-jp/q{bench.questions[0].question_id:04d}.html")
    assert ">Turn 1<" in question and ">Turn 2<" in question
    scores = [c[1] for c in _cells(question, "judgments")[0][2:4]]
    assert scores == ["8", "4"]


def test_judged_numbers_name_the_judge_that_answered(site: Inputs) -> None:
    """Every list and table of judged numbers names the judge that answered (its file's
    manifest), not the folder the grades lie in nor ``--judge-name``'s label; a file with no
    manifest, the name its lines give, said as only that."""
    scripted = judged_by(site.jmt_llm_jp)
    assert scripted.dry_run and scripted.judge.startswith("scripted/")
    named = f"{scripted.judge} (dry run)"
    bench = Bench.load("jmt-bench", site.data, "llm-jp")
    question = _page(site, f"mtbench/jmt-bench.llm-jp/q{bench.questions[0].question_id:04d}.html")
    assert [row[1] for row in _cells(question, "judgments")] == [(named, named)]
    assert f'title="{escape(scripted.shown, quote=True)}; files: scripted_single' in question
    published = _page(site, "mtbench/jmt-bench.stability@aed16da/q0001.html")
    assert {row[1] for row in _cells(published, "judgments")} == {("gpt-4", "gpt-4")}
    index = _text(_page(site, "mtbench/index.html"))
    assert f"scripted_single (1 models · best: tiny; judged by {named})" in index
    assert "gpt-4_single (2 models · best: jslma-7b-ja-orca-6k-3ep; judged by gpt-4)" in index
    assert f"1 models, 4 turns judged by {named}" in _text(_page(site, "index.html"))


def test_elyza_page_is_the_elyza_leaderboard(site: Inputs) -> None:
    html = _page(site, "mtbench/elyza-tasks-100.lightblue-2024/index.html")
    assert 'id="variant">lightblue-2024<' in html  # its default variant, named
    bench = Bench.load("elyza-tasks-100", site.data)
    _assert_board(html, "elyza-tasks-100.lightblue-2024-1-categories", bench, [site.elyza])
    assert "elyza-v1" in html  # its rating rule is in the signature shown


def test_index_lists_each_benchmark_and_variant_apart(site: Inputs) -> None:
    index = _text(_page(site, "mtbench/index.html"))
    for title in (
        "Japanese MT-bench (stability@aed16da)",
        "Japanese MT-bench (llm-jp)",
        "ELYZA-tasks-100",
    ):
        assert title in index


def test_pair_files_are_named_with_their_benchmark(site: Inputs) -> None:
    index = _text(_page(site, "pairwise/index.html"))
    assert f"Japanese Vicuna QA: {VICUNA_PAIRS.name} (80 items)" in index
    # judged by a script named gpt-4 (--judge-name is a label): the pages say what answered
    assert "Rakuda: gpt-4_pair.jsonl (dry run) (6 items)" in index
    pages = {_text(p.read_text(encoding="utf-8")).split(" hyoka report")[0].strip(): p
             for p in (site.out / "pairwise").glob("p*.html")}  # fmt: skip
    rakuda = next(p for t, p in pages.items() if t.startswith("Pairwise: Rakuda"))
    html = rakuda.read_text(encoding="utf-8")
    outcomes = read_pairs(next((site.out.parent / "rakuda").glob("*.jsonl")))
    assert len(outcomes) == 6 and all(o.verdicts == {"one-order": "A"} for o in outcomes)
    assert 'id="bt-one-order"' in html and "judged once, in one order" in html
    judge = judged_by(next((site.out.parent / "rakuda").glob("*.jsonl")))
    assert judge.dry_run and judge.judge.endswith("rakuda-judge.jsonl")
    assert f'<p id="judge">Judge: {escape(judge.shown, quote=True)}</p>' in html
    vicuna = next(p for t, p in pages.items() if t.startswith("Pairwise: Japanese Vicuna QA"))
    assert "Judge: gpt-4 (the name the judgments give; no hyoka manifest" in _text(
        vicuna.read_text(encoding="utf-8")
    )


def test_rakuda_ranking_shows_its_intervals_and_signature(site: Inputs) -> None:
    recorded = json.loads(site.rakuda_ranking.read_text(encoding="utf-8"))
    html = _page(site, "pairwise/ranking1.html")
    rows = _cells(html, "ranking")
    assert [r[1][1] for r in rows] == [m["model_id"] for m in recorded["ranking"]]
    for row, model in zip(rows, recorded["ranking"], strict=True):
        if model["median"] is None:  # the answer shown first wins every match: α runs off
            reason = f"n/a: {model['no_maximum']}"
            assert row[2][1] == reason and row[3][1] == f"[{reason}, {reason}]"
        else:
            assert float(row[2][0] or "nan") == model["median"]
            assert row[3][1] == f"[{model['lower']:.1f}, {model['upper']:.1f}]"
    judge = judged_by(next((site.out.parent / "rakuda").glob("*.jsonl")))
    assert recorded["signature"]["fields"]["judge"] == judge.token  # the script that answered
    assert ranking_signature(ROUNDS, 0, judge.token).line in html


def test_a_file_two_benchmarks_fit_alike_is_an_error_naming_both(tmp_path: Path) -> None:
    """pfmt-bench-fin-ja, Japanese MT-bench and Japanese Vicuna QA all have a question 1:
    lines without the judged prompt cannot say which, and the report says so rather than
    guessing. The data folder holds those three alone, so the benchmarks that fit are the
    test's, whatever else the shared data holds (ELYZA-tasks-100 numbers its tasks from 0,
    so with its prompt file it fits question 1 too)."""
    data = tmp_path / "data"
    data.mkdir()
    for name in ("pfmt-bench-fin-ja", "jmt-bench", "ja-vicuna-qa"):
        (data / name).symlink_to(SHARED_DATA / name)
    path = tmp_path / "x_single.jsonl"
    line = {"question_id": 1, "model": "m", "judge": ["j", "single"], "judgment": "[[5]]",
            "score": 5, "turn": 1}  # fmt: skip
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(
        InputError, match=r"fit pfmt-bench-fin-ja, Japanese MT-bench, Japanese Vicuna QA alike"
    ):
        BenchFinder(data).identify(path)


def test_answers_are_found_only_under_model_answer_whatever_a_line_names(tmp_path: Path) -> None:
    """The model a judgment line names is data: ``../outside`` once read
    ``<bench>/outside.jsonl`` beside ``model_answer/``; the answers of a plain name beside it
    are found as before."""
    from hyoka.report.mtbench_pages import find_answers, load_judge_set

    bench = Bench.load("mt-bench", SHARED_DATA)
    folder = tmp_path / "mt_bench"
    (folder / "model_judgment").mkdir(parents=True)
    (folder / "model_answer").mkdir()
    judged = folder / "model_judgment" / "gpt-4_single.jsonl"
    lines = [
        {"question_id": 81, "model": model, "judge": ["gpt-4", "single-v1"], "user_prompt": "",
         "judgment": "[[5]]", "score": 5, "turn": 1}
        for model in ("../outside", "inside")
    ]  # fmt: skip
    judged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    answer = {"question_id": 81, "model_id": "m", "choices": [{"turns": ["答え", "二"]}]}
    for target in (folder / "outside.jsonl", folder / "model_answer" / "inside.jsonl"):
        target.write_text(json.dumps(answer, ensure_ascii=False) + "\n", encoding="utf-8")
    judge_set = load_judge_set("mt-bench-1", "gpt-4", [judged], bench)
    assert find_answers(bench, [judge_set]) == {"inside": {81: ("答え", "二")}}


def test_judge_single_and_pairwise_files_get_pages_as_the_benchmarks_do(tmp_path: Path) -> None:
    """A file ``hyoka judge single`` wrote is a single-grading page (it was skipped, and a
    site of it alone said no judgment file was found): each model's mean, graded count and
    failures as ``judge.summarise`` gives them (the numbers the command prints), the
    signature its manifest records, and every item's grade; a ``hyoka judge pairwise`` file
    beside it gets its pairwise page. The scripted judge grades a's answers 8 and 6, b's 3
    and none (the item then scores -1, a failure)."""
    from hyoka.judge import JudgmentRecord, summarise
    from hyoka.store import read_records

    items = tmp_path / "items.jsonl"
    answers = {"q1": ("a", "答えA1"), "q2": ("a", "答えA2"), "q3": ("b", "答えB1"),
               "q4": ("b", "答えB2")}  # fmt: skip
    items.write_text("".join(
        json.dumps({"id": i, "question": "富士山の高さは?", "answer": text,
                    "reference": "3,776 m", "model": model}, ensure_ascii=False) + "\n"
        for i, (model, text) in answers.items()
    ), encoding="utf-8")  # fmt: skip
    grades = {"答えA1": "[[8]]", "答えA2": "[[6]]", "答えB1": "[[3]]", "答えB2": "わかりません"}
    grader = _script(tmp_path / "grader.jsonl", [
        {"contains": f"[The Start of Assistant's Answer]\n{text}", "reply": reply}
        for text, reply in grades.items()
    ])  # fmt: skip
    judged = tmp_path / "judged"
    graded = judged / "items.judged.jsonl"
    single = CliRunner().invoke(app, [
        "judge", "single", str(items), "-j", grader, "--max-attempts", "1", "--no-cache",
        "--output", str(graded),
    ])  # fmt: skip
    assert single.exit_code == 0, single.output
    pair_files = []
    for side in ("x", "y"):
        path = tmp_path / f"{side}.jsonl"
        line = {"id": "q1", "question": "富士山の高さは?", "answer": f"{side}です。",
                "reference": "3,776 m"}  # fmt: skip
        path.write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
        pair_files.append(str(path))
    pairs = judged / "x_vs_y.jsonl"
    pair_judge = _script(tmp_path / "pj.jsonl", [{"reply": "[[A]]"}])
    pairwise = CliRunner().invoke(app, [
        "judge", "pairwise", *pair_files, "-j", pair_judge, "--method", "bs2", "--no-cache",
        "--output", str(pairs),
    ])  # fmt: skip
    assert pairwise.exit_code == 0, pairwise.output

    out = tmp_path / "site"
    shown = CliRunner().invoke(app, ["report", str(judged), "--no-public", "-o", str(out)])
    assert shown.exit_code == 0, shown.output
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "Skipped" not in index and "items.judged.jsonl" in index
    assert "items.judged.jsonl" in (out / "mtbench" / "index.html").read_text(encoding="utf-8")
    (page_path,) = (out / "mtbench").glob("graded*.html")
    html = page_path.read_text(encoding="utf-8")
    records = [r for _, r in read_records(graded, JudgmentRecord)]
    rows = {row[0][1]: row for row in _cells(html, "grades")}
    assert sorted(rows) == ["a", "all", "b"]
    for name in ("a", "b", "all"):
        summary = summarise(r for r in records if name in (*r.models, "all"))
        assert summary.mean is not None
        assert rows[name][1] == (repr(summary.mean), f"{summary.mean:.3f}")
        assert [cell[1] for cell in rows[name][2:4]] == [str(summary.n), str(summary.failures)]
    assert [rows[n][1][1] for n in ("a", "b", "all")] == ["7.000", "3.000", "5.667"]  # 17/3
    manifest = read_manifest(graded)
    assert manifest is not None and manifest.signature is not None
    assert f'<code class="signature">{manifest.signature["line"]}</code>' in unescape(html)
    items_shown = {row[0][1]: [c[1] for c in row[1:3]] for row in _cells(html, "items")}
    assert items_shown == {"q1": ["a", "8"], "q2": ["a", "6"], "q3": ["b", "3"],
                           "q4": ["b", "no rating"]}  # fmt: skip
    listed = (out / "pairwise" / "index.html").read_text(encoding="utf-8")
    assert "x_vs_y.jsonl" in listed
    alone = CliRunner().invoke(app, ["report", str(graded), "--no-public", "-o", str(out)])
    assert alone.exit_code == 0, alone.output  # was: nothing to report, no judgment file
