"""Single grading of every turn with the benchmark's Japanese judge prompts.

Turn 1 is judged with ``single-v1`` (``single-math-v1`` with the reference answer for the
reference categories), turn 2 with the multi-turn prompts, which show the whole dialogue.
Two rules decide without the judge, as upstream: an empty answer scores 0 ("No answer"),
so a judge cannot write its own answer and grade it; an answer in the wrong language
scores 0 ("Incorrect language"). Rating extraction and the retry-on-no-rating rule are the
judge engine's (``hyoka.judge.rating``); a reply that never holds a rating is recorded
with score -1, which the leaderboard leaves out.

Judgments are appended as they finish (FastChat's ``model_judgment`` format), so a re-run
judges only what is missing; the response cache makes repeated judge calls free.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hyoka._atomic import atomic_write_text
from hyoka._jsonl import append_record, drop_partial_tail, read_records
from hyoka.errors import InputError
from hyoka.judge.rating import rate
from hyoka.mtbench.bench import Bench, Question
from hyoka.mtbench.langcheck import Check, LidModel, is_expected_language
from hyoka.mtbench.records import INCORRECT_LANGUAGE, NO_ANSWER, AnswerRecord, JudgmentRecord
from hyoka.providers.client import ModelClient
from hyoka.providers.types import Message, SamplingParams, Usage

DEFAULT_JUDGE = "gpt-4o-mini"


@dataclass
class JudgePlan:
    output: Path
    judge_name: str = DEFAULT_JUDGE
    lang_check: Check = "upstream"
    lid_model: LidModel = "lite"
    max_tokens: int = 2048
    temperature: float = 0.0
    max_attempts: int = 3
    limit: int | None = None


@dataclass
class JudgeReport:
    judged: int = 0
    done_before: int = 0
    no_answer: int = 0
    wrong_language: int = 0
    unrated: int = 0
    judge_calls: int = 0
    usage: Usage = field(default_factory=Usage)


def prompt_name(bench: Bench, question: Question, turn: int) -> str:
    base = "single-math-v1" if question.category in bench.spec.reference_categories else "single-v1"
    return base if turn == 1 else f"{base}-multi-turn"


def user_prompt(bench: Bench, question: Question, answer: AnswerRecord, turn: int) -> str:
    """The single-grading prompt of ``turn``, filled in as upstream does."""
    fields = {"answer": answer.turns[0], "answer_1": answer.turns[0], "answer_2": answer.turns[1]}
    return bench.fill_prompt(prompt_name(bench, question, turn), question, fields)


def done_turns(path: Path, model: str) -> set[tuple[int, int]]:
    """The ``(question_id, turn)`` pairs already judged for ``model`` in ``path``."""
    if not path.exists():
        return set()
    done: set[tuple[int, int]] = set()
    for number, record in read_records(path, JudgmentRecord):
        if record.model != model:
            raise InputError(
                f"{path}:{number}: a judgment of {record.model!r}, not {model!r}; "
                "choose another --output"
            )
        done.add((record.question_id, record.turn))
    return done


def ruled_out(
    bench: Bench,
    question: Question,
    turn: int,
    text: str,
    check: Check = "upstream",
    lid_model: LidModel = "lite",
) -> str | None:
    """Why the answer to ``turn`` cannot win (single grading's zero rules), or ``None``."""
    if not text.strip():
        return NO_ANSWER
    expected = bench.expected_lang(question, turn)
    whole = question.answer_lang is not None
    if not is_expected_language(text, expected, whole=whole, check=check, model=lid_model):
        return INCORRECT_LANGUAGE
    return None


async def judge_answers(
    plan: JudgePlan,
    bench: Bench,
    answers: dict[int, AnswerRecord],
    model: str,
    client: ModelClient,
    progress: Callable[[], None] | None = None,
) -> JudgeReport:
    """Judge every turn of ``answers`` not yet in ``plan.output``."""
    report = JudgeReport()
    drop_partial_tail(plan.output)
    done = done_turns(plan.output, model)
    questions = bench.questions[: plan.limit or None]
    todo = [(q, t) for q in questions for t in (1, 2) if (q.question_id, t) not in done]
    report.done_before = 2 * len(questions) - len(todo)
    params = SamplingParams(temperature=plan.temperature, max_tokens=plan.max_tokens)

    async def one(question: Question, turn: int) -> None:
        answer = answers[question.question_id]
        prompt = bench.prompt(prompt_name(bench, question, turn))
        text = answer.turns[turn - 1]
        filled = user_prompt(bench, question, answer, turn)
        score: float
        why = ruled_out(bench, question, turn, text, plan.lang_check, plan.lid_model)
        if why is not None:
            judgment, score = why, 0
            report.no_answer += why == NO_ANSWER
            report.wrong_language += why == INCORRECT_LANGUAGE
        else:
            messages = (
                Message(role="system", content=prompt.system_prompt),
                Message(role="user", content=filled),
            )
            key = f"mtbench:{model}:{question.question_id}:{turn}"
            outcome = await rate(
                client, messages, params, max_attempts=plan.max_attempts, sample_key=key
            )
            report.judge_calls += outcome.attempts
            report.usage = report.usage + outcome.usage
            judgment = outcome.reply
            score = outcome.score if outcome.parsed and outcome.score is not None else -1
            report.unrated += score == -1
        record = JudgmentRecord(
            question_id=question.question_id,
            model=model,
            judge=(plan.judge_name, prompt.name),
            user_prompt=filled,
            judgment=judgment,
            score=score,
            turn=turn,
            tstamp=time.time(),
        )
        append_record(plan.output, record)
        report.judged += 1
        if progress:
            progress()

    await asyncio.gather(*(one(q, t) for q, t in todo))
    if report.judged:
        _sort(plan.output)
    return report


def _sort(path: Path) -> None:
    """In question and turn order, as upstream leaves its files."""
    records = [r for _, r in read_records(path, JudgmentRecord)]
    records.sort(key=lambda r: (r.question_id, r.turn))
    lines = [json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n" for r in records]
    atomic_write_text(path, "".join(lines))
