"""Judging: prompts identical to the published ones, rule-based zeros, files, each bench's
rating rules through a scripted judge, and the real SmolLM2 judge for the wiring."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from _shared import SHARED_DATA, needs
from hyoka.judge import JudgeReport, JudgeSettings, run_judging
from hyoka.mtbench import Bench, build_leaderboard, load_answers
from hyoka.mtbench.judge import BenchJudging, plan_turns, prompt_name, user_prompt
from hyoka.mtbench.records import AnswerChoice, AnswerRecord, SingleJudgmentLine
from hyoka.providers import load_provider
from hyoka.providers.client import ModelClient, ResponseCache
from hyoka.providers.embedded import EMBEDDED_MODEL
from hyoka.store import read_records

FIN = SHARED_DATA / "pfmt-bench-fin-ja"
PUBLISHED = FIN / "model_judgment" / "gpt-4o-mini_single"


@pytest.fixture(scope="module")
def bench() -> Bench:
    return Bench.load("pfmt-fin", SHARED_DATA)


@pytest.mark.parametrize("model", ["gpt-4", "claude-3-5-sonnet-20240620"])
def test_prompts_match_the_published_judgments_exactly(bench: Bench, model: str) -> None:
    answers = load_answers(FIN / "model_answer" / f"{model}.jsonl", bench, complete=True)
    questions = bench.by_id
    checked = 0
    for _, record in read_records(PUBLISHED / f"{model}.jsonl", SingleJudgmentLine):
        question = questions[record.question_id]
        assert record.judge[1] == prompt_name(bench, question, record.turn)
        filled = user_prompt(bench, question, answers[record.question_id], record.turn)
        assert filled == record.user_prompt
        checked += 1
    assert checked == 720


def _answers(turns: dict[int, tuple[str, str]]) -> dict[int, AnswerRecord]:
    return {
        qid: AnswerRecord(
            question_id=qid, model_id="m", choices=(AnswerChoice(index=0, turns=pair),)
        )
        for qid, pair in turns.items()
    }


def _judge(
    output: Path,
    bench: Bench,
    answers: dict[int, AnswerRecord],
    client: ModelClient,
    *,
    limit: int,
    max_tokens: int = 2048,
    max_attempts: int | None = None,
) -> JudgeReport:
    # the judge's settings read off the judge that answers (a script's digest, a server)
    settings = JudgeSettings.of(client.provider, max_tokens=max_tokens)
    how = BenchJudging("gpt-4o-mini", limit=limit)
    plan = plan_turns(bench, answers, "m", settings, output, how, max_attempts=max_attempts)

    async def go() -> JudgeReport:
        async with client:
            return await run_judging(client, plan)

    return asyncio.run(go())


def test_rules_score_zero_without_calling_the_judge(bench: Bench, tmp_path: Path) -> None:
    english = "FOR IMMEDIATE RELEASE: the bank launches a new fund for retail investors."
    answers = _answers({0: ("", english), 1: (english, "  \n")})
    output = tmp_path / "m.jsonl"
    # a provider that is never asked: every turn is decided by a rule
    client = ModelClient(load_provider(EMBEDDED_MODEL), cache=None)
    report = _judge(output, bench, answers, client, limit=2)
    no_answer, wrong_language = report.reasons["No answer"], report.reasons["Incorrect language"]
    assert (report.judged, no_answer, wrong_language, report.judge_calls) == (4, 2, 2, 0)
    assert client.stats.requests == 0
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(r["question_id"], r["turn"], r["judgment"], r["score"]) for r in lines] == [
        (0, 1, "No answer", 0),
        (0, 2, "Incorrect language", 0),
        (1, 1, "Incorrect language", 0),
        (1, 2, "No answer", 0),
    ]
    assert set(lines[0]) == {
        "question_id",
        "model",
        "judge",
        "user_prompt",
        "judgment",
        "score",
        "turn",
        "tstamp",
    }
    assert lines[1]["judge"] == ["gpt-4o-mini", "single-v1-multi-turn"]
    # resumable: a second run has nothing to do
    again = _judge(output, bench, answers, ModelClient(load_provider(EMBEDDED_MODEL)), limit=2)
    assert (again.judged, again.done_before) == (0, 4)
    # and the file feeds the leaderboard
    board = build_leaderboard(bench, [output])
    assert board.models[0].category_mean("writing") == 0


@pytest.mark.parametrize(
    ("name", "rules", "turn_1", "turn_2", "answers"),
    [
        # pfmt-bench-fin-ja: upstream asks again (at +0.001) until a reply holds a rating
        ("pfmt-fin", "pfmt-upstream", ["判断できません。", "評価: [[7]]"], "評価: [[6.5]]",
         ("はい、承知しました。", "見出しと本文です。")),
        # MT-bench: FastChat asks once
        ("mt-bench", "fastchat", ["Rating: [[7]]"], "Rating: [[6.5]]",
         ("Dear friend, Hawaii was lovely.", "A shorter letter.")),
    ],
)  # fmt: skip
def test_each_benchs_rating_rules_grade_through_a_scripted_judge(
    name: str,
    rules: str,
    turn_1: list[str],
    turn_2: str,
    answers: tuple[str, str],
    tmp_path: Path,
) -> None:
    """A success path of each preset, exactly: turn 1 rated 7, turn 2 rated 6.5."""
    bench = Bench.load(name, SHARED_DATA)
    assert bench.spec.rating_rules.name == rules
    qid = bench.questions[0].question_id
    script = tmp_path / "judge.jsonl"
    # turn 2's prompt holds both answers, turn 1's only the first: turn 2's rule comes first
    by_turn = [{"contains": answers[1], "reply": turn_2}, {"contains": answers[0], "reply": turn_1}]
    script.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in by_turn), "utf-8")
    judge = f"scripted/{script}"
    client = ModelClient(load_provider(judge), cache=None, concurrency=1)
    output = tmp_path / "m.jsonl"
    report = _judge(output, bench, _answers({qid: answers}), client, limit=1)
    assert (report.judged, report.judge_calls, report.unrated) == (2, len(turn_1) + 1, 0)
    lines = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    # FastChat's score as its judge wrote it: 7 an int, 6.5 a float
    assert [(r["turn"], r["judgment"], r["score"]) for r in lines] == [
        (1, turn_1[-1], 7), (2, turn_2, 6.5),
    ]  # fmt: skip
    assert [type(r["score"]) for r in lines] == [int, float]
    category = bench.questions[0].category
    assert build_leaderboard(bench, [output]).models[0].category_mean(category) == 6.75


def test_real_smollm2_judge_through_llama_server(
    bench: Bench, llama_base_url: str, tmp_path: Path
) -> None:
    needs("openai")
    answers = _answers({0: ("はい、分かりました。", "見出しと本文です。")})
    output = tmp_path / "m.jsonl"
    provider = load_provider("openai/smollm2", base_url=llama_base_url)
    client = ModelClient(provider, cache=ResponseCache(tmp_path / "cache"), concurrency=1)
    # one attempt a turn: the number of calls does not hang on whether SmolLM2 rated
    report = _judge(output, bench, answers, client, limit=1, max_tokens=24, max_attempts=1)
    assert (report.judged, report.judge_calls) == (2, 2)
    assert report.usage.prompt_tokens > 0
    records = [r for _, r in read_records(output, SingleJudgmentLine)]
    assert [r.judge[1] for r in records] == ["single-v1", "single-v1-multi-turn"]
    for record in records:
        assert record.judgment  # the judge's own words, kept whether or not it rated
        assert record.score == -1 or 0 <= record.score <= 10
    assert report.unrated == sum(record.score == -1 for record in records)
