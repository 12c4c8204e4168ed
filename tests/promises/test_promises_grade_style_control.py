"""Bradley–Terry from single grades, raw and style-controlled, where people look:
``hyoka mtbench leaderboard --answers … --style-control`` on pfmt-bench-fin-ja's published
gpt-4o-mini grades gives the library's ratings of battles built here from the raw json
lines (the higher grade wins each pair on a judged turn, equal grades tie), with the
bootstrap drawing whole questions: a question's battles listed twice leave the grouped
intervals as they were, while drawing battles one by one narrows them."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.errors import InputError
from hyoka.stats import StyleCounts, StyledBattle, rate_with_style

PFMT = SHARED_DATA / "pfmt-bench-fin-ja"
JUDGMENTS = PFMT / "model_judgment" / "gpt-4o-mini_single"
ANSWERS = PFMT / "model_answer"
ROUNDS = 30


def _battles_from_the_files() -> list[StyledBattle]:
    """Every judged turn's grades, read from the json lines here; each pair of models on
    a turn one battle, the question its group; styles of the judged turns' answers."""
    grades: dict[tuple[int, int], dict[str, float]] = {}
    for path in sorted(JUDGMENTS.glob("*.jsonl")):
        for text in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(text)
            grades.setdefault((row["question_id"], row["turn"]), {})[row["model"]] = row["score"]
    styles = {}
    for path in ANSWERS.glob("*.jsonl"):
        for text in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(text)
            for turn, answer in enumerate(row["choices"][0]["turns"], start=1):
                styles[(path.stem, row["question_id"], turn)] = StyleCounts.of(answer)
    battles = []
    for (question, turn), by_model in sorted(grades.items()):
        for a, b in combinations(sorted(by_model), 2):
            share = 0.5 if by_model[a] == by_model[b] else float(by_model[a] > by_model[b])
            style_a, style_b = styles[(a, question, turn)], styles[(b, question, turn)]
            battles.append(StyledBattle(a, b, share, style_a, style_b, group=str(question)))
    return battles


@pytest.mark.usefixtures("hyoka_env")
def test_leaderboard_shows_raw_and_style_controlled_bt_of_the_single_grades() -> None:
    args = ["mtbench", "leaderboard", "--bench", "pfmt-fin", "--judgments", str(JUDGMENTS)]
    args += ["--answers", str(ANSWERS), "--style-control", "--resamples", str(ROUNDS)]
    shown = CliRunner().invoke(app, [*args, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    rows = json.loads(shown.stdout)
    expected = rate_with_style(_battles_from_the_files(), rounds=ROUNDS, seed=0)
    raw, controlled = expected.raw.by_model(), expected.controlled.ratings.by_model()
    assert len(rows) == len(raw) == 9
    for row in rows:
        found = row["bradley_terry_from_grades"]
        model = found["raw"]["model"]
        for key in ("rating", "low", "high"):
            assert found["raw"][key] == pytest.approx(getattr(raw[model], key), abs=1e-6)
            assert found["style_controlled"][key] == pytest.approx(
                getattr(controlled[model], key), abs=1e-6
            )
        assert found["battles"] == 9 * 8 // 2 * 720 and found["resampled"]["count"] == 360
        assert "resample:question" in found["signature"]["line"]
        assert found["separation"] == []
    gamma = expected.controlled.coefficients
    # the judge grades longer answers higher, beyond chance, and some Markdown too
    assert gamma["length"].low > 0 and gamma["bold"].low > 0
    # whose lead is length: claude-3-5-sonnet stays first but its lead shrinks; claude-2.1
    # and gpt-35-turbo, shorter writers, gain; nemotron and plamo lose
    first = max(controlled.values(), key=lambda r: r.rating)
    assert first.model == "claude-3-5-sonnet-20240620"
    assert first.rating < raw[first.model].rating - 30
    for model in ("claude-2.1", "gpt-35-turbo"):
        assert controlled[model].rating > raw[model].rating + 30
    for model in ("nvidia_nemotron-4-340b-instruct", "plamo-1.0-prime-beta"):
        assert controlled[model].rating < raw[model].rating - 30
    # the table as typed: both columns beside Avg., γ and the signature under it
    table = CliRunner().invoke(app, [*args, "--no-per-turn"])
    assert table.exit_code == 0, table.output
    header = next(line for line in table.output.splitlines() if line.startswith("| Model"))
    assert "| Avg. | 95% CI | length-adj. | BT | style-controlled BT |" in header
    sonnet = raw["claude-3-5-sonnet-20240620"], controlled["claude-3-5-sonnet-20240620"]
    cells = " | ".join(f"{r.rating:.1f} [{r.low:.1f}, {r.high:.1f}]" for r in sonnet)
    assert f"| {cells} |" in table.output
    assert f"style-controlled BT: {expected.coefficients_line()}" in table.output
    assert f"style-controlled BT signature: {expected.controlled.signature.line}" in table.output


def test_style_control_without_answers_is_one_line() -> None:
    shown = CliRunner().invoke(
        app, ["mtbench", "leaderboard", "--judgments", str(JUDGMENTS), "--style-control"]
    )
    assert shown.exit_code != 0
    assert "error: --style-control needs --answers" in shown.output


def _synthetic(seed: int) -> list[StyledBattle]:
    """40 questions, three models graded 1-10 with a length preference, both turns."""
    rng = np.random.default_rng(seed)
    battles = []
    for question in range(40):
        for _turn in (1, 2):
            lengths = rng.integers(100, 900, size=3)
            grades = np.clip(np.round(5 + lengths / 300 + rng.normal(0, 2, 3)), 1, 10)
            for a, b in combinations(range(3), 2):
                share = 0.5 if grades[a] == grades[b] else float(grades[a] > grades[b])
                battles.append(
                    StyledBattle(
                        f"m{a}", f"m{b}", share, StyleCounts(int(lengths[a]), 0, 0, 0),
                        StyleCounts(int(lengths[b]), 0, 0, 0), group=f"q{question}",
                    )
                )  # fmt: skip
    return battles


def _widths(battles: list[StyledBattle]) -> np.ndarray:
    rated = rate_with_style(battles, controls=("length",), rounds=300, seed=1)
    rows = [(r.high - r.low, c.high - c.low) for r, c in rated.rows()]
    return np.asarray([*rows, (0.0, rated.controlled.coefficients["length"].high)])


def test_the_grouped_bootstrap_draws_whole_questions() -> None:
    battles = _synthetic(3)
    twice = [b for b in battles for _ in range(2)]  # each question's battles, listed twice
    assert np.allclose(_widths(battles), _widths(twice), atol=0.05)
    ungrouped = [
        StyledBattle(b.first, b.second, b.share, b.first_style, b.second_style) for b in battles
    ]
    one_by_one = _widths(ungrouped)[:3]
    doubled = _widths([b for b in ungrouped for _ in range(2)])[:3]
    # drawing battles one by one, the copies count as evidence: intervals ~1/√2 as wide
    assert np.all(doubled < 0.8 * one_by_one)


def test_battles_are_grouped_all_or_none() -> None:
    battles = _synthetic(4)
    mixed = [*battles[:-1], StyledBattle(*(getattr(battles[-1], k) for k in
             ("first", "second", "share", "first_style", "second_style")))]  # fmt: skip
    with pytest.raises(InputError, match="either every battle has a group or none has"):
        rate_with_style(mixed, rounds=10)


@pytest.mark.usefixtures("hyoka_env")
def test_a_model_graded_higher_on_every_turn_has_no_bt_rating_but_na_and_why(
    tmp_path: Path,
) -> None:
    """Two of the published files, gpt-4's grades set to 10 and claude-2.1's to 1 on every
    turn: gpt-4 wins every battle, so neither Bradley–Terry fit of the grades has a
    maximum. Every format says n/a with the reason (JSON: null), never the rating the
    iterations reached."""
    folder = tmp_path / "gpt-4o-mini_single"
    folder.mkdir()
    for model, score in (("gpt-4", 10), ("claude-2.1", 1)):
        lines = (JUDGMENTS / f"{model}.jsonl").read_text(encoding="utf-8").splitlines()
        rows = [{**json.loads(line), "score": score} for line in lines]
        (folder / f"{model}.jsonl").write_text(
            "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8"
        )
    args = ["mtbench", "leaderboard", "--bench", "pfmt-fin", "--judgments", str(folder)]
    args += ["--answers", str(ANSWERS), "--style-control", "--resamples", "20"]
    shown = CliRunner().invoke(app, [*args, "--format", "json"])
    assert shown.exit_code == 0, shown.output
    why = "no finite maximum (gpt-4 never loses)"
    for row in json.loads(shown.stdout):
        found = row["bradley_terry_from_grades"]
        for fit in ("raw", "style_controlled"):
            assert [found[fit][key] for key in ("rating", "low", "high")] == [None] * 3
            assert found[fit]["no_maximum"] == why
        assert found["raw_separation"] == [f"ratings n/a: {why}"]
    table = CliRunner().invoke(app, [*args, "--format", "md"])
    assert table.exit_code == 0, table.output
    assert table.output.count(f"| n/a: {why} | n/a: {why} |") == 2
    assert f"BT: ratings n/a: {why}" in table.output
