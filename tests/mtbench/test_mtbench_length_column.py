"""``hyoka mtbench leaderboard --answers``: the length-adjusted column beside Avg., on the
published pfmt-bench-fin-ja gpt-4o-mini judgments and their published answer files."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
from typer.testing import CliRunner

from _shared import SHARED_DATA, data_mark
from hyoka.cli.main import app
from hyoka.stats import Grade, LengthAdjusted, length_adjusted_scores

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
PUBLISHED = FIN / "model_judgment" / "gpt-4o-mini_single"
ANSWERS = FIN / "model_answer"
#: few resamples keep the test fast; the column must match the library at any count
RESAMPLES = 50

pytestmark = data_mark(PUBLISHED, ANSWERS)


def _independent_fit(judgments: list[Path], answers: Path) -> LengthAdjusted:
    """The fit computed straight from the raw files with ``json``: every rated turn (the
    first judgment of a turn), its length the characters of the model's answer to it."""
    grades: list[Grade] = []
    for path in sorted(judgments):
        by_turn: dict[tuple[int, int], float] = {}
        for text in path.read_text(encoding="utf-8").splitlines():
            line = json.loads(text)
            if line["score"] != -1:
                by_turn.setdefault((line["question_id"], line["turn"]), line["score"])
        model = path.stem  # pfmt-bench-fin-ja names answer and judgment files alike
        turns = {}
        for text in (answers / path.name).read_text(encoding="utf-8").splitlines():
            record = json.loads(text)
            turns[record["question_id"]] = record["choices"][0]["turns"]
        for (question, turn), score in sorted(by_turn.items()):
            chars = len(turns[question][turn - 1])
            grade = Grade(f"{question}/turn{turn}", model, float(score), chars, str(question))
            grades.append(grade)
    return length_adjusted_scores(grades, resamples=RESAMPLES, seed=0, unit="dialogue")


def _leaderboard(*args: str) -> tuple[str, str]:
    result = CliRunner().invoke(
        app,
        [
            "mtbench",
            "leaderboard",
            "--data-dir",
            str(SHARED_DATA),
            "--resamples",
            str(RESAMPLES),
            *args,
        ],
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout, result.stderr


def _shown(value: float) -> str:
    return str(Decimal(value).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


@pytest.fixture(scope="module")
def fit() -> LengthAdjusted:
    return _independent_fit(sorted(PUBLISHED.glob("*.jsonl")), ANSWERS)


def _display(model: str) -> str:
    return model.replace("_", "/", 1) if model.startswith("nvidia_") else model


def test_length_column_in_json_is_the_fit_of_the_raw_files(fit: LengthAdjusted) -> None:
    out, _ = _leaderboard("--answers", str(ANSWERS), "--format", "json")
    rows = {row["model"]: row for row in json.loads(out)}
    expected = fit.by_model()
    assert len(rows) == len(expected) == 9
    for model, score in expected.items():
        shown = rows[_display(model)]["length_adjusted"]
        assert shown["mean"] == score.adjusted.to_json()
        assert shown["mean_log_length_above_question"] == score.relative_length
        assert shown["missing_answers"] == 0
        assert shown["partial_correlation_within_question"] == fit.partial_correlation.to_json()
        assert shown["signature"] == fit.signature.to_json()
        assert shown["signature"]["fields"]["kind"] == "length-adjusted-scores"
        # the bootstrap draws dialogues (a question's two turns together), not turns
        assert shown["signature"]["fields"]["unit"] == "dialogue"
        assert shown["resampled"] == {"unit": "dialogue", "count": 360}
        assert shown["questions"] == 720
        # beside the raw mean, never instead of it
        assert rows[_display(model)]["overall"] is not None
    # the judge rewards length within a question here: the partial r is clearly positive
    assert fit.partial_correlation.low > 0


def test_length_column_in_markdown_and_csv_is_the_fit_rounded(fit: LengthAdjusted) -> None:
    md, _ = _leaderboard("--answers", str(ANSWERS), "--no-per-turn")
    table = [line for line in md.splitlines() if line.startswith("| ")]
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert header[:4] == ["Model", "Avg.", "95% CI", "length-adj."]
    cells = {
        row[0]: row[3]
        for row in ([c.strip() for c in line.strip("|").split("|")] for line in table[1:])
    }
    expected = {_display(m): _shown(s.adjusted.estimate) for m, s in fit.by_model().items()}
    assert cells == expected
    r = fit.partial_correlation
    note = f"partial r = {r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]"
    assert f"{note}, 95% CI resampling the 360 dialogues (720 judged turns)" in md
    assert f"length-adj. signature: {fit.signature.line}" in md

    text, _ = _leaderboard("--answers", str(ANSWERS), "--format", "csv")
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0]
    assert header[:5] == ["Turns", "Model", "Avg.", "95% CI", "length-adj."]
    both = {row[1]: row[4] for row in rows[1:] if row and row[0] == "both"}
    assert both == expected
    # the per-turn tables have no such column (the fit is over both turns)
    assert rows[10][:5] == ["Turns", "Model", "Avg.", "95% CI", "Writ."]
    assert f"# length-adj. signature: {fit.signature.line}" in text.splitlines()


def _without_length(text: str, fmt: str) -> str:
    """``text`` with the length column (the fourth of the table of both turns) and its
    notes taken out again."""
    if fmt == "json":
        rows = json.loads(text)
        for row in rows:
            del row["length_adjusted"]
        return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    kept = []
    for line in text.splitlines(keepends=True):
        if fmt == "md" and line.startswith("|"):
            cells = line.split("|")  # "", name, Avg., CI, length-adj., ...
            line = "|".join(cells[:4] + cells[5:])
        elif fmt == "csv" and line.startswith(("both,", "Turns,")):
            cells = next(csv.reader([line]))  # Turns, name, Avg., CI, length-adj., ...
            buffer = io.StringIO()
            csv.writer(buffer, lineterminator="\n").writerow(cells[:4] + cells[5:])
            line = buffer.getvalue()
        elif "length-adj." in line:
            continue
        kept.append(line)
    # markdown notes are paragraphs: a removed note leaves its blank line behind
    return re.sub(r"\n{3,}", "\n\n", "".join(kept))


@pytest.mark.parametrize("fmt", ["md", "csv", "json"])
def test_leaderboard_without_answers_is_unchanged(fmt: str) -> None:
    """No ``--answers``: no trace of the column; with it, nothing else in the output moves."""
    plain, _ = _leaderboard("--format", fmt, "--no-per-turn")
    with_length, _ = _leaderboard("--format", fmt, "--no-per-turn", "--answers", str(ANSWERS))
    assert "length" not in plain
    assert with_length != plain
    assert _without_length(with_length, fmt) == plain


def test_missing_answers_are_counted_and_leave_the_model_out(tmp_path: Path) -> None:
    """A judged turn without an answer: counted, and that model gets no adjusted mean; a
    model without any answer file likewise; the others are fitted without them."""
    names = ["claude-2.1", "gpt-4", "gpt-35-turbo", "plamo-1.0-prime-beta"]
    judgments = [PUBLISHED / f"{name}.jsonl" for name in names]
    answers = tmp_path / "answers"
    answers.mkdir()
    for name in names[:2]:
        shutil.copy(ANSWERS / f"{name}.jsonl", answers)
    lines = (ANSWERS / "gpt-35-turbo.jsonl").read_text(encoding="utf-8").splitlines()
    dropped = [line for line in lines if json.loads(line)["question_id"] != 7]
    assert len(dropped) == len(lines) - 1
    (answers / "gpt-35-turbo.jsonl").write_text("\n".join(dropped) + "\n", encoding="utf-8")

    args = [a for path in judgments for a in ("--judgments", str(path))]
    out, err = _leaderboard(*args, "--answers", str(answers), "--format", "json")
    rows = {row["model"]: row["length_adjusted"] for row in json.loads(out)}
    assert rows["gpt-35-turbo"]["mean"] is None
    assert rows["gpt-35-turbo"]["missing_answers"] == 2  # both turns of question 7
    assert rows["plamo-1.0-prime-beta"]["mean"] is None
    assert rows["plamo-1.0-prime-beta"]["missing_answers"] == 720
    assert "gpt-35-turbo: 2 judged turn(s) without an answer in --answers" in err
    expected = _independent_fit(judgments[:2], ANSWERS)
    for name in names[:2]:
        assert rows[name]["mean"] == expected.by_model()[name].adjusted.to_json()
        assert rows[name]["missing_answers"] == 0

    md, _ = _leaderboard(*args, "--answers", str(answers), "--no-per-turn")
    assert "gpt-35-turbo: 2 judged turn(s) without an answer in --answers, no length-adj." in md
    row = next(line for line in md.splitlines() if line.startswith("| gpt-35-turbo"))
    assert row.split("|")[4].strip() == ""


def test_answers_that_are_not_there_are_one_error_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["mtbench", "leaderboard", "--data-dir", str(SHARED_DATA), "--answers", str(tmp_path)],
    )
    assert result.exit_code != 0
    assert f"--answers: no *.jsonl answer files in {tmp_path}" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


@pytest.mark.parametrize("given", ["model_answer", "data root"])
def test_answers_in_ja_vicuna_qa_benchmarks_own_layout_are_found(given: str) -> None:
    """ku-nlp's ja-vicuna-qa-benchmark keeps each model's answers in
    ``model_answer/<model>/results.jsonl``: ``--answers`` reads that folder, or a data
    folder holding it, as it reads FastChat's ``model_answer/<model>.jsonl``."""
    from hyoka.mtbench import Bench
    from hyoka.mtbench.length_columns import read_answer_sets

    vicuna = SHARED_DATA / "ja-vicuna-qa"
    bench = Bench.load("ja-vicuna-qa", SHARED_DATA)
    folder = vicuna / "model_answer" if given == "model_answer" else SHARED_DATA
    sets = read_answer_sets([folder], bench)
    expected = {}
    for path in sorted((vicuna / "model_answer").glob("*/results.jsonl")):
        lines = [json.loads(t) for t in path.read_text(encoding="utf-8").splitlines() if t]
        expected[path.parent.name] = {r["question_id"]: r["choices"][0]["turns"] for r in lines}
    assert len(expected) == 7
    assert {m: {q: list(r.turns) for q, r in by_id.items()} for m, by_id in sets.items()} == (
        expected
    )
