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
from hyoka.judge import JudgeRun, JudgeSettings
from hyoka.store import atomic_write_text, manifest_path

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
    data = str(SHARED_DATA)
    for args in (
        ["judge", "meta", "--single", str(first), "--single", str(copy), "--data-dir", data],
        ["judge", "agreement", "--single", str(first), "--single", str(copy)],
        [
            "judge",
            "rankings",
            "--judgments",
            str(first),
            "--judgments",
            str(copy),
            "--data-dir",
            data,
        ],
    ):
        result = _run(*args)
        assert result.exit_code == 1, (args, result.output)
        assert result.output.strip().splitlines() == [why], args


@data_mark(VICUNA)
def test_a_renamed_copy_of_pairwise_verdicts_is_refused(tmp_path: Path) -> None:
    """ja-vicuna-qa-benchmark's lines name their judge in ``judge_model``: renamed, the
    same time stamps and replies are still one judge's verdicts."""
    rows = _lines(VICUNA_FILE, 4)
    first = _write(tmp_path / "a" / "gpt-4_pair.jsonl", rows)
    copy = _write(tmp_path / "b" / "x_pair.jsonl", [{**r, "judge_model": "x"} for r in rows])
    result = _run("judge", "meta", "--pairwise", str(first), "--pairwise", str(copy))
    assert result.exit_code == 1, result.output
    assert (
        result.output.strip()
        .splitlines()[0]
        .startswith(
            f"error: {copy}:1: the same judgment as {first}:1, the judge renamed ('gpt-4' there, "
            "'x' here): a copy, not a second judge"
        )
    )


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


# --- the suite is the benchmark a manifest names, else the registry's, by any name -------


def _manifest(path: Path, benchmark: str, judge: str = "openai/j") -> None:
    run = JudgeRun(kind="mtbench-single", benchmark=benchmark, data="x", template="t",
                   settings=JudgeSettings(judge=judge))  # fmt: skip
    atomic_write_text(manifest_path(path), run.manifest().model_dump_json())


def _meta(*args: str) -> dict[str, Any]:
    result = _run("judge", "meta", *args, "--data-dir", str(SHARED_DATA), "-f", "json")
    assert result.exit_code == 0, result.output
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def _all(meta: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each judge's row over all its templates, by judge."""
    rows = meta["rows"]
    return {r["judge"]: r for r in rows if r["template"] == "(all)" or len(rows) == 1}


@data_mark(PFMT)
def test_hyokas_results_layout_meets_the_published_judgments(tmp_path: Path) -> None:
    """gpt-4o-mini's grades in hyoka's layout (``pfmt-fin/model_judgment``) were another
    suite than gpt-4o's published ones (``pfmt-bench-fin-ja``): no reference, 0 shared
    items, no word why. Both names are the registry's for one benchmark."""
    mini = _lines(PFMT / "gpt-4o-mini_single" / "claude-2.1.jsonl", 12)
    big = _lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 12)
    ours = tmp_path / "results" / "pfmt-fin" / "model_judgment" / "gpt-4o-mini_single"
    theirs = tmp_path / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
    _write(ours / "claude-2.1.jsonl", mini)
    _write(theirs / "claude-2.1.jsonl", big)
    meta = _meta("--single", str(ours), "--single", str(theirs), "--reference", "gpt-4o")
    rows = _all(meta)
    assert {row["suite"] for row in rows.values()} == {"pfmt-bench-fin-ja"}
    graded = {(r["question_id"], r["turn"]): r["score"] for r in big if r["score"] >= 0}
    shared = [(r["question_id"], r["turn"]) for r in mini if r["score"] >= 0]
    assert rows["gpt-4o-mini"]["reference"] == "gpt-4o"
    assert rows["gpt-4o-mini"]["shared_items"] == sum(key in graded for key in shared) > 0


@data_mark(PFMT)
def test_two_runs_in_output_folders_are_one_benchmark_by_their_manifests(
    tmp_path: Path,
) -> None:
    """Two runs written with ``--output-dir ra`` and ``rb`` were two suites, "ra" and "rb",
    and the note said no item was graded twice: their manifests name one benchmark, so
    the second run's grades are the judge's repeats."""
    rows = _lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 12)
    first = _write(tmp_path / "ra" / "claude-2.1.jsonl", rows)
    again = [{**row, "tstamp": row["tstamp"] + 3600} for row in rows]
    second = _write(tmp_path / "rb" / "claude-2.1.jsonl", again)
    for path in (first, second):
        _manifest(path, "pfmt-fin")
    meta = _meta("--single", str(first.parent), "--single", str(second.parent))
    row = _all(meta)["openai/j"]
    assert row["suite"] == "pfmt-bench-fin-ja"
    assert (row["judgments"], row["repeats"], row["repeats_differing"]) == (12, 12, 0)
    assert not any("graded twice" in note for note in meta["notes"])


def _elyza_lines(grades: dict[int, int]) -> list[dict[str, Any]]:
    """ELYZA-tasks-100 judgments in FastChat's shape, every grade 4 but ``grades``."""
    return [
        {"question_id": task, "model": "m", "judge": ["j", "elyza-v1"], "user_prompt": "",
         "judgment": str(grades.get(task, 4)), "score": grades.get(task, 4), "turn": 1,
         "tstamp": 1e9 + task}
        for task in range(100)
    ]  # fmt: skip


def test_a_benchmark_and_its_scale_come_from_the_manifest_or_are_said_unknown(
    tmp_path: Path,
) -> None:
    """ELYZA-tasks-100 grades in an output folder were read on a guessed 0-10 scale: 10, 6
    and 0 averaged with the rest, "off scale 0". Its manifest names the benchmark, so they
    are off its 1-5 scale; without a manifest nothing says which benchmark it is, and the
    table says so rather than guess a scale."""
    lines = _elyza_lines({3: 10, 5: 6, 7: 0})
    named = _write(tmp_path / "out" / "m.jsonl", lines)
    _manifest(named, "elyza-tasks-100")
    row = _all(_meta("--single", str(named.parent)))["openai/j"]
    assert row["suite"] == "elyza-tasks-100"
    assert row["off_scale"] == 3 and row["off_scale_values"] == {"0": 1, "10": 1, "6": 1}
    assert row["mean"] == 4.0
    bare = _write(tmp_path / "bare" / "m.jsonl", lines)
    meta = _meta("--single", str(bare.parent))
    row = _all(meta)["j"]
    assert row["suite"] == "bare" and row["off_scale"] is None
    assert any(note.startswith("bare: no benchmark hyoka defines") for note in meta["notes"])


@data_mark(PFMT)
def test_a_question_or_turn_the_benchmark_lacks_is_refused_as_the_leaderboard_does(
    tmp_path: Path,
) -> None:
    """Under pfmt-bench-fin-ja's own folder name, question_id 9999 was a graded item like
    any other; the leaderboard refuses it (``line_checks``), and so does judge meta, naming
    the line; a turn it lacks too (turn 3: the line's shape already allows no more)."""
    folder = tmp_path / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o_single"
    rows = _lines(PFMT / "gpt-4o_single" / "claude-2.1.jsonl", 4)
    for change, why in (
        ({"question_id": 9999}, "question_id 9999 is not a pfmt-bench-fin-ja question"),
        ({"turn": 3}, "not a SingleGradingLine record (SingleJudgmentLine.turn"),
    ):
        path = _write(folder / "claude-2.1.jsonl", [rows[0], {**rows[1], **change}, *rows[2:]])
        result = _run("judge", "meta", "--single", str(folder), "--data-dir", str(SHARED_DATA))
        assert result.exit_code == 1, result.output
        (line,) = result.output.strip().splitlines()
        assert line.startswith(f"error: {path}:2: {why}"), line
