"""Ratings of models that never met are not compared: where the models fall into groups
that never played each other, directly or through others, every Bradley–Terry fit
(Rakuda's ranking, raw and style-controlled ratings of grades, the report's pairwise pages)
says ``n/a: not comparable (models {a, b} never met {c, d})`` (JSON: ``null`` with
``not_comparable``), never a rank or a rating placed by where the optimiser left the
groups' offsets; anchored, the anchor's group is rated and the rest is n/a; bootstrap draws
that fall apart are counted and reach the bounds they can move."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.stats.bradley_terry import Battles, bradley_terry
from hyoka.stats.connectivity import linked_groups, pair_links
from hyoka.stats.separation import EITHER, extended_quantiles

APART = "not comparable (models {A, B} never met {C, D})"
RAKUDA_QUESTIONS = SHARED_DATA / "rakuda" / "questions.jsonl"


def _rakuda(path: Path, verdicts: list[tuple[str, str, int]]) -> Path:
    """Judgment lines in upstream's shape, one of Rakuda's questions per match."""
    with RAKUDA_QUESTIONS.open(encoding="utf-8") as lines_in:
        questions = [json.loads(line)["question_id"] for line in lines_in]
    lines = [
        {"question_id": qid, "model1_id": first, "model2_id": second, "winner": winner,
         "judge": ["j", "pair-ja"]}
        for qid, (first, second, winner) in zip(questions, verdicts, strict=False)
    ]  # fmt: skip
    assert len(lines) == len(verdicts)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


#: A and B play only each other, C and D only each other, in both orders, each pair with
#: wins both ways and a tie (every group has its maximum: only the offsets are free)
_TWO_GROUPS = [
    (first, second, winner)
    for x, y in (("A", "B"), ("C", "D"))
    for first, second in ((x, y), (y, x))
    for winner in (1, 2, 3, 1)
]


def _board(path: Path, fmt: str, rounds: int = 20) -> str:
    args = ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(path)]
    result = CliRunner().invoke(app, [*args, "--rounds", str(rounds), "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.usefixtures("hyoka_env")
def test_rakuda_ranks_no_model_against_one_it_never_met(tmp_path: Path) -> None:
    """Two groups that never met: no rank and no rating in any format (upstream's fit
    ranked them 1 to 4 by where L-BFGS-B left the offsets, every MLE at 1000.0); the home
    advantage, which no offset moves, is shown; the report's ranking page says the same."""
    needs("scipy")
    path = _rakuda(tmp_path / "j_pair.jsonl", _TWO_GROUPS)
    ranking = json.loads(_board(path, "json", 5))
    assert [row["model_id"] for row in ranking["ranking"]] == ["A", "B", "C", "D"]  # by name
    numbers = ("lower", "median", "upper", "one_sigma_plus", "one_sigma_minus", "mle")
    for row in ranking["ranking"]:
        assert all(row[key] is None for key in (*numbers, "median_rounded")), row
        assert row["not_comparable"] == APART and "no_maximum" not in row
    # the lines after it are about the advantage's draws
    assert ranking["separation"][0] == f"ratings n/a: {APART}"
    assert not any("comparable" in line for line in ranking["separation"][1:])
    assert math.isfinite(ranking["home_advantage"]) and "home_advantage_no_maximum" not in ranking
    table = list(csv.reader(io.StringIO(_board(path, "csv", 5))))
    assert table[1:5] == [["n/a", model, *[f"n/a: {APART}"] * 4] for model in "ABCD"]
    shown = _board(path, "md", 5)
    assert f"| n/a | D | n/a: {APART} |" in shown and f"ratings n/a: {APART}" in shown
    saved = tmp_path / "ranking.json"
    saved.write_text(json.dumps(ranking), encoding="utf-8")
    site = CliRunner().invoke(
        app, ["report", str(saved), "--no-public", "-o", str(tmp_path / "site")]
    )
    assert site.exit_code == 0, site.output
    html = (tmp_path / "site" / "pairwise" / "ranking1.html").read_text(encoding="utf-8")
    ranks = re.findall(r"<tr><td[^>]*>([^<]*)</td>", html.split('id="ranking"', 1)[1])
    assert ranks == ["n/a"] * 4
    assert html.count(f"n/a: {APART}") >= 4 and f"ratings n/a: {APART}." in html


@pytest.mark.usefixtures("hyoka_env")
def test_rakuda_counts_the_draws_that_leave_out_the_one_match_between_the_groups(
    tmp_path: Path,
) -> None:
    """One tied match of B and C joins the groups: the fit ranks all four, and the draws
    that leave that match out (about e⁻¹ of them) are counted. They reach the 16th and
    84th percentiles (n/a, the line says why); the median leaves them out."""
    needs("scipy")
    path = _rakuda(tmp_path / "j_pair.jsonl", [*_TWO_GROUPS * 2, ("B", "C", 3)])
    ranking = json.loads(_board(path, "json", rounds=40))
    (line,) = ranking["separation"]
    found = re.fullmatch(
        r"intervals n/a where those draws reach a bound: (\d+) of 40 bootstrap draws leave "
        r"models not comparable",
        line,
    )
    assert found is not None, line
    assert 6 < int(found[1]) < 30
    for row in ranking["ranking"]:
        assert isinstance(row["mle"], float) and isinstance(row["median"], float)
        assert row["lower"] is None and row["upper"] is None
        assert row["not_comparable"] == line.split(": ", 1)[1]


@pytest.mark.usefixtures("hyoka_env")
def test_bt_of_grades_on_questions_no_other_group_was_graded_on_is_na(tmp_path: Path) -> None:
    """pfmt-bench-fin-ja's published gpt-4o-mini grades, gpt-4 and claude-2.1 kept on the
    first half of the questions and gpt-35-turbo and claude-3-haiku on the second: a grade
    battle is two models on one turn, so the groups never met. Both Bradley–Terry columns
    are n/a with why, in the table and in JSON (null, ``not_comparable``); γ is shown."""
    pfmt = SHARED_DATA / "pfmt-bench-fin-ja"
    source = pfmt / "model_judgment" / "gpt-4o-mini_single"
    folder = tmp_path / "gpt-4o-mini_single"
    folder.mkdir()
    groups = {"gpt-4": 0, "claude-2.1": 0, "gpt-35-turbo": 1, "claude-3-haiku-20240307": 1}
    for model, half in groups.items():
        rows = [json.loads(line) for line in (source / f"{model}.jsonl").open(encoding="utf-8")]
        kept = [row for row in rows if (row["question_id"] < 180) == (half == 0)]
        (folder / f"{model}.jsonl").write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in kept), encoding="utf-8"
        )
    args = ["mtbench", "leaderboard", "--bench", "pfmt-fin", "--judgments", str(folder)]
    args += ["--answers", str(pfmt / "model_answer"), "--style-control", "--resamples", "5"]
    why = (
        "not comparable (models {claude-2.1, gpt-4} never met "
        "{claude-3-haiku-20240307, gpt-35-turbo})"
    )
    shown = CliRunner().invoke(app, [*args, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.stdout)
    assert len(rows) == 4
    for row in rows:
        found = row["bradley_terry_from_grades"]
        for fit in ("raw", "style_controlled"):
            assert [found[fit][key] for key in ("rating", "low", "high")] == [None] * 3
            assert found[fit]["not_comparable"] == why and "no_maximum" not in found[fit]
        assert found["raw_separation"] == [f"ratings n/a: {why}"]
        assert found["separation"] == [f"style-controlled ratings n/a: {why}"]
        assert math.isfinite(found["style_coefficients"]["length"]["estimate"])
    table = CliRunner().invoke(app, [*args, "--format", "md"])
    assert table.exit_code == 0, table.output
    assert table.output.count(f"| n/a: {why} | n/a: {why} |") == 4


def test_the_report_pairwise_page_rates_no_pair_of_groups_that_never_met(
    tmp_path: Path,
) -> None:
    """Judgment records of A against B and of C against D only: the pairwise page's
    Bradley–Terry table says n/a and why for every model, and the note under it says it."""
    from hyoka.judge.records import JudgeSettings, JudgmentRecord
    from hyoka.store import record_line

    verdicts = [("A", "B", "A"), ("A", "B", "B"), ("A", "B", "C"), ("C", "D", "A")]
    verdicts += [("C", "D", "B"), ("C", "D", "A")]
    records = [
        JudgmentRecord(
            id=f"item-{n}", kind="pairwise", judge=JudgeSettings(judge="llamacpp/smollm2"),
            template="pair", template_version="1", models=(x, y),
            verdicts={"bs2": letter}, orders={"xy": {"letter": letter}},
        )
        for n, (x, y, letter) in enumerate(verdicts)
    ]  # fmt: skip
    path = tmp_path / "judged" / "pairs.jsonl"
    path.parent.mkdir()
    path.write_text("".join(record_line(r) for r in records), encoding="utf-8")
    out = tmp_path / "site"
    shown = CliRunner().invoke(app, ["report", str(path.parent), "--no-public", "-o", str(out)])
    assert shown.exit_code == 0, shown.output
    html = (out / "pairwise" / "p1.html").read_text(encoding="utf-8")
    section = html.split('id="bt-bs2"', 1)[1].split("</table>", 1)[0]
    cells = [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td[^>]*>(.*?)</td>", section)]
    assert cells == [
        cell for model in "ABCD" for cell in (model, f"n/a: {APART}", "n/a", "3")
    ]  # fmt: skip
    assert f"Raw ratings n/a: {APART}." in html


# -- the library ---------------------------------------------------------------------------


def test_an_anchor_rates_its_own_group_and_no_other() -> None:
    """Anchored at A, A and B (who met) are rated as the two of them alone are; C and D,
    who never met them, are n/a with why, listed after; the line names them."""
    pair = [("A", "B", 1.0), ("B", "A", 1.0), ("A", "B", 0.5), ("B", "A", 0.0)] * 4
    games = [*pair, ("C", "D", 1.0), ("D", "C", 1.0), ("C", "D", 0.0)]
    anchored = bradley_terry(Battles.of(games), rounds=50, anchor="A", anchor_rating=1200.0)
    alone = bradley_terry(Battles.of(pair), rounds=0, anchor="A", anchor_rating=1200.0)
    by_model = anchored.by_model()
    assert by_model["B"].rating < 1200.0
    for model in "AB":
        assert by_model[model].rating == pytest.approx(alone.by_model()[model].rating, abs=1e-6)
        assert by_model[model].apart is None
    why = "not comparable (models {C, D} never met {A, B}, A's group)"
    assert [r.model for r in anchored.ratings][2:] == ["C", "D"]
    for model in "CD":
        rating = by_model[model]
        assert math.isnan(rating.rating) and math.isnan(rating.low) and math.isnan(rating.high)
        assert rating.to_json()["not_comparable"] == why and rating.reason == why
    assert anchored.separation_lines() == [f"ratings of C, D n/a: {why}"]
    centred = bradley_terry(Battles.of(games), rounds=0)
    assert all(math.isnan(r.rating) and r.apart == APART for r in centred.ratings)


def test_groups_and_the_quantiles_of_draws_that_leave_a_number_unplaced() -> None:
    """``linked_groups`` labels each model by the lowest it is linked to, per row; an
    ``EITHER`` draw is −∞ below the median, +∞ above it, left out of the median."""
    left, right = np.array([0, 2, 1]), np.array([1, 3, 2])
    games = np.array([[1.0, 2.0, 1.0], [1.0, 2.0, 0.0], [0.0, 0.0, 0.0]])
    assert linked_groups(pair_links(4, left, right, games)).tolist() == [
        [0, 0, 0, 0], [0, 0, 2, 2], [0, 1, 2, 3],
    ]  # fmt: skip
    samples = np.arange(100.0)[:, None]
    runaway = np.zeros((100, 1))
    runaway[99] = EITHER  # the largest draw, unplaced: −∞ for the lower bound
    low, mid, high = extended_quantiles(samples, runaway, [0.05, 0.5, 0.95])[:, 0]
    assert (low, mid, high) == pytest.approx((3.95, 49.0, 94.05))
    runaway[99], runaway[0] = 0.0, EITHER  # the smallest, unplaced: +∞ for the upper bound
    low, mid, high = extended_quantiles(samples, runaway, [0.05, 0.5, 0.95])[:, 0]
    assert (low, mid, high) == pytest.approx((4.95, 50.0, 95.05))
    runaway[:10] = EITHER  # a tenth of the draws: beyond the 5% bounds, both n/a
    low, mid, high = extended_quantiles(samples, runaway, [0.05, 0.5, 0.95])[:, 0]
    assert math.isnan(low) and mid == pytest.approx(54.5) and math.isnan(high)
