"""``hyoka mtbench verify``: every published judgment file reproduces from its own replies,
and a file with one score or winner changed is caught at that line."""

from __future__ import annotations

import json
import os
import subprocess
import threading
from pathlib import Path
from typing import Literal

import pytest
from typer.testing import CliRunner

from _gate import FileGate
from _shared import SHARED_DATA
from hyoka.cli.main import app
from hyoka.mtbench import JudgmentCheck, definition, iter_verify_bench
from hyoka.mtbench.verify import judgment_spec, verify_judgments

JA_VICUNA_QA, JMT_BENCH, MT_BENCH, PFMT_FIN = map(
    definition, ("ja-vicuna-qa", "jmt-bench", "mt-bench", "pfmt-fin")
)

PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single"
VICUNA = SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
JMT_SINGLE = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"


def _verify(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["mtbench", "verify", *args])
    return result.exit_code, result.output


def test_every_published_pfmt_and_vicuna_file_reproduces_exactly(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """9 pfmt-bench-fin-ja files (6,480 lines, pfmt's rating rules) and 6 ja-vicuna-qa files
    (480 pairs, FastChat's verdict tokens), each found by the data folder that holds it."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(SHARED_DATA))
    files = sorted(PFMT.glob("*.jsonl")) + sorted(VICUNA.glob("pairwise:*.jsonl"))
    assert len(files) == 15
    code, output = _verify(*map(str, files))
    assert code == 0, output
    assert output.count("reproduced exactly (720 lines; pfmt-fin: rating pfmt-upstream") == 9
    assert output.count("reproduced exactly (80 lines; ja-vicuna-qa: rating ja-vicuna-qa, ") == 6


def test_published_jmt_bench_single_file_reproduces_by_fastchat_rules() -> None:
    """Stability's 564 GPT-4 turn-1 judgments follow FastChat's rating rules (the rules of
    ``--bench mt-bench``) line for line."""
    check = verify_judgments(JMT_SINGLE, MT_BENCH)
    assert check.reproduced and check.lines == 564


def _tampered(source: Path, target: Path, number: int, field: str, value: object) -> Path:
    lines = source.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[number - 1])
    assert json.dumps(record[field]) != json.dumps(value)
    record[field] = value
    lines[number - 1] = json.dumps(record, ensure_ascii=False)
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def test_one_changed_score_fails_naming_its_line(tmp_path: Path) -> None:
    source = PFMT / "gpt-4.jsonl"
    score = json.loads(source.read_text(encoding="utf-8").splitlines()[99])["score"]
    copy = _tampered(source, tmp_path / "gpt-4.jsonl", 100, "score", score % 10 + 1)
    code, output = _verify("--bench", "pfmt-fin", str(copy))
    assert code == 1
    assert f"{copy}:100: score is {score % 10 + 1}, the rules give {score} (NOT reproduced" in (
        output
    )
    # a float where upstream wrote an integer is a difference too
    copy = _tampered(source, tmp_path / "float.jsonl", 7, "score", float(_score(source, 7)))
    assert not verify_judgments(copy, PFMT_FIN).reproduced


def _score(path: Path, number: int) -> int:
    return int(json.loads(path.read_text(encoding="utf-8").splitlines()[number - 1])["score"])


def test_one_changed_winner_fails_naming_its_line(tmp_path: Path) -> None:
    source = next(VICUNA.glob("pairwise:cyberagent*"))
    winner = json.loads(source.read_text(encoding="utf-8").splitlines()[41])["g2_winner"]
    other = "tie" if winner != "tie" else "model_1"
    copy = _tampered(source, tmp_path / "pairs.jsonl", 42, "g2_winner", other)
    code, output = _verify("--bench", "ja-vicuna-qa", str(copy))
    assert code == 1
    assert f"{copy}:42: g2_winner is {other!r}, the rules give {winner!r}" in output


def test_the_rules_come_from_the_flag_the_data_folder_or_nowhere(tmp_path: Path) -> None:
    published = next(VICUNA.glob("*.jsonl"))
    assert judgment_spec(published, None, SHARED_DATA) is JA_VICUNA_QA
    assert judgment_spec(published, "mt-bench", SHARED_DATA) is MT_BENCH
    stray = tmp_path / "x.jsonl"
    stray.write_text('{"score": 1, "judgment": "[[1]]"}\n')
    code, output = _verify("--data-dir", str(SHARED_DATA), str(stray))
    assert code == 1
    assert "name the rules with --bench" in output and output.count("\n") == 1


def test_a_file_in_a_linked_benchmark_folder_is_told_by_that_folder(tmp_path: Path) -> None:
    """A data directory whose benchmark folder is a link (as tests and shared checkouts
    lay it out): its files are still that benchmark's (they were "in no benchmark's data
    folder", the resolved file compared with the unresolved folder)."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "ja-vicuna-qa").symlink_to(SHARED_DATA / "ja-vicuna-qa")
    linked = data / "ja-vicuna-qa" / VICUNA.relative_to(SHARED_DATA / "ja-vicuna-qa")
    published = next(linked.glob("pairwise:*.jsonl"))
    assert judgment_spec(published, None, data) is JA_VICUNA_QA


# --- sound files only: the file's shape as upstream writes it, every rule of its manifest ---

ELYZA = SHARED_DATA / "elyza-tasks-100" / "judgments" / "gpt-4-turbo-preview"
JMT_MODEL = "japanese-stablelm-instruct-alpha-7b"


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(path: Path, lines: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def _check(*args: str) -> tuple[int, str]:
    return _verify("--data-dir", str(SHARED_DATA), *args)


def test_a_turn_judged_twice_differently_is_not_reproduced(tmp_path: Path) -> None:
    """Each line followed from its own reply, so the file "reproduced exactly"; the
    leaderboard refuses it (pfmt-bench-fin-ja's table keeps one judgment a turn)."""
    lines = _lines(PFMT / "gpt-4.jsonl")
    other = json.loads(lines[10]) | {"judgment": "評価: [[3]]", "score": 3}
    twice = _write(tmp_path / "gpt-4.jsonl", [*lines, json.dumps(other, ensure_ascii=False)])
    code, output = _check("--bench", "pfmt-fin", str(twice))
    assert code == 1
    assert output.startswith(
        f"{twice}:721: a second, different judgment of gpt-4 question_id "
        f"{other['question_id']} turn {other['turn']} (first at line 11)"
    )
    assert "NOT reproduced" in output and "reproduced exactly" not in output


def test_a_file_joined_to_itself_is_not_reproduced(tmp_path: Path) -> None:
    """Every line of the second half is a copy: counted twice by an upstream that reads
    every line (FastChat's show_result.py), by none that judged it once."""
    pfmt = _lines(PFMT / "gpt-4.jsonl")
    jmt = _lines(JMT_SINGLE)
    for name, lines, bench in (("pfmt.jsonl", pfmt, "pfmt-fin"), ("jmt.jsonl", jmt, "jmt-bench")):
        doubled = _write(tmp_path / name, lines + lines)
        code, output = _check("--bench", bench, str(doubled))
        assert code == 1, output
        assert output.startswith(
            f"{doubled}:{len(lines) + 1}: the same judgment as line 1 again (a line copied, "
            "or the file joined to itself)"
        )


def test_a_line_of_empty_trial_lists_is_not_reproduced(tmp_path: Path) -> None:
    """swallow-evaluation's line with no trial at all: no score to check, so it passed."""
    line = {"question_id": 1, "model": "m", "judge": ["gpt-4o", "single-v1"],
            "user_prompt": [], "judgment": [], "score": [], "turn": 1}  # fmt: skip
    empty = _write(tmp_path / "m.jsonl", [json.dumps(line)])
    code, output = _check("--bench", "jmt-bench", str(empty))
    assert code == 1
    assert f"{empty}:1: not a SingleGradingLine record" in output
    assert "at least 1 item" in output and "reproduced exactly" not in output


def _with_manifest(path: Path, thinking: Literal["strip-think", "keep"] | None) -> Path:
    """``path`` with the manifest ``mtbench judge`` writes beside its pfmt-bench-fin-ja
    files, for a judge whose thinking is read by ``thinking`` (``None``: the default)."""
    from hyoka.judge import JudgeRun, JudgeSettings
    from hyoka.store import atomic_write_text, manifest_path

    run = JudgeRun(
        kind="mtbench-single", benchmark="pfmt-fin", data="x", template="t",
        settings=JudgeSettings(judge="openai/gpt-4o-mini", thinking=thinking or "strip-think"),
        rating="pfmt-upstream", rules=("no-answer", "language"), lang_check="upstream",
    )  # fmt: skip
    atomic_write_text(manifest_path(path), run.manifest().model_dump_json())
    return path


def test_a_grade_inside_a_stripped_thinking_block_is_not_reproduced(tmp_path: Path) -> None:
    """The manifest says the judge's thinking was set aside before the rating was read:
    a ``[[9]]`` inside it is no rating; read whole (``--thinking keep``) it is."""
    lines = _lines(PFMT / "gpt-4.jsonl")
    record = json.loads(lines[4])
    thought = record | {"judgment": "<think>まず [[9]] と考える</think>評価なし", "score": 9}
    lines[4] = json.dumps(thought, ensure_ascii=False)
    stripped = _with_manifest(_write(tmp_path / "strip" / "gpt-4.jsonl", lines), None)
    code, output = _check(str(stripped))
    assert code == 1
    assert output.startswith(f"{stripped}:5: score is 9, the rules give -1 (NOT reproduced")
    assert "thinking strip-think" in output
    kept = _with_manifest(_write(tmp_path / "keep" / "gpt-4.jsonl", lines), "keep")
    code, output = _check(str(kept))
    assert code == 0 and "reproduced exactly (720 lines" in output and "thinking keep" in output


def test_scores_without_replies_cannot_be_verified_and_folders_are_read(tmp_path: Path) -> None:
    """Shaberi's files keep each grade, not the reply it was read from: "cannot be
    verified" (it was "NOT reproduced", and a folder was no file to read)."""
    code, output = _check(str(ELYZA))
    assert code == 1
    found = output.strip().splitlines()
    said = (
        ": cannot be verified: Shaberi's files keep each grade, not the judge's reply it was "
        "read from (elyza-tasks-100: rating elyza-v1, verdict fastchat-tokens"
    )
    assert len(found) == 24 and all(said in line for line in found), found
    # Qwen1.5-72B-Chat's file has its first row twice: counted, as upstream counts it
    assert sum(line.endswith(", 1 turn judged again, each counted as upstream counts them)")
               for line in found) == 1  # fmt: skip
    # a FastChat file whose lines keep no reply at all
    rows = [json.loads(line) | {"judgment": ""} for line in _lines(PFMT / "gpt-4.jsonl")]
    bare = _write(tmp_path / "bare.jsonl", [json.dumps(row) for row in rows])
    code, output = _check("--bench", "pfmt-fin", str(bare))
    assert code == 1
    assert output.startswith(f"{bare}: cannot be verified: its lines keep no judge reply")
    # a folder is read as the leaderboard reads it: its *.jsonl files
    code, output = _check(str(PFMT))
    assert code == 0 and output.count("reproduced exactly (720 lines") == 9


@pytest.mark.parametrize("bench", ["pfmt-fin", "ja-vicuna-qa", "rakuda"])
def test_an_empty_file_cannot_be_verified_and_fails(tmp_path: Path, bench: str) -> None:
    """Issue 29: an empty file (a judge run stopped before its first line) was "empty, no
    judgment to verify" with exit 0, as if it had passed: nothing in it was shown right."""
    empty = tmp_path / "judged.jsonl"
    empty.write_bytes(b"")
    code, output = _check("--bench", bench, str(empty))
    assert code == 1
    assert output.startswith(f"{empty}: cannot be verified: empty, no judgment in it (")
    assert output.count("\n") == 1


def test_a_grade_off_the_benchmarks_scale_or_not_a_number_is_not_reproduced(
    tmp_path: Path,
) -> None:
    """What the leaderboard refuses is never "reproduced exactly": ELYZA's '9' reads as 9
    (Python's int()), off its 1-5 scale; a ``true`` score was compared as 1."""
    rows = [
        {"question_id": task, "model": "m", "judge": ["j", "elyza-v1"], "user_prompt": "",
         "judgment": "9" if task == 3 else "4", "score": 9 if task == 3 else 4, "turn": 1}
        for task in range(100)
    ]  # fmt: skip
    elyza = _write(tmp_path / "elyza.jsonl", [json.dumps(row) for row in rows])
    code, output = _check("--bench", "elyza-tasks-100", str(elyza))
    assert code == 1
    assert output.startswith(
        f"{elyza}:4: score 9 is outside the ELYZA-tasks-100 scale (the integers 1 to 5, or -1 "
        "for no rating)"
    )
    lines = _lines(PFMT / "gpt-4.jsonl")
    record = json.loads(lines[6])
    lines[6] = json.dumps(record | {"judgment": "[[1]]", "score": True}, ensure_ascii=False)
    boolean = _write(tmp_path / "true.jsonl", lines)
    code, output = _check("--bench", "pfmt-fin", str(boolean))
    assert code == 1 and output.startswith(f"{boolean}:7: not a SingleGradingLine record")


def test_stabilitys_published_file_verifies_each_row_by_its_variant() -> None:
    """The judged prompts say which variant judged each row (4 models with the 2023-08
    prompts, 3 with the later ones); both read ratings by FastChat's rules, and the four
    turns judged twice are counted as upstream counts them."""
    code, output = _check(str(JMT_SINGLE))
    assert code == 0, output
    assert output.strip() == (
        f"{JMT_SINGLE}: reproduced exactly (564 lines; jmt-bench: rating fastchat, verdict "
        "fastchat-tokens, variants stability@aed16da (4 models), stability@aedb44e (3 "
        "models) read from the judged prompts, 4 turns judged again, each counted as "
        "upstream counts them)"
    )


def test_rakuda_files_are_verified_by_the_last_digit(tmp_path: Path) -> None:
    """Rakuda's verdict is the last digit of the reply (1, 2, 3, else error); its files
    were not verifiable at all."""
    replies = ["1", "理由... 結論: 2", "3 ではなく 1", "決められない"]
    winners: list[object] = [1, 2, 1, "error"]
    questions = _lines(SHARED_DATA / "rakuda" / "questions.jsonl")
    rows = [
        {"question_id": json.loads(question)["question_id"], "model1_id": "a", "model2_id": "b",
         "winner": winner, "judge": ["gpt-4", "pair-ja"], "prompt": "", "judgment": reply,
         "turn": 1, "tstamp": 0.0}
        for question, reply, winner in zip(questions, replies, winners, strict=False)
    ]  # fmt: skip
    good = _write(tmp_path / "gpt-4_pair.jsonl", [json.dumps(r, ensure_ascii=False) for r in rows])
    code, output = _check("--bench", "rakuda", str(good))
    assert code == 0, output
    assert output.strip() == f"{good}: reproduced exactly (4 lines; rakuda: verdict last-digit)"
    rows[2]["winner"] = 3
    bad = _write(tmp_path / "bad.jsonl", [json.dumps(r, ensure_ascii=False) for r in rows])
    code, output = _check("--bench", "rakuda", str(bad))
    assert code == 1
    assert output.startswith(f"{bad}:3: winner is 3, the rules give 1 (NOT reproduced")
    doubled = _write(
        tmp_path / "twice.jsonl", [json.dumps(r, ensure_ascii=False) for r in rows[:2] * 2]
    )
    code, output = _check("--bench", "rakuda", str(doubled))
    assert code == 1
    assert output.startswith(f"{doubled}:3: the same judgment as line 1 again")


def test_lines_of_another_benchmarks_questions_are_not_reproduced(tmp_path: Path) -> None:
    """Stability's judgments read by MT-bench's rules are reproduced score for score, but
    their questions are not MT-bench's: with the data at hand the file is not sound (the
    leaderboard refuses it); without it, the verdict says what it could not check."""
    as_jmt = verify_judgments(JMT_SINGLE, JMT_BENCH, SHARED_DATA)
    assert as_jmt.reproduced and as_jmt.lines == 564
    as_mt_bench = verify_judgments(JMT_SINGLE, MT_BENCH, SHARED_DATA)
    assert not as_mt_bench.reproduced and as_mt_bench.unsound
    assert as_mt_bench.verdict.startswith(
        f'{JMT_SINGLE}:1: question_id "11" is not a MT-bench question (a judgment file of '
        "another benchmark?) (NOT reproduced: not a sound judgment file; mt-bench: rating "
        "fastchat"
    )
    unchecked = verify_judgments(JMT_SINGLE, MT_BENCH, tmp_path / "no-data")
    assert unchecked.reproduced
    assert "questions and turns not checked: MT-bench data not found in " in unchecked.verdict


# --- streaming: each file's verdict as it is checked ----------------------------------------


def test_iter_verify_bench_yields_a_verdict_before_the_next_file_is_opened(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The library hands each file's verdict back before it opens the next file: the
    second file, gated (``FileGate``), is never reached until the first verdict is out."""
    first, second = sorted(PFMT.glob("*.jsonl"))[:2]
    gate = FileGate(second)
    gate.install(monkeypatch)
    verdicts = iter_verify_bench([first, second], "pfmt-fin", SHARED_DATA)
    path, check = next(verdicts)
    assert (path, gate.opened) == (first, 0)
    assert isinstance(check, JudgmentCheck) and check.reproduced
    gate.release()
    ((path, check),) = verdicts
    assert path == second and isinstance(check, JudgmentCheck) and check.reproduced
    assert gate.opened >= 1  # the gate was on the way: the store opens files with os.open


def test_verify_prints_each_files_verdict_while_the_next_is_held(tmp_path: Path) -> None:
    """``hyoka mtbench verify`` over two files, the second gated by the test: the first
    file's verdict is on stdout while the second waits at its gate, which the test opens
    only once it has read that line (kept until all were done, it never comes: the
    watchdog ends the command and the test fails)."""
    first, second = sorted(PFMT.glob("*.jsonl"))[:2]
    gate = FileGate(second)
    process = subprocess.Popen(
        gate.command("mtbench", "verify", str(first), str(second)),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HYOKA_DATA_DIR": str(SHARED_DATA), "COLUMNS": "300"},
        pass_fds=gate.child_fds(),
    )  # fmt: skip
    watchdog = threading.Timer(300, process.kill)  # a hang fails the test, never the suite
    watchdog.start()
    try:
        assert gate.held()  # the second file is being opened, and waits
        assert process.stdout is not None
        shown = process.stdout.readline()
        gate.release()
        rest, err = process.communicate()
    finally:
        watchdog.cancel()
    assert process.returncode == 0, err
    lines = [shown, *rest.splitlines()]
    assert len(lines) == 2 and all("reproduced exactly (720 lines; pfmt-fin: " in x for x in lines)
    assert str(first) in shown and str(second) in lines[1]
