"""Each judged benchmark's scale is its own (``BenchSpec.scale``): ELYZA-tasks-100 grades 1
to 5, the MT-bench family 0 to 10; the leaderboard and ``judge meta`` read it from the
definition (``mtbench verify``: tests/mtbench/test_mtbench_verify.py), and a JSON ``true`` is no
score anywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from _shared import ELYZA_PUBLISHED, SHARED_DATA, needs
from hyoka.cli.main import app
from hyoka.judge import JudgeRun, JudgeSettings
from hyoka.mtbench import definition
from hyoka.store import atomic_write_text, manifest_path

PFMT_FILE = (
    SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single" / "gpt-4.jsonl"
)


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])


def _elyza_lines(grade: object, model: str = "m") -> list[dict[str, object]]:
    """One model's 100 ELYZA-tasks-100 judgments in FastChat's shape (as ``mtbench judge``
    writes them), every grade 4 but task 3's."""
    return [
        {"question_id": task, "model": model, "judge": ["j", "elyza-v1"], "user_prompt": "",
         "judgment": str(grade) if task == 3 else "4", "score": grade if task == 3 else 4,
         "turn": 1}
        for task in range(100)
    ]  # fmt: skip


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_the_scale_belongs_to_the_benchmarks_definition() -> None:
    assert definition("elyza-tasks-100").scale == (1, 5)
    assert {definition(name).scale for name in ("pfmt-fin", "mt-bench", "jmt-bench")} == {(0, 10)}


@pytest.mark.parametrize("grade", [9, 0])
def test_an_elyza_grade_off_its_1_to_5_scale_is_refused_naming_its_line(
    tmp_path: Path, grade: int
) -> None:
    """A 9 (or a 0: ELYZA has no rule that zeroes a task) was averaged into the model's
    mean, being inside 0 to 10; in a Shaberi file and in a file hyoka's judge writes."""
    rows = ELYZA_PUBLISHED.joinpath("gpt-3.5-turbo-0125.json").read_text("utf-8").splitlines()
    shaberi = tmp_path / "shaberi" / "gpt-3.5-turbo-0125.json"
    shaberi.parent.mkdir()
    row = json.loads(rows[4]) | {"score": grade}
    shaberi.write_text("\n".join([*rows[:4], json.dumps(row), *rows[5:]]) + "\n", "utf-8")
    fastchat = _write(tmp_path / "fastchat" / "m.jsonl", _elyza_lines(grade))
    for path, number in ((shaberi, 5), (fastchat, 4)):
        result = _run("mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--judgments",
                      str(path))  # fmt: skip
        assert result.exit_code == 1, result.output
        assert result.stderr.strip() == (
            f"error: {path}:{number}: score {grade} is outside the ELYZA-tasks-100 scale "
            f"(the integers 1 to 5{'' if path == shaberi else ', or -1 for no rating'})"
        )


def test_a_json_true_is_no_score(tmp_path: Path) -> None:
    """Python's ``True`` is the integer 1: a ``true`` score was averaged as a 1."""
    lines = PFMT_FILE.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[6]) | {"score": True}
    pfmt = tmp_path / "pfmt" / "gpt-4.jsonl"
    pfmt.parent.mkdir()
    pfmt.write_text("\n".join([*lines[:6], json.dumps(record), *lines[7:]]) + "\n", "utf-8")
    elyza = _write(tmp_path / "elyza" / "m.jsonl", _elyza_lines(True))
    rows = ELYZA_PUBLISHED.joinpath("gpt-3.5-turbo-0125.json").read_text("utf-8").splitlines()
    shaberi = tmp_path / "shaberi" / "gpt-3.5-turbo-0125.json"
    shaberi.parent.mkdir()
    shaberi.write_text(json.dumps(json.loads(rows[0]) | {"score": True}) + "\n", "utf-8")
    for bench, path, number in (
        ("pfmt-fin", pfmt, 7), ("elyza-tasks-100", elyza, 4), ("elyza-tasks-100", shaberi, 1)
    ):  # fmt: skip
        result = _run("mtbench", "leaderboard", "--bench", bench, "--judgments", str(path))
        assert result.exit_code == 1, result.output
        assert f"{path}:{number}: not a" in result.stderr
        assert "score" in result.stderr


def test_judge_meta_counts_an_elyza_grade_off_its_own_scale(tmp_path: Path) -> None:
    """``judge meta`` read every FastChat single-grading folder on 0 to 10: an ELYZA 7 was
    a grade like any other."""
    folder = tmp_path / "elyza-tasks-100" / "model_judgment" / "j_single"
    for model in ("a", "b"):
        _write(folder / f"{model}.jsonl", _elyza_lines(7, model))
    result = _run("judge", "meta", "--single", str(folder), "--resamples", "20")
    assert result.exit_code == 0, result.output
    assert "elyza-tasks-100, j: 2 grades off the 1-5 scale (7 ×2)" in result.stdout


def test_a_rakuda_winner_true_is_no_verdict(tmp_path: Path) -> None:
    """A ``true`` winner was read as 1, a win of the model shown first."""
    line = {"question_id": "q1", "model1_id": "a", "model2_id": "b", "winner": True,
            "judge": ["j", "pair-ja"], "judgment": "1"}  # fmt: skip
    path = _write(tmp_path / "j_pair.jsonl", [line])
    result = _run("mtbench", "leaderboard", "--bench", "rakuda", "--judgments", str(path))
    assert result.exit_code == 1
    assert f"{path}:1: not a RakudaPairLine record" in result.stderr
    assert "winner" in result.stderr


def test_the_radar_is_drawn_on_the_benchmarks_scale(tmp_path: Path) -> None:
    """ELYZA's means (1 to 5) were drawn on a 0-10 radar, every model inside its half."""
    needs("plotly")
    folder = tmp_path / "elyza-tasks-100" / "model_judgment" / "j_single"
    judged = _write(folder / "m.jsonl", _elyza_lines(3))
    html = tmp_path / "radar.html"
    result = _run("mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--judgments",
                  str(judged), "--radar", str(html), "--format", "json",
                  "--resamples", "20")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert '"radialaxis":{"range":[0,5]}' in html.read_text(encoding="utf-8")
    site = tmp_path / "site"
    run = JudgeRun(kind="mtbench-single", benchmark="elyza-tasks-100", data="x", template="t",
                   settings=JudgeSettings(judge="openai/j"), rating="elyza-v1")  # fmt: skip
    atomic_write_text(manifest_path(judged), run.manifest().model_dump_json())
    report = _run("report", str(folder), "-o", str(site), "--no-public", "--rounds", "0")
    assert report.exit_code == 0, report.output
    page = (site / "mtbench" / "elyza-tasks-100.lightblue-2024" / "index.html").read_text(
        encoding="utf-8"
    )
    # the rings of 2 and 4 (a 0-10 chart has five: 2, 4, 6, 8, 10)
    assert page.count('fill="none" stroke="#e3e6ea"/>') == 2


def test_judge_meta_refuses_a_true_grade(tmp_path: Path) -> None:
    """A ``true`` in a FastChat single-grading file was a grade of 1 to ``judge meta``."""
    folder = tmp_path / "pfmt-fin" / "model_judgment" / "j_single"
    rows = [json.loads(line) for line in PFMT_FILE.read_text("utf-8").splitlines()]
    rows[2]["score"] = True
    path = _write(folder / "gpt-4.jsonl", rows)
    result = _run("judge", "meta", "--single", str(folder), "--resamples", "20")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"error: {path}:3: not a SingleGradingLine record")
