"""ELYZA-tasks-100 as Shaberi judges it since 2025-11 (``--variant shaberi-2025``).

The reading of a reply (``SHABERI_2025``) is checked on hand-written replies, one or more
per branch of upstream's ``elyza_evaluator`` and ``_fallback_score_from_analysis``
(shisa-ai/shaberi f8cd7a0 ``evaluation_datasets_config.py:56-127, 292-324``), each
expectation written from reading that code: the last ``FINAL SCORE:\\s*([0-9.]+)``, else the
last ``<score>([0-9.]+)</score>``, else ``float(reply.strip())``, each through ``round()``;
a ``ValueError`` anywhere in that chain goes to the re-ask, whose reply is read by the
``FINAL SCORE`` and whole-reply forms only.

The prompts come from the stand-in ``tests/fixtures/elyza-prompt-2025`` (upstream's file is
code the project does not carry; ``benchmarks/shaberi_replay.py`` replays the published
gpt-5.1 judgments against it): each prompt the judge receives must be, byte for byte, what
the stand-in's own functions build when run.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from _shared import ELYZA_2025_PROMPT_FIXTURE, elyza_data
from hyoka.cli.main import app
from hyoka.judge.rating import SHABERI_2025, find_rating
from hyoka.mtbench import Bench
from hyoka.mtbench.judge import answer_fields
from replay_judge_server import ReplayJudge

JUDGE = "openai/gpt-5.1-2025-11-13"

# reply -> the score upstream's elyza_evaluator reads, None: it calls the fallback
PRIMARY: list[tuple[str, int | None]] = [
    ("講評です。\nFINAL SCORE: 4", 4),
    ("FINAL SCORE: 2 と書きかけましたが訂正します。\nFINAL SCORE: 5", 5),  # the last one
    ("FINAL SCORE:3", 3),
    ("FINAL SCORE: 3.5", 4),  # round(): half to even
    ("FINAL SCORE: 2.5", 2),
    ("FINAL SCORE: 4.", 4),
    ("FINAL SCORE: 0", 0),  # no range check
    ("FINAL SCORE: 7", 7),
    ("FINAL SCORE: 4.5.1\n<score>3</score>", None),  # float() raises: no later form tried
    ("FINAL SCORE: .", None),
    ("FINAL SCORE: #\n<score>3</score>", 3),  # the prompt's own '#' is no FINAL SCORE
    ("<score>2</score> ... <score>3</score>", 3),  # the last tag
    ("<score>4.6</score>", 5),
    (" 4 \n", 4),  # the whole reply as a number
    ("3.5", 4),
    ("٤", 4),  # float() reads any Unicode decimal digit
    ("1_0", 10),  # and underscores between digits
    ("nan", None),  # round(nan) raises ValueError
    ("final score: 4", None),  # case matters
    ("ＦＩＮＡＬ SCORE: 4", None),  # no folding of full-width text
    ("5点", None),
    ("", None),
]

# the fallback's reply -> the score it reads (no <score> form there)
REASKED: list[tuple[str, int | None]] = [
    ("FINAL SCORE: 3", 3),
    ("FINAL SCORE: 1\nFINAL SCORE: 2", 2),
    ("2", 2),
    ("<score>4</score>", None),
    ("FINAL SCORE: 4.5.1", None),
    ("わかりません", None),
]


@pytest.mark.parametrize(("reply", "expected"), PRIMARY)
def test_shaberi_2025_reads_a_reply_as_elyza_evaluator_does(
    reply: str, expected: int | None
) -> None:
    match = find_rating(reply, SHABERI_2025)
    assert (None if match is None else match.written) == expected
    if match is not None:
        assert isinstance(match.written, int)  # round() gives an int: 4, never 4.0


@pytest.mark.parametrize(("reply", "expected"), REASKED)
def test_the_reask_reply_is_read_as_the_fallback_does(reply: str, expected: int | None) -> None:
    assert SHABERI_2025.reask is not None
    match = find_rating(reply, SHABERI_2025.reask)
    assert (None if match is None else match.written) == expected


def _compiled(source: Path, *names: str) -> dict[str, Any]:
    """The file's functions ``names``, compiled alone (nothing else of the file is run)."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    chosen: list[ast.stmt] = [
        n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names
    ]
    namespace: dict[str, Any] = {}
    exec(compile(ast.Module(chosen, []), str(source), "exec"), namespace)
    return namespace


def _upstream_prompts(row: dict[str, str], judgment: str) -> tuple[str, str]:
    """The judge prompt and the re-ask prompt the stand-in's functions build for ``row``
    and the judge's reply ``judgment``, the re-ask with the scale its evaluator passes."""
    sent: list[str] = []
    names = ("get_elyza_prompt", "_fallback_score_from_analysis", "elyza_evaluator")
    namespace = _compiled(ELYZA_2025_PROMPT_FIXTURE, *names)
    replies = iter([judgment, ""])

    def get_model_response(messages: list[dict[str, str]], _model: str) -> str:
        (message,) = messages
        sent.append(message["content"])
        return next(replies)

    namespace["get_model_response"] = get_model_response
    namespace["elyza_evaluator"](row, "judge")
    first, again = sent
    return first, again


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return elyza_data(tmp_path_factory.mktemp("shaberi2025") / "data")


def _row(bench: Bench, number: int, answer: str) -> dict[str, str]:
    question = bench.questions[number]
    assert question.eval_aspect is not None and question.reference is not None
    return {
        "Question": question.turns[0],
        "output": question.reference[0],
        "eval_aspect": question.eval_aspect,
        "ModelAnswer": answer,
    }


def test_both_prompts_are_the_ones_the_file_builds(data: Path) -> None:
    bench = Bench.load("elyza-tasks-100", data, "shaberi-2025")
    assert bench.rating_rules is SHABERI_2025 and bench.variant is not None
    assert bench.variant.judge == "gpt-5.1-2025-11-13"
    question = bench.questions[7]
    answer = "答え {x} と }} 括弧"  # braces in the answer stay as they are
    judgment = "  講評: {根拠} は弱い。\n"  # stripped where it goes, as upstream strips it
    expected_prompt, expected_reask = _upstream_prompts(_row(bench, 7, answer), judgment)
    fields = answer_fields(bench, [answer])
    assert bench.fill_prompt("elyza-v1", question, fields) == expected_prompt
    reask = bench.reask(question, fields)
    assert reask is not None
    (message,) = reask.messages(judgment)
    assert (message.role, message.content) == ("user", expected_reask)
    assert "1 以上 5 以下の整数" in expected_reask  # the caller's scale, written in
    # the 2024 default has no re-ask
    assert Bench.load("elyza-tasks-100", data).reask(question, fields) is None


def test_judge_and_leaderboard_end_to_end(
    data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four tasks: a FINAL SCORE (5), a reply without a score re-asked into a 3, a legacy
    ``<score>2.5</score>`` (2, half to even), and a reply re-asked in vain (-1): the mean
    of the three rated, 10/3, with one unrated; every request one user message at
    temperature 0 with 1024 tokens, each re-ask exactly the prompt the file builds."""
    monkeypatch.setenv("HYOKA_DATA_DIR", str(data))
    monkeypatch.setenv("HYOKA_CACHE_DIR", str(tmp_path / "cache"))
    bench = Bench.load("elyza-tasks-100", data, "shaberi-2025")
    replies = ["講評。\nFINAL SCORE: 5", "講評のみ。", "よい。\n<score>2.5</score>", "点なし"]
    reasked = {1: "FINAL SCORE: 3", 3: "採点できません"}
    recording: dict[str, str] = {}
    answers = tmp_path / "m.jsonl"
    lines = []
    for number, reply in enumerate(replies):
        answer = f"回答{number}"
        prompt, again = _upstream_prompts(_row(bench, number, answer), reply)
        recording[prompt] = reply
        if number in reasked:
            recording[again] = reasked[number]
        choice = {"index": 0, "turns": [answer]}
        lines.append({"question_id": number, "model_id": "m", "choices": [choice]})
    answers.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines), "utf-8")
    judged = tmp_path / "judged"
    runner = CliRunner()
    with ReplayJudge(recording) as judge:
        args = ["mtbench", "judge", "--bench", "elyza-tasks-100", "--variant", "shaberi-2025"]
        args += ["-j", JUDGE, "--base-url", judge.base_url, "--no-cache", "-a", str(answers)]
        args += ["--limit", "4", "--output-dir", str(judged)]
        result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "rating:shaberi-2025" in result.stdout
    assert len(judge.received) == 6 and all(r.recorded for r in judge.received)
    assert {(r.system_prompt, r.temperature, r.max_tokens) for r in judge.received} == {
        (None, 0.0, 1024)
    }
    assert {len(r.body["messages"]) for r in judge.received} == {1}
    (out,) = judged.glob("*.jsonl")
    got = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["question_id"], r["score"]) for r in got] == [(0, 5), (1, 3), (2, 2), (3, -1)]
    # a FastChat line keeps the reply its score was read from: the re-ask's, where it decided
    assert [r["judgment"] for r in got[:2]] == [replies[0], reasked[1]]
    assert {tuple(r["judge"]) for r in got} == {("gpt-5.1-2025-11-13", "elyza-v1")}
    verified = runner.invoke(app, ["mtbench", "verify", str(out)])
    assert verified.exit_code == 0, verified.output
    assert "reproduced exactly" in verified.stdout
    board = runner.invoke(
        app,
        ["mtbench", "leaderboard", "--bench", "elyza-tasks-100", "--variant", "shaberi-2025",
         "--judgments", str(judged), "--format", "json"],
    )  # fmt: skip
    assert board.exit_code == 0, board.output
    (row,) = json.loads(board.stdout)
    assert row["overall"] == pytest.approx(10 / 3)
    assert (row["judged_turns"], row["unrated_turns"]) == (4, 1)
    assert "shaberi-2025" in json.dumps(row["signature"])
