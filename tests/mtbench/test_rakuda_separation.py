"""Rakuda's ranking where its likelihood has no maximum, through ``hyoka mtbench
leaderboard --bench rakuda``: a model that never loses gets no rating, and every format
says ``n/a: no finite maximum (<who>)`` (JSON: ``null`` and the reason), never the number
L-BFGS-B stopped at; the report's ranking page shows the same. The home advantage has its
16th/50th/84th percentiles over the same draws as the ratings."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from typer.testing import CliRunner

from _shared import SHARED_DATA, needs
from hyoka.cli.main import app

needs("scipy")

WHY = "no finite maximum (a never loses)"


def _judgments(path: Path, a_loses: bool) -> Path:
    """Matches of a, b and c in both orders; a wins every match but, with ``a_loses``,
    one (b shown first beats it)."""
    verdicts = []
    for _ in range(3):
        verdicts += [("a", "b", 1), ("b", "a", 2), ("a", "c", 1), ("c", "a", 2)]
        verdicts += [("b", "c", 1), ("c", "b", 1), ("b", "c", 3), ("c", "b", 2)]
    if a_loses:
        verdicts.append(("b", "a", 1))
    questions = (SHARED_DATA / "rakuda" / "questions.jsonl").read_text("utf-8").splitlines()
    lines = [  # each match on a question of its own: Rakuda's, as the ranking checks
        {"question_id": json.loads(question)["question_id"], "model1_id": first,
         "model2_id": second, "winner": winner, "judge": ["j", "pair-ja"]}
        for question, (first, second, winner) in zip(questions, verdicts, strict=False)
    ]  # fmt: skip
    assert len(lines) == len(verdicts)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _board(path: Path, fmt: str, rounds: int = 10) -> str:
    args = ["mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(path),
            "--data-dir", str(SHARED_DATA)]  # fmt: skip
    result = CliRunner().invoke(app, [*args, "--rounds", str(rounds), "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_a_model_that_never_loses_is_na_in_every_format(tmp_path: Path) -> None:
    path = _judgments(tmp_path / "j_pair.jsonl", a_loses=False)
    ranking = json.loads(_board(path, "json", 3))
    assert [row["model_id"] for row in ranking["ranking"]] == ["a", "b", "c"]  # by name
    for row in ranking["ranking"]:
        numbers = ("lower", "median", "upper", "one_sigma_plus", "one_sigma_minus", "mle")
        assert all(row[key] is None for key in (*numbers, "median_rounded")), row
        assert row["no_maximum"] == WHY
    assert ranking["separation"][0] == f"ratings n/a: {WHY}"
    table = list(csv.reader(io.StringIO(_board(path, "csv", 3))))
    assert table[0] == ["Rank", "Model", "Median", "-1σ", "+1σ", "MLE"]
    assert table[1:4] == [["n/a", model, *[f"n/a: {WHY}"] * 4] for model in "abc"]
    shown = _board(path, "md", 3)
    assert f"| n/a | a | n/a: {WHY} |" in shown and f"ratings n/a: {WHY}" in shown
    # the report's ranking page shows the file as it is: n/a and why
    saved = tmp_path / "ranking.json"
    saved.write_text(json.dumps(ranking), encoding="utf-8")
    site = CliRunner().invoke(
        app, ["report", str(saved), "--no-public", "-o", str(tmp_path / "site")]
    )
    assert site.exit_code == 0, site.output
    html = (tmp_path / "site" / "pairwise" / "ranking1.html").read_text(encoding="utf-8")
    assert f"n/a: {WHY}" in html and f"ratings n/a: {WHY}." in html


def test_with_a_maximum_the_home_advantage_has_its_band_over_the_same_draws(
    tmp_path: Path,
) -> None:
    """One loss of a (to b, shown first) gives the matches a maximum: every number is
    shown, the advantage with its percentiles, which bracket their median."""
    path = _judgments(tmp_path / "j_pair.jsonl", a_loses=True)
    ranking = json.loads(_board(path, "json"))
    assert all(isinstance(row["median"], float) for row in ranking["ranking"])
    assert ranking["ranking"][0]["model_id"] == "a"
    band = ranking["home_advantage_percentiles"]
    assert band["lower"] <= band["median"] <= band["upper"]
    assert band["lower"] < band["upper"]
    assert "home_advantage_no_maximum" not in ranking
    # draws that leave out a's one loss have no maximum: their count is said
    assert ranking["separation"][0].startswith("intervals n/a where those draws reach a bound")
    shown = _board(path, "md")
    assert ranking["separation"][0] in shown
    line = shown.splitlines()[-1]
    assert line.startswith(
        f"home advantage {ranking['home_advantage']:.1f} (percentiles 16/50/84 of the "
        f"draws: {band['lower']:.1f}, {band['median']:.1f}, {band['upper']:.1f})"
    )
