"""A two-turn benchmark as loaded from the data directory: questions, judge prompts, references.

Everything the benchmark's authors wrote (questions, the Japanese judge prompts, the math
reference answers) is data, read at run time from the files ``hyoka data fetch`` pinned;
only the benchmark's shape (its name, folder and twelve categories) is code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from hyoka._jsonl import read_records
from hyoka.data.paths import resolve_data_dir
from hyoka.errors import DataError, InputError, MissingDataError
from hyoka.mtbench.records import AnswerRecord


@dataclass(frozen=True)
class BenchSpec:
    """What is fixed about a benchmark: where its files live and its categories in order."""

    name: str
    title: str
    folder: str
    categories: tuple[str, ...]
    #: categories judged against a reference answer (upstream: ``NEED_REF_CATS``)
    reference_categories: frozenset[str]
    reference_file: str
    #: the language answers must be in, unless a question says otherwise (``answer_lang``)
    answer_lang: str = "ja"


PFMT_FIN = BenchSpec(
    name="pfmt-fin",
    title="pfmt-bench-fin-ja",
    folder="pfmt-bench-fin-ja",
    categories=(
        "writing",
        "roleplay",
        "knowledge",
        "extraction",
        "reasoning",
        "math",
        "coding",
        "idea",
        "translation",
        "ethics",
        "trustworthiness",
        "ESGs",
    ),
    reference_categories=frozenset({"math"}),
    reference_file="reference_answer/gpt-4o+human.jsonl",
)

BENCHES: dict[str, BenchSpec] = {PFMT_FIN.name: PFMT_FIN}

#: Short column names, as in the paper's Table 1.
SHORT_NAMES = {
    "writing": "Writ.", "roleplay": "Role.", "knowledge": "Kno.", "extraction": "Ext.",
    "reasoning": "Reas.", "math": "Math", "coding": "Cod.", "idea": "Idea",
    "translation": "Tran.", "ethics": "Eth.", "trustworthiness": "Trust.", "ESGs": "ESGs",
}  # fmt: skip


def bench_spec(name: str) -> BenchSpec:
    if name not in BENCHES:
        raise InputError(
            f"--bench: unknown benchmark {name!r}; choose one of: {', '.join(BENCHES)}"
        )
    return BENCHES[name]


class Question(BaseModel):
    """One dialogue: two user turns, and for translation the language of each answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question_id: int
    category: str
    turns: tuple[str, str]
    answer_lang: tuple[str, str] | None = None


class JudgePrompt(BaseModel):
    """One line of ``judge_prompts.jsonl`` (FastChat's judge prompt format)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    name: str
    type: Literal["single", "pairwise"]
    system_prompt: str
    prompt_template: str
    category: str = "general"
    output_format: str = Field(default="[[rating]]")


@dataclass(frozen=True)
class Bench:
    """A benchmark's data as loaded from one data directory."""

    spec: BenchSpec
    folder: Path
    questions: tuple[Question, ...]
    prompts: dict[str, JudgePrompt]
    references: dict[int, AnswerRecord]

    @classmethod
    def load(cls, name: str = "pfmt-fin", data_dir: Path | str | None = None) -> Bench:
        spec = bench_spec(name)
        folder = resolve_data_dir(data_dir) / spec.folder
        hint = f"run `hyoka data fetch {spec.name}` to download it"
        question_file = folder / "question.jsonl"
        if not question_file.is_file():
            raise MissingDataError(f"{spec.title} data not found in {folder}: {hint}")
        questions = _load_questions(spec, question_file)
        prompt_file = folder / "judge_prompts.jsonl"
        if not prompt_file.is_file():
            raise MissingDataError(f"{prompt_file} not found: {hint}")
        prompts = {p.name: p for _, p in read_records(prompt_file, JudgePrompt)}
        reference_file = folder / spec.reference_file
        if not reference_file.is_file():
            raise MissingDataError(f"{reference_file} not found: {hint}")
        references = {r.question_id: r for _, r in read_records(reference_file, AnswerRecord)}
        return cls(spec, folder, questions, prompts, references)

    @property
    def by_id(self) -> dict[int, Question]:
        return {q.question_id: q for q in self.questions}

    def prompt(self, name: str) -> JudgePrompt:
        if name not in self.prompts:
            path = self.folder / "judge_prompts.jsonl"
            raise DataError(f"{path} has no judge prompt named {name!r}")
        return self.prompts[name]

    def fill_prompt(self, name: str, question: Question, answers: dict[str, str]) -> str:
        """Judge prompt ``name`` filled in as upstream does (``str.format``): the question's
        turns, the ``answers`` fields, and in the reference categories the reference's turns
        (single and pairwise prompts differ only in their answer fields)."""
        fields = {
            "question": question.turns[0],
            "question_1": question.turns[0],
            "question_2": question.turns[1],
            **answers,
        }
        if question.category in self.spec.reference_categories:
            reference = self.references.get(question.question_id)
            if reference is None:
                raise InputError(
                    f"{self.folder / self.spec.reference_file}: no reference answer for "
                    f"question_id {question.question_id}"
                )
            fields["ref_answer_1"] = reference.turns[0]
            fields["ref_answer_2"] = reference.turns[1]
        return self.prompt(name).prompt_template.format(**fields)

    def expected_lang(self, question: Question, turn: int) -> str:
        """The language the answer to ``turn`` (1 or 2) must be in."""
        if question.answer_lang is not None:
            return question.answer_lang[turn - 1]
        return self.spec.answer_lang


def _load_questions(spec: BenchSpec, path: Path) -> tuple[Question, ...]:
    questions: list[Question] = []
    seen: set[int] = set()
    for number, question in read_records(path, Question):
        if question.category not in spec.categories:
            raise DataError(f"{path}:{number}: unknown category {question.category!r}")
        if question.question_id in seen:
            raise DataError(f"{path}:{number}: question_id {question.question_id} again")
        seen.add(question.question_id)
        questions.append(question)
    return tuple(questions)
