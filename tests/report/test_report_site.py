"""``hyoka report``: the pages it writes hold the numbers the rest of hyoka computes."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from _shared import PFGEN_RESULTS, SHARED_DATA
from hyoka.cli.report_cmd import explain_command, report_command
from hyoka.errors import InputError
from hyoka.mtbench import Bench, build_leaderboard, round_half_up
from hyoka.report import ReportOptions, build_report
from hyoka.report.pairwise_pages import analyse, read_pairs
from hyoka.stats.bradley_terry import Battles, bradley_terry
from report_fixtures import (
    CRAFTED,
    INVENTED,
    JUDGED_MODELS,
    PFMT_JUDGMENTS,
    crafted_runs,
    write_fastchat_pairs,
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory, index_cache_dir: Path) -> Path:
    root = tmp_path_factory.mktemp("inputs")
    a, b = crafted_runs(root)
    pairs = root / "judge-x_pair.jsonl"
    write_fastchat_pairs(pairs)
    judgments = [PFMT_JUDGMENTS / f"{m}.jsonl" for m in JUDGED_MODELS]
    out = tmp_path_factory.mktemp("site")
    options = ReportOptions(
        data_dir=SHARED_DATA, cache_dir=index_cache_dir, rounds=200, answers=True
    )
    build_report([a, b, *judgments, pairs], out, options)
    return out


def _text(html: str) -> str:
    return unescape(re.sub(r"<[^>]+>", " ", html))


def _rows(html: str, table_id: str) -> list[list[str]]:
    body = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body.split("<tbody>", 1)[1])
    return [[_text(c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", r)] for r in rows]


def test_every_page_links_only_local_assets(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 360  # index pages, two run pages, comparison, 360 question pages
    assert (site / "assets" / "site.css").is_file() and (site / "assets" / "site.js").is_file()
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "http://" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert "https://" not in text
        for link in re.findall(r'(?:href|src)="([^"#]+)', text):
            if link.startswith("data:"):
                continue
            assert (page.parent / link).resolve().is_file(), f"{page}: broken link {link}"


def test_leaderboard_rows_match_the_leaderboard_command(site: Path) -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "hyoka", "pfgen", "leaderboard", str(PFGEN_RESULTS), "-f", "json"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    expected = json.loads(listed)["runs"]
    rows = _rows((site / "pfgen" / "index.html").read_text(encoding="utf-8"), "leaderboard")
    public = [r for r in rows if "(yours)" not in r[1]]
    assert len(public) == len(expected) == 49
    assert len(rows) == 51
    for row, run in zip(public, expected, strict=True):
        assert row[1].split(" †")[0].strip() == run["model"]
        assert row[2] == run["mode"]
        assert row[3] == f"{run['score']:.4f}"
        assert row[6:9] == [f"{run[k]:.3f}" for k in ("fluency", "truthfulness", "helpfulness")]
        assert row[9].startswith(f"{run['length']:.1f}")
        low, high = (float(x) for x in re.findall(r"[\d.]+", row[4]))
        assert low <= run["score"] <= high


def test_run_page_explains_the_crafted_answer(site: Path) -> None:
    pages = sorted((site / "pfgen" / "runs").glob("crafted-a*.html"))
    assert len(pages) == 1
    html = pages[0].read_text(encoding="utf-8")
    weak = re.findall(
        r'<span class="weak[^"]*"[^>]*>([^<]*)</span>',
        html.split('id="Q01"')[1].split("<section")[0],
    )
    assert "".join(weak) == INVENTED
    assert _text(html).count(CRAFTED[:10]) >= 1


def test_two_runs_are_compared_per_question(site: Path) -> None:
    html = (site / "pfgen" / "compare.html").read_text(encoding="utf-8")
    rows = _rows(html, "differences")
    assert sorted(r[0] for r in rows) == ["Q01", "Q02"]
    for row in rows:
        a, b, diff = float(row[2]), float(row[3]), float(row[4])
        assert diff == pytest.approx(a - b, abs=2e-3)


def test_category_table_matches_the_mtbench_leaderboard(site: Path) -> None:
    bench = Bench.load("pfmt-fin", SHARED_DATA)
    board = build_leaderboard(bench, [PFMT_JUDGMENTS / f"{m}.jsonl" for m in JUDGED_MODELS])
    page = site / "mtbench" / "pfmt-fin" / "index.html"
    rows = {r[0]: r for r in _rows(page.read_text(encoding="utf-8"), "pfmt-fin-1-categories")}
    for model in board.models:
        row = rows[model.model.replace("_", "/", 1)]
        overall = model.overall()
        assert overall is not None
        assert row[1] == str(round_half_up(overall))
        assert row[5:17] == [  # after Overall, its 95% CI, Turn 1, Turn 2
            str(round_half_up(m)) if (m := model.means()[c]) is not None else "–"
            for c in bench.spec.categories
        ]
    assert "<svg" in page.read_text(encoding="utf-8")


def test_question_page_names_the_rule_that_zeroed_a_turn(site: Path) -> None:
    lines = [json.loads(x) for x in (PFMT_JUDGMENTS / f"{JUDGED_MODELS[1]}.jsonl").open()]
    zeroed = next(x for x in lines if x["judgment"] == "Incorrect language")
    page = site / "mtbench" / "pfmt-fin" / f"q{zeroed['question_id']:04d}.html"
    text = _text(page.read_text(encoding="utf-8"))
    assert "0 (Incorrect language)" in text


def test_pairwise_matrix_robustness_and_ratings(site: Path, tmp_path: Path) -> None:
    plan = write_fastchat_pairs(tmp_path / "pairs.jsonl")
    outcomes = read_pairs(tmp_path / "pairs.jsonl")
    assert len(outcomes) == len(plan)
    bs2 = analyse(outcomes, "bs2", rounds=0, seed=0)
    assert bs2.matrix["alpha", "beta"] == (2, 2, 0)
    assert bs2.matrix["beta", "alpha"] == (0, 2, 2)
    assert bs2.matrix["beta", "gamma"] == (1, 0, 1)
    assert bs2.matrix["alpha", "gamma"] == (1, 0, 0) and bs2.invalid == 1
    battles = Battles.of(
        [("alpha", "beta", 1.0)] * 2 + [("alpha", "beta", 0.5)] * 2
        + [("beta", "gamma", 1.0), ("beta", "gamma", 0.0), ("alpha", "gamma", 1.0)]
    )  # fmt: skip
    assert bs2.ratings == bradley_terry(battles, rounds=0)
    page = (site / "pairwise" / "p1.html").read_text(encoding="utf-8")
    assert re.search(r'id="robustness">0\.857<', page)  # 6 of 7 items with both letters
    assert "Pairs whose two orders disagreed" in page


def test_cli_report_and_explain(
    tmp_path: Path, index_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    a, _ = crafted_runs(tmp_path / "in")
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("explain")(explain_command)
    runner = CliRunner()
    done = runner.invoke(app, ["report", str(a), "-o", str(tmp_path / "out"), "--no-public"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "out" / "index.html").is_file()
    again = runner.invoke(
        app, ["report", str(a), "-o", str(tmp_path / "out"), "--no-public", "--json"]
    )
    assert again.exit_code == 0, again.output
    site = json.loads(again.stdout)  # what was written, as JSON on stdout
    assert site["index"] == str(tmp_path / "out" / "index.html") and "index.html" in site["files"]
    assert site["bytes"] == sum((tmp_path / "out" / f).stat().st_size for f in site["files"])
    explained = runner.invoke(app, ["explain", str(a), "Q01", "--json"])
    assert explained.exit_code == 0, explained.output
    record = json.loads(explained.output)
    assert [CRAFTED[s:e] for s, e in record["weak_spans"]] == [INVENTED]
    text = runner.invoke(app, ["explain", str(a), "Q01"], env={"COLUMNS": "80"})
    assert text.exit_code == 0 and "rare 3-grams" in text.output
    wrong = runner.invoke(app, ["explain", str(a), "Q01", "--trial", "3"])
    assert wrong.exit_code != 0 and "--trial 3" in wrong.output


def test_nothing_to_report_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    options = ReportOptions(data_dir=SHARED_DATA, public=False)
    with pytest.raises(InputError, match="nothing to report"):
        build_report([tmp_path / "empty"], tmp_path / "out", options)
    with pytest.raises(InputError, match="no such file"):
        build_report([tmp_path / "missing"], tmp_path / "out", options)


def test_prob_ratings_use_the_averaged_probabilities_as_fractional_wins(tmp_path: Path) -> None:
    from hyoka.judge.pairwise import prob_verdict
    from hyoka.judge.records import JudgeSettings, JudgmentRecord
    from hyoka.store import record_line

    means = [
        ("alpha", "beta", {"A": 0.7, "B": 0.2, "C": 0.1}),
        ("alpha", "beta", {"A": 0.4, "B": 0.4, "C": 0.2}),
        ("beta", "gamma", {"A": 0.5, "B": 0.3, "C": 0.0}),  # mass short of 1: normalised
        ("gamma", "alpha", {"A": 0.1, "B": 0.8, "C": 0.1}),
    ]
    records = [
        JudgmentRecord(
            id=f"item-{n}",
            kind="pairwise",
            judge=JudgeSettings(judge="llamacpp/smollm2"),
            template="pair",
            template_version="1",
            models=(x, y),
            verdicts={"prob": prob_verdict(mean), "bs1": "A", "bs2": "A"},
            orders={"xy": {"letter": "A"}, "yx": {"letter": "B"}},
            probabilities={"mean": mean},
        )
        for n, (x, y, mean) in enumerate(means)
    ]
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(record_line(r) for r in records), encoding="utf-8")
    outcomes = read_pairs(path)
    result = analyse(outcomes, "prob", rounds=50, seed=3)
    shares = [(m["A"] + m["C"] / 2) / (m["A"] + m["B"] + m["C"]) for _, _, m in means]
    battles = Battles.of([(x, y, s) for (x, y, _), s in zip(means, shares, strict=True)])
    expected = bradley_terry(battles, rounds=50, seed=3)
    assert result.ratings is not None
    # as JSON: an interval n/a (NaN, draws that leave gamma's two games out) is null
    assert [r.to_json() for r in result.ratings.ratings] == [r.to_json() for r in expected.ratings]
    assert result.ratings.separation_lines() == expected.separation_lines()
    assert result.matrix["alpha", "beta"] == (1, 1, 0)  # verdicts A, then C (0.4 = 0.4: a tie)


def test_question_page_packs_reasoning_and_answers(site: Path) -> None:
    import base64
    import gzip

    html = (site / "mtbench" / "pfmt-fin" / "q0000.html").read_text(encoding="utf-8")
    packed = re.search(r'class="packed" id="payload">([^<]+)<', html)
    assert packed is not None
    payload = json.loads(gzip.decompress(base64.b64decode(packed.group(1))))
    shown = {unescape(v) for v in payload.values()}
    judged = [json.loads(x) for x in (PFMT_JUDGMENTS / f"{JUDGED_MODELS[0]}.jsonl").open()]
    assert {x["judgment"] for x in judged if x["question_id"] == 0} <= shown
    answer_file = PFMT_JUDGMENTS.parent.parent / "model_answer" / f"{JUDGED_MODELS[0]}.jsonl"
    answered = next(json.loads(x) for x in answer_file.open() if json.loads(x)["question_id"] == 0)
    assert set(answered["choices"][0]["turns"]) <= shown
    for target in payload:
        assert f'id="{target}"' in html


def test_judge_scores_against_pfgen_scores(tmp_path: Path) -> None:
    import numpy as np

    scores = [(0.52, 4.0), (0.61, 5.5), (0.70, 5.0), (0.77, 7.5)]
    for n, (score, mean) in enumerate(scores):
        run = tmp_path / "results" / f"model-{n}"
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
    out = tmp_path / "site"
    build_report([tmp_path / "results"], out, ReportOptions(data_dir=SHARED_DATA, public=False))
    html = (out / "pfgen" / "judge.html").read_text(encoding="utf-8")
    found = re.findall(r"<tr><td[^>]*>(\w+)</td><td[^>]*>([-\d.]+)<", html)
    rows = dict(found)
    expected = np.corrcoef([s for s, _ in scores], [m for _, m in scores])[0, 1]
    assert float(rows["Pearson"]) == pytest.approx(expected, abs=5e-4)
    assert html.count("<circle") == len(scores)
    index = (out / "pfgen" / "index.html").read_text(encoding="utf-8")
    assert index.count('class="mine"') == len(scores)


def test_a_malformed_public_result_is_noted_not_fatal(tmp_path: Path) -> None:
    """The public rows are read by the leaderboard's own reader: a result.json whose numbers
    are not numbers is skipped with a note, and the other runs still make the site."""
    public = tmp_path / "public"
    good = public / "01-ai" / "Yi-1.5-9B" / "2ff65a8"
    good.mkdir(parents=True)
    shutil.copy(PFGEN_RESULTS / "01-ai/Yi-1.5-9B/2ff65a8/result.json", good / "result.json")
    bad = public / "org" / "bad" / "abc1234"
    bad.mkdir(parents=True)
    result = json.loads((good / "result.json").read_text(encoding="utf-8"))
    result["scores"]["fluency"] = {"R": "not a number"}
    (bad / "result.json").write_text(json.dumps(result), encoding="utf-8")
    out = tmp_path / "site"
    built = build_report([good], out, ReportOptions(data_dir=SHARED_DATA, public_dir=public))
    assert any(str(bad / "result.json") in note and "skipped" in note for note in built.notes)
    assert "01-ai/Yi-1.5-9B" in (out / "pfgen" / "index.html").read_text(encoding="utf-8")


def test_a_pairwise_record_without_its_two_models_is_one_error_line(tmp_path: Path) -> None:
    """Found by the fuzz test: a hyoka pairwise record whose ``models`` is not the pair it
    compares made the report stop with an IndexError traceback."""
    from hyoka.judge.records import JudgeSettings, JudgmentRecord
    from hyoka.store import record_line

    path = tmp_path / "judgments.jsonl"
    record = JudgmentRecord(
        id="item-0", kind="pairwise", judge=JudgeSettings(judge="llamacpp/smollm2"),
        template="pair", template_version="1", models=("alpha",),
    )  # fmt: skip
    path.write_text(record_line(record), encoding="utf-8")
    with pytest.raises(InputError, match=r"judgments\.jsonl:1: a pairwise judgment names 1 "):
        read_pairs(path)


def test_a_judgment_file_beside_a_result_json_is_still_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder holding a result.json is a pfgen run, and the judgment files beside it are
    read too: copying a result in must not make the MT-bench pages vanish unsaid."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    folder = tmp_path / "jo"
    folder.mkdir()
    shutil.copy(PFMT_JUDGMENTS / f"{JUDGED_MODELS[0]}.jsonl", folder)
    shutil.copy(PFGEN_RESULTS / "01-ai/Yi-1.5-9B/2ff65a8/result.json", folder)
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("explain")(explain_command)
    done = CliRunner().invoke(
        app, ["report", str(folder), "-o", str(tmp_path / "out"), "--no-public", "--json"]
    )
    assert done.exit_code == 0, done.output
    files = json.loads(done.stdout)["files"]
    assert any(f.startswith("mtbench/") and f != "mtbench/index.html" for f in files), files
    assert any(f.startswith("pfgen/") for f in files), files


def test_a_run_named_twice_is_one_run_not_compared_with_itself(
    tmp_path: Path, index_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``RUN`` and ``./RUN/`` are one run: one row, and no comparison of it with itself."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    a, _ = crafted_runs(tmp_path / "in")
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("explain")(explain_command)
    args = ["report", str(a), f"{a}/./", "-o", str(tmp_path / "out"), "--no-public", "--json"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    files = json.loads(done.stdout)["files"]
    assert "pfgen/compare.html" not in files, files
    index = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert index.count(">crafted-a (chat)") == 1, index


def test_a_named_run_whose_answers_changed_since_scoring_is_said(
    tmp_path: Path, index_cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The report rescores a named run from its answers; a result.json beside them that the
    leaderboard skips (answers changed since scoring) is named as skipped, with the reason,
    never shown silently as the run's numbers."""
    from hyoka.pfgen import PfgenBenchmark, score_run

    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(index_cache_dir))
    a, _ = crafted_runs(tmp_path / "in")
    score_run(a, PfgenBenchmark.load(SHARED_DATA, index_cache_dir))
    trials = a / "trials.jsonl"
    trials.write_text(trials.read_text(encoding="utf-8").replace("重要", "大切"), encoding="utf-8")
    app = typer.Typer()
    app.command("report")(report_command)
    app.command("explain")(explain_command)
    args = ["report", str(a), "-o", str(tmp_path / "out"), "--no-public", "--json"]
    done = CliRunner().invoke(app, args)
    assert done.exit_code == 0, done.output
    notes = json.loads(done.stdout)["notes"]
    stale = [n for n in notes if str(a / "result.json") in n]
    assert len(stale) == 1 and "answers changed since scoring" in stale[0], notes
    assert "rescored from its answers" in stale[0]
