"""The language checks against published judgments: which turns each check flags.

Used by ``benchmarks/mtbench_langcheck.py`` to measure how the checks agree with the
published "Incorrect language" zeros. The published files are read for three fields only
(``question_id``, ``turn``, ``judgment``), so this measurement does not depend on how the
judging engine models its own records.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from hyoka.mtbench.answers import load_answers
from hyoka.mtbench.bench import Bench
from hyoka.mtbench.langcheck import is_expected_language
from hyoka.mtbench.records import INCORRECT_LANGUAGE
from hyoka.store import read_records


class _PublishedTurn(BaseModel):
    """The part of a published ``_single`` line a language measurement needs."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    question_id: int
    turn: int
    judgment: str


@dataclass(frozen=True)
class Turn:
    model: str
    question_id: int
    category: str
    turn: int
    answer: str
    published_zero: bool
    upstream_flags: bool
    script_flags: bool


def collect(bench: Bench, judge: str = "gpt-4o-mini") -> list[Turn]:
    """Every answered turn of the published ``judge`` files, with both checks' verdicts."""
    folder = bench.folder / "model_judgment" / f"{judge}_single"
    questions = bench.by_id
    turns: list[Turn] = []
    for path in sorted(folder.glob("*.jsonl")):
        answers = load_answers(bench.folder / "model_answer" / path.name, bench)
        for _, record in read_records(path, _PublishedTurn):
            answer = answers[record.question_id].turns[record.turn - 1]
            if not answer.strip():
                continue
            question = questions[record.question_id]
            expected = bench.expected_lang(question, record.turn)
            # upstream examines the whole answer where the question names its languages
            whole = question.answer_lang is not None
            upstream_ok = is_expected_language(answer, expected, whole=whole, check="upstream")
            script_ok = is_expected_language(answer, expected, whole=whole, check="script")
            turns.append(
                Turn(
                    path.stem, record.question_id, question.category, record.turn, answer,
                    record.judgment == INCORRECT_LANGUAGE, not upstream_ok, not script_ok,
                )
            )  # fmt: skip
    return turns
