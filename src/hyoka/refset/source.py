"""The benchmark a reference set is built for: questions, sample answers, keyword rules.

The definition is a folder in pfgen-bench's own layout, so pfgen-bench itself and a new
benchmark of the same kind are read alike: ``questions.jsonl`` holds one question per line
with its hand-written sample answer (the many-shot examples), in benchmark order; optional
``Qxx.json`` files beside it add ``category``, ``note`` and ``keywords`` (Helpfulness
rules). Question ids are a line's ``question_id``, else ``Q01``, ``Q02`` ... by line order,
as pfgen-bench numbers its questions. Everything is validated here, before any model runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.pfgen import SampleAnswer, parse_rules
from hyoka.store import path_under, plain_name, read_json, read_objects

QUESTIONS_FILE = "questions.jsonl"


@dataclass(frozen=True)
class SourceQuestion:
    question_id: str
    question: str
    sample_answer: str
    category: str = ""
    note: str = ""
    keywords: tuple[Any, ...] = ()

    def meta(self) -> dict[str, Any]:
        """The question file's fields other than the answers, in pfgen-bench's key order."""
        return {
            "question_id": self.question_id,
            "question": self.question,
            "category": self.category,
            "note": self.note,
            "keywords": list(self.keywords),
        }


@dataclass(frozen=True)
class BenchmarkSource:
    folder: Path
    questions: tuple[SourceQuestion, ...]

    @property
    def samples(self) -> list[SampleAnswer]:
        return [SampleAnswer(q.question, q.sample_answer) for q in self.questions]

    def by_id(self) -> dict[str, SourceQuestion]:
        return {q.question_id: q for q in self.questions}

    def select(self, ids: list[str] | None) -> list[SourceQuestion]:
        """The questions named (all when ``ids`` is empty/None), unknown ids refused."""
        if not ids:
            return list(self.questions)
        known = self.by_id()
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise DataError(f"{self.folder}: no question(s) {', '.join(unknown)}")
        return [known[i] for i in ids]

    @classmethod
    def load(cls, folder: Path) -> BenchmarkSource:
        path = folder / QUESTIONS_FILE
        if not path.is_file():
            raise DataError(f"{path}: not found (a benchmark needs questions with sample answers)")
        questions: list[SourceQuestion] = []
        try:
            for number, raw in read_objects(path):
                questions.append(_parse_line(folder, path, number, raw, len(questions) + 1))
        except InputError as exc:
            raise DataError(str(exc)) from None
        if not questions:
            raise DataError(f"{path}: no questions")
        seen: set[str] = set()
        for q in questions:
            if q.question_id in seen or q.question in seen:
                raise DataError(f"{path}: question {q.question_id} appears twice")
            seen.update((q.question_id, q.question))
        return cls(folder=folder, questions=tuple(questions))


def _parse_line(
    folder: Path, path: Path, number: int, raw: dict[str, Any], position: int
) -> SourceQuestion:
    where = f"{path}:{number}"
    if not isinstance(raw.get("question"), str):
        raise DataError(f"{where}: expected an object with a 'question' string")
    answer = raw.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        raise DataError(f"{where}: question {raw['question'][:30]!r} has no sample answer")
    qid = raw.get("question_id") or f"Q{position:02d}"
    if isinstance(qid, bool) or not isinstance(qid, str | int):
        raise DataError(f"{where}: 'question_id' must be a string")
    qid = str(qid)
    try:
        plain_name(qid, what="question_id")  # it names files: one plain name, never a path
    except InputError as exc:
        raise DataError(f"{where}: {exc}") from None
    meta = _read_meta(path_under(folder, qid, suffix=".json"))
    keywords = raw.get("keywords", meta.get("keywords", []))
    if not isinstance(keywords, list):
        raise DataError(f"{where}: 'keywords' must be a list of rules")
    parse_rules(keywords, where)  # a bad rule is reported now, not at scoring time
    return SourceQuestion(
        question_id=qid,
        question=raw["question"],
        sample_answer=answer,
        category=str(raw.get("category", meta.get("category", ""))),
        note=str(raw.get("note", meta.get("note", ""))),
        keywords=tuple(keywords),
    )


def _read_meta(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        raw = read_json(path, strict=False)
    except InputError as exc:
        raise DataError(f"cannot read question file: {exc}") from None
    if not isinstance(raw, dict):
        raise DataError(f"{path}: expected a JSON object")
    return raw
