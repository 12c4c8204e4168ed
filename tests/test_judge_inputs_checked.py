"""What ``judge meta``, ``judge agreement --single`` and ``judge rankings --judgments`` read
is checked before a number is computed (issue 29: nothing silently wrong): a judge's
lines under another judge's name are a copy, not a second judge; a pair of one model is no
game; an empty file is named; and a folder's benchmark is the one its manifest names (else
the registry's, by any of its names), its lines checked as the leaderboard checks them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from _shared import SHARED_DATA, data_mark
from hyoka.cli.main import app

PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
VICUNA_FILE = VICUNA / "pairwise:cyberagent--calm2-7b-chat_openai--text-davinci-003.jsonl"


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--resamples", "20"])


def _lines(path: Path, count: int | None = None) -> list[dict[str, Any]]:
    rows = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(row) for row in rows[:count]]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _renamed(rows: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [{**row, "judge": [name, row["judge"][1]]} for row in rows]


# --- a judge's lines under another name are a copy, not a second judge ------------------


@data_mark(PFMT)
def test_a_renamed_copy_of_a_judge_is_refused_wherever_judges_are_compared(
    tmp_path: Path,
) -> None:
    """A copy of gpt-4o's grades with the judge renamed agreed perfectly with gpt-4o
    (kappa 1.000, exit 0) in judge meta, judge agreement and judge rankings: the lines keep
    gpt-4o's time stamps and replies, so they are gpt-4o's judgments, refused naming both."""
    first = tmp_path / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
    copy = tmp_path / "copy" / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-copy_single"
    for model in ("claude-2.1", "gpt-4"):
        rows = _lines(PFMT / "gpt-4o_single" / f"{model}.jsonl", 8)
        _write(first / f"{model}.jsonl", rows)
        _write(copy / f"{model}.jsonl", _renamed(rows, "gpt-4o-copy"))
    why = (
        f"error: {copy / 'claude-2.1.jsonl'}:1: the same judgment as "
        f"{first / 'claude-2.1.jsonl'}:1, the judge renamed ('gpt-4o' there, 'gpt-4o-copy' "
        "here): a copy, not a second judge (a judge's run stamps each line with its own time "
        "and reply, so lines with the same tstamp and judgment are one judgment, whatever "
        "judge they name)"
    )
    for args in (
        ["judge", "meta", "--single", str(first), "--single", str(copy)],
        ["judge", "agreement", "--single", str(first), "--single", str(copy)],
        [
            "judge",
            "rankings",
            "--judgments",
            str(first),
            "--judgments",
            str(copy),
            "--data-dir",
            str(SHARED_DATA),
        ],
    ):
        result = _run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.strip().splitlines() == [why], args


@data_mark(PFMT)
def test_lines_without_time_stamp_or_reply_may_agree_across_two_judges(tmp_path: Path) -> None:
    """Where the lines keep no time stamp and reply, nothing shows a copy: two judges'
    equal grades are two judges' (the rule needs what a run makes unique)."""
    rows = [{**row, "tstamp": 0, "judgment": ""}
            for row in _lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 8)]  # fmt: skip
    first = _write(tmp_path / "a" / "gpt-4o_single.jsonl", rows)
    other = _write(tmp_path / "b" / "other_single.jsonl", _renamed(rows, "other"))
    result = _run("judge", "meta", "--single", str(first), "--single", str(other))
    assert result.exit_code == 0, result.output


# --- pairwise: a game of a model against itself; empty files -----------------------------


@data_mark(VICUNA)
def test_judge_meta_refuses_a_pair_of_one_model(tmp_path: Path) -> None:
    """Games of calm2 against itself gave order consistency 0.850 and "Faults: none";
    ``mtbench verify`` refuses the file: so does judge meta, with verify's line."""
    rows = [{**row, "model_2": row["model_1"]} for row in _lines(VICUNA_FILE, 5)]
    path = _write(tmp_path / "self" / "gpt-4_pair.jsonl", rows)
    result = _run("judge", "meta", "--pairwise", str(path.parent))
    assert result.exit_code == 1, result.output
    model = rows[0]["model_1"]
    assert result.output.strip().splitlines() == [
        f"error: {path}:1: model_1 and model_2 are both {model!r}: a pair judgment compares "
        "two different models"
    ]


def test_an_empty_judgment_file_is_named(tmp_path: Path) -> None:
    """An empty single-grading file said "judgments by several judges: []", an empty
    pairwise file "no judgments to measure" without naming it."""
    for flag in ("--single", "--pairwise"):
        folder = tmp_path / flag.strip("-")
        folder.mkdir()
        (folder / "x.jsonl").write_bytes(b"")
        result = _run("judge", "meta", flag, str(folder))
        assert result.exit_code == 1, result.output
        assert result.output.strip().splitlines() == [
            f"error: {folder}: empty, no judgment in it"
        ], flag
