"""Every judgment line is one its benchmark's upstream could have written
(``mtbench.line_checks``): a question of the benchmark with the id as its question file
writes it, a turn it judges, the prompt FastChat names for that turn and category, a judged
prompt that is that prompt for that question, two different models in a pair, one judge a
file, and the fields upstream writes on every line. ``mtbench verify`` and the readers
(the leaderboard, Rakuda's ranking, the report's pairwise pages) apply the same checks, so a
file verify passes is one they take, and a line they refuse names its file and line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from _shared import ELYZA_PUBLISHED, SHARED_DATA
from hyoka.cli.main import app

PFMT = SHARED_DATA / "pfmt-bench-fin-ja" / "model_judgment" / "gpt-4o-mini_single" / "gpt-4.jsonl"
VICUNA = (
    SHARED_DATA / "ja-vicuna-qa" / "model_judgment" / "pairwise" / "gpt-4"
    / "pairwise:cyberagent--calm2-7b-chat_openai--text-davinci-003.jsonl"
)  # fmt: skip
JMT = SHARED_DATA / "jmt-bench" / "model_judgment" / "gpt-4_single.jsonl"
RAKUDA = SHARED_DATA / "rakuda"


def _run(*args: str) -> Result:
    return CliRunner().invoke(app, [*args, "--data-dir", str(SHARED_DATA)])


def _rows(path: Path, count: int | None = None) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").splitlines()[:count]
    return [json.loads(line) for line in lines]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    return path


def _verify(bench: str, path: Path) -> Result:
    return _run("mtbench", "verify", "--bench", bench, str(path))


def _board(bench: str, path: Path, *more: str) -> Result:
    return _run("mtbench", "leaderboard", "--bench", bench, "--judgments", str(path), *more)


def _unsound(result: Result, path: Path, number: int, said: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.output.startswith(f"{path}:{number}: {said}"), result.output
    assert "not a sound judgment file" in result.output


def _refused(result: Result, path: Path, number: int, said: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.stderr.startswith(f"error: {path}:{number}: {said}"), result.stderr


# --- pair lines: the checks single lines have ------------------------------------------


def test_impossible_pair_lines_are_not_sound_and_the_report_names_them(tmp_path: Path) -> None:
    """Each was "reproduced exactly": a question the benchmark lacks, a turn a one-turn
    benchmark has not, a model paired with itself, another question's text; the report
    stopped at a self-pair with "a battle needs two different models" and no line."""
    rows = _rows(VICUNA, 12)
    cases = {
        "qid": ({"question_id": 9999}, "question_id 9999 is not a Japanese Vicuna QA question"),
        "turn": ({"turn": 2}, "a judgment of turn 2, but Japanese Vicuna QA judges turn 1 only"),
        "self": (
            {"model_2": rows[0]["model_1"]},
            f"model_1 and model_2 are both {rows[0]['model_1']!r}: a pair judgment compares "
            "two different models",
        ),
        "question": (
            {"question": rows[3]["question"]},
            "the judged question is not Japanese Vicuna QA question 1",
        ),
        "prompt": ({"judge_prompt": "pair-math"}, "judged with prompt 'pair-math', but "),
    }
    for name, (changed, said) in cases.items():
        copy = _write(tmp_path / name / "gpt-4_pair.jsonl", [rows[0] | changed, *rows[1:]])
        _unsound(_verify("ja-vicuna-qa", copy), copy, 1, said)
    whole = _write(tmp_path / "whole" / "gpt-4_pair.jsonl", rows)
    assert _verify("ja-vicuna-qa", whole).exit_code == 0
    self_paired = tmp_path / "self" / "gpt-4_pair.jsonl"
    said = f"{self_paired}:1: model_1 and model_2 are both "
    report = _run("report", str(self_paired), str(whole), "-o", str(tmp_path / "site"),
                  "--no-public", "--rounds", "1")  # fmt: skip
    assert report.exit_code == 0, report.output
    assert f"note: {said}" in report.stderr
    alone = _run("report", str(self_paired), "-o", str(tmp_path / "site2"), "--no-public")
    assert alone.exit_code == 1
    assert "error: nothing to report" in alone.stderr and said in alone.stderr


def test_a_pair_judged_twice_is_refused_by_the_report_as_by_verify(tmp_path: Path) -> None:
    """Issue 29: the report counted a second, opposite verdict of one pair (or a copied
    line) as another item (81 judged items, W/T/L 56/12/13 of a file of 80) with no word;
    now it skips the file with verify's line, and ranks the rest."""
    rows = _rows(VICUNA, 12)
    whole = _write(tmp_path / "whole" / "gpt-4_pair.jsonl", rows)
    flipped = {"g1_winner": "model_2", "g2_winner": "model_2"}
    if (rows[0]["g1_winner"], rows[0]["g2_winner"]) == ("model_2", "model_2"):
        flipped = {"g1_winner": "model_1", "g2_winner": "model_1"}
    pair = f"{rows[0]['model_1']} and {rows[0]['model_2']} question_id {rows[0]['question_id']}"
    cases = {
        "twice": (rows[0] | flipped,
                  f"a second, different judgment of {pair} turn 1 (first at line 1): a pair "
                  "is judged once a turn"),
        "copied": (rows[0], "the same judgment as line 1 again (a line copied, or the file "
                   "joined to itself)"),
    }  # fmt: skip
    for name, (again, said) in cases.items():
        doubled = _write(tmp_path / name / "gpt-4_pair.jsonl", [*rows, again])
        _unsound(_verify("ja-vicuna-qa", doubled), doubled, 13, said)
        site = tmp_path / f"site-{name}"
        report = _run("report", str(doubled), str(whole), "-o", str(site), "--no-public",
                      "--rounds", "1")  # fmt: skip
        assert report.exit_code == 0, report.output
        assert f"note: {doubled}:13: {said}\n" in report.stderr
        index = (site / "pairwise" / "index.html").read_text(encoding="utf-8")
        assert index.count(" items)") == 1 and "(12 items)" in index


# --- Rakuda: its questions, two models, each match once ---------------------------------


def _rakuda_rows() -> list[dict[str, Any]]:
    """Ten matches of claude-2 and gpt-4 on Rakuda's questions, claude-2 shown first and
    winning six, gpt-4 shown first and winning four, as jrank writes its lines."""
    questions = _rows(RAKUDA / "questions.jsonl", 10)
    rows = []
    for n, question in enumerate(questions):
        first, second = ("claude-2", "gpt-4") if n < 6 else ("gpt-4", "claude-2")
        rows.append({
            "question_id": question["question_id"], "model1_id": first, "model2_id": second,
            "winner": 1, "judge": ["gpt-4", "pair-ja"],
            "prompt": f"[質問]\n{question['turns'][0]}\n\n...", "judgment": "1", "turn": 1,
            "tstamp": 1.0,
        })  # fmt: skip
    return rows


def test_a_rakuda_match_of_one_model_or_no_rakuda_question_is_refused(tmp_path: Path) -> None:
    """The leaderboard fitted both (claude-2 and gpt-4 swapped places, exit 0) and verify
    passed them."""
    rows = _rakuda_rows()
    good = _write(tmp_path / "good" / "gpt-4_pair.jsonl", rows)
    assert _verify("rakuda", good).exit_code == 0, _verify("rakuda", good).output
    assert _board("rakuda", good, "--rounds", "1").exit_code == 0
    cases = {
        "self": ({"model2_id": "claude-2"},
                 "model1_id and model2_id are both 'claude-2': a pair judgment compares two "
                 "different models"),
        "question": ({"question_id": "zzz"}, 'question_id "zzz" is not a Rakuda question'),
        "text": ({"prompt": "[質問]\n別の質問"}, "the judged prompt is not Rakuda question "),
    }  # fmt: skip
    for name, (changed, said) in cases.items():
        bad = _write(tmp_path / name / "gpt-4_pair.jsonl", [*rows[:4], rows[4] | changed])
        _unsound(_verify("rakuda", bad), bad, 5, said)
        _refused(_board("rakuda", bad, "--rounds", "1"), bad, 5, said)


def test_a_rakuda_match_judged_twice_is_refused_by_the_ranking_as_by_verify(
    tmp_path: Path,
) -> None:
    """Upstream draws each match without replacement; the ranking counted a second,
    different judgment (or a copied line) as another match."""
    rows = _rakuda_rows()
    twice = _write(tmp_path / "twice.jsonl", [*rows, rows[2] | {"winner": 2, "judgment": "2"}])
    said = "a second, different judgment of claude-2 against gpt-4 question_id"
    _unsound(_verify("rakuda", twice), twice, 11, said)
    _refused(_board("rakuda", twice, "--rounds", "1"), twice, 11, said)
    copied = _write(tmp_path / "copied.jsonl", [*rows, rows[2]])
    said = "the same judgment as line 3 again"
    _unsound(_verify("rakuda", copied), copied, 11, said)
    _refused(_board("rakuda", copied, "--rounds", "1"), copied, 11, said)


# --- single grading: turn, prompt name and judged prompt agree --------------------------


def test_a_turn_its_prompt_name_and_its_judged_prompt_agree(tmp_path: Path) -> None:
    """Swapping ``turn`` on two lines moved the Turn 1 row (8.00 -> 7.98); a turn-2 line
    carrying the turn-1 prompt and a turn-1 line named ``single-v1-multi-turn`` passed."""
    rows = _rows(PFMT, 24)
    assert (rows[0]["turn"], rows[1]["turn"]) == (1, 2)
    assert rows[0]["question_id"] == rows[1]["question_id"]
    swapped = [rows[0] | {"turn": 2}, rows[1] | {"turn": 1}, *rows[2:]]
    cases = {
        "swap": (swapped, 1, "judged with prompt 'single-v1', but pfmt-bench-fin-ja judges "
                 "turn 2 of question 0 (writing) with 'single-v1-multi-turn'"),
        "prompt": ([rows[0], rows[1] | {"user_prompt": rows[0]["user_prompt"]}, *rows[2:]], 2,
                   "the judged prompt (user_prompt) is not pfmt-bench-fin-ja's "
                   "single-v1-multi-turn prompt for question 0 turn 2"),
        "name": ([rows[0] | {"judge": ["gpt-4o-mini", "single-v1-multi-turn"]}, *rows[1:]], 1,
                 "judged with prompt 'single-v1-multi-turn', but pfmt-bench-fin-ja judges "
                 "turn 1 of question 0 (writing) with 'single-v1'"),
    }  # fmt: skip
    for name, (lines, number, said) in cases.items():
        bad = _write(tmp_path / name / "gpt-4.jsonl", lines)
        _unsound(_verify("pfmt-fin", bad), bad, number, said)
    # the leaderboard has the questions, not the prompts: what they show, it refuses too
    swap = tmp_path / "swap" / "gpt-4.jsonl"
    _refused(_board("pfmt-fin", swap), swap, 1, cases["swap"][2])
    carried = tmp_path / "prompt" / "gpt-4.jsonl"
    _refused(_board("pfmt-fin", carried), carried, 2,
             "the judged conversation is not pfmt-bench-fin-ja question 0 turn 2")  # fmt: skip
    named = tmp_path / "name" / "gpt-4.jsonl"
    _refused(_board("pfmt-fin", named), named, 1, cases["name"][2])


# --- upstream's shape: id types, every field, one judge ---------------------------------


def test_an_id_in_another_json_type_than_the_question_files_is_refused(tmp_path: Path) -> None:
    """pfmt-bench-fin-ja's ids are integers: a ``"0"`` or ``0.0`` was read as question 0;
    Stability's 2023 ids are strings and its lines keep them so."""
    rows = _rows(PFMT, 4)
    text = _write(tmp_path / "text" / "gpt-4.jsonl", [rows[0] | {"question_id": "0"}, *rows[1:]])
    said = 'question_id "0" is written as a string, but pfmt-bench-fin-ja\'s question file'
    _unsound(_verify("pfmt-fin", text), text, 1, said)
    _refused(_board("pfmt-fin", text), text, 1, said)
    floating = tmp_path / "float" / "gpt-4.jsonl"
    floating.parent.mkdir()
    lines = PFMT.read_text(encoding="utf-8").splitlines()[:4]
    floating.write_text("\n".join([lines[0].replace('"question_id": 0,', '"question_id": 0.0,'),
                                   *lines[1:]]) + "\n", "utf-8")  # fmt: skip
    for result in (_verify("pfmt-fin", floating), _board("pfmt-fin", floating)):
        assert result.exit_code == 1
        assert f"{floating}:1: not a SingleGradingLine record" in result.output
        assert "question_id" in result.output and "0.0" in result.output
    # Stability's 2023 lines with integer ids: no variant's question file writes them so
    old = [r | {"question_id": int(r["question_id"])} for r in _rows(JMT, 6)]
    integers = _write(tmp_path / "jmt" / "gpt-4_single.jsonl", old)
    result = _verify("jmt-bench", integers)
    assert result.exit_code == 1 and "not a sound judgment file" in result.output
    result = _board("jmt-bench", integers, "--variant", "stability@aed16da")
    assert result.exit_code == 1
    assert "judged prompts are those of none of this hyoka's Japanese MT-bench variants" in (
        result.stderr
    )


def test_a_line_without_the_fields_upstream_writes_cannot_be_verified(tmp_path: Path) -> None:
    """Stability's whole file with every ``user_prompt`` stripped, or a line without its
    ``tstamp``, was "reproduced exactly"."""
    rows = [{k: v for k, v in row.items() if k != "user_prompt"} for row in _rows(JMT)]
    stripped = _write(tmp_path / "jmt.jsonl", rows)
    result = _verify("jmt-bench", stripped)
    assert result.exit_code == 1
    assert result.output.startswith(
        f"{stripped}: cannot be verified: line 1 lacks user_prompt, a field upstream writes on "
        "every line"
    )
    rows = _rows(PFMT, 4)
    del rows[2]["tstamp"]
    timeless = _write(tmp_path / "pfmt.jsonl", rows)
    result = _verify("pfmt-fin", timeless)
    assert result.exit_code == 1
    assert result.output.startswith(f"{timeless}: cannot be verified: line 3 lacks tstamp")


def test_a_file_whose_lines_name_two_judges_is_refused(tmp_path: Path) -> None:
    """The leaderboard signed the row ``judge:gpt-4o,gpt-4o-mini``, unmarked."""
    rows = _rows(PFMT, 6)
    other = rows[3] | {"judge": ["gpt-4o", rows[3]["judge"][1]]}
    two = _write(tmp_path / "gpt-4.jsonl", [*rows[:3], other, *rows[4:]])
    said = "judged by 'gpt-4o', but line 1 by 'gpt-4o-mini': a judgment file holds one judge's"
    _unsound(_verify("pfmt-fin", two), two, 4, said)
    _refused(_board("pfmt-fin", two), two, 4, said)


# --- the scales: what upstream's parsers can write -------------------------------------


def test_a_shaberi_minus_one_or_a_fractional_elyza_grade_is_off_the_scale(tmp_path: Path) -> None:
    """Shaberi writes ``null`` where it read no grade, never -1 (its mean would count a -1);
    ELYZA's ``int(reply)`` never gives 4.5. Both were averaged or left out silently."""
    lines = ELYZA_PUBLISHED.joinpath("gpt-3.5-turbo-0125.json").read_text("utf-8").splitlines()
    for name, grade in (("minus", -1), ("half", 4.5)):
        shaberi = tmp_path / name / "gpt-3.5-turbo-0125.json"
        shaberi.parent.mkdir()
        row = json.loads(lines[4]) | {"score": grade}
        shaberi.write_text("\n".join([*lines[:4], json.dumps(row), *lines[5:]]) + "\n", "utf-8")
        result = _board("elyza-tasks-100", shaberi)
        _refused(result, shaberi, 5, f"score {grade} is outside the ELYZA-tasks-100 scale")
    rows = [
        {"question_id": task, "model": "m", "judge": ["j", "elyza-v1"], "user_prompt": "",
         "judgment": "4", "score": 4.5 if task == 3 else 4, "turn": 1}
        for task in range(100)
    ]  # fmt: skip
    fastchat = _write(tmp_path / "fastchat" / "m.jsonl", rows)
    result = _board("elyza-tasks-100", fastchat)
    _refused(result, fastchat, 4, "score 4.5 is outside the ELYZA-tasks-100 scale (the integers")


def test_a_question_of_another_variant_says_the_variant_may_differ(tmp_path: Path) -> None:
    """llm-jp's question 1 is none of Stability's 60: the line said "a judgment file of
    another benchmark?" only."""
    row = {"question_id": 1, "model": "m", "judge": ["gpt-4o", "single-v1"], "user_prompt": "",
           "judgment": "[[5]]", "score": 5, "turn": 1, "tstamp": 1.0}  # fmt: skip
    other = _write(tmp_path / "m.jsonl", [row])
    result = _board("jmt-bench", other)
    _refused(result, other, 1, "question_id 1 is not a question of Japanese MT-bench variant "
             "stability (judged under another variant? --variant")  # fmt: skip
    assert "--mix-variants" in result.stderr


def test_verify_names_the_flags_where_the_library_names_parameters(tmp_path: Path) -> None:
    """The line checks name parameters (`variant`, `mix_variants`: the library's errors
    name no flag); ``mtbench verify`` prints its verdict with the flags, as it always did."""
    row = {"question_id": 1, "model": "m", "judge": ["gpt-4o", "single-v1"], "user_prompt": "",
           "judgment": "[[5]]", "score": 5, "turn": 1, "tstamp": 1.0}  # fmt: skip
    other = _write(tmp_path / "m.jsonl", [row])
    result = _verify("jmt-bench", other)
    _unsound(result, other, 1, "question_id 1 is not a question of Japanese MT-bench variant "
             "stability (judged under another variant? --variant reads it as the one it was "
             "judged under, --mix-variants ranks rows")  # fmt: skip
    assert "`" not in result.output
