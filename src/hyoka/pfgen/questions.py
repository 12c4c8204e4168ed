"""The pfgen-bench question files as typed records, read once and validated.

A question file (``Qxx.json``) holds the question, its Helpfulness rules and its reference
answer sets. Validation happens here, at the edge, so a malformed file is reported by name
before any scoring starts instead of failing deep inside the n-gram engine.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyoka.errors import DataError, InputError
from hyoka.pfgen.keywords import KeywordRule, parse_rules
from hyoka.store import (
    HashedFile,
    NotReadError,
    parse_json,
    read_as_hashed,
    read_bytes,
    sha1_files,
)


@dataclass(frozen=True)
class QuestionInfo:
    """Everything about a question except its (large) reference answers."""

    question_id: str
    question: str
    category: str
    note: str
    keywords: list[Any]
    reference_sets: tuple[str, ...]
    rules: tuple[KeywordRule, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "question_id": self.question_id,
            "question": self.question,
            "category": self.category,
            "note": self.note,
            "keywords": self.keywords,
            "reference_sets": list(self.reference_sets),
        }

    @classmethod
    def from_json(cls, raw: dict[str, Any], where: str) -> QuestionInfo:
        return cls(
            question_id=raw["question_id"],
            question=raw["question"],
            category=raw.get("category", ""),
            note=raw.get("note", ""),
            keywords=raw["keywords"],
            reference_sets=tuple(raw["reference_sets"]),
            rules=parse_rules(raw["keywords"], where),
        )


@dataclass(frozen=True)
class QuestionFile:
    """A question file on disk: its path and SHA-1 (the upstream metadata hash). Its bytes
    are kept when they were read to hash it (``read``); the files of a whole benchmark are
    hashed as streams (``read_all``) and their bytes read when first needed, checked against
    the SHA-1 (``store.read_as_hashed``)."""

    path: Path
    sha1: str
    kept: bytes | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, path: Path) -> QuestionFile:
        """The file read, hashed and kept."""
        try:  # a regular file only (a FIFO is not waited on), within its bound
            content = read_bytes(path)
        except NotReadError as exc:
            raise DataError(str(exc)) from None  # the benchmark's data, as damage is
        return cls(path, hashlib.sha1(content).hexdigest(), content)

    @classmethod
    def read_all(cls, paths: Sequence[Path]) -> list[QuestionFile]:
        """The files hashed (39 MB for pfgen-bench), their bytes not kept."""
        return [cls(hashed.path, hashed.sha1) for hashed in sha1_files(paths)]

    @property
    def content(self) -> bytes:
        """The file's bytes, which still have its SHA-1 (else a ``DataError``)."""
        if self.kept is not None:
            return self.kept
        return read_as_hashed(HashedFile(self.path, self.sha1))

    def parse(self) -> tuple[QuestionInfo, dict[str, list[str]]]:
        """The question's metadata and its reference sets, validated."""
        where = str(self.path)
        try:
            raw = parse_json(self.content, where, strict=False)
        except InputError as exc:
            raise DataError(str(exc)) from None
        if not isinstance(raw, dict):
            raise DataError(f"{where}: expected a JSON object")
        for name in ("question_id", "question", "keywords", "answers"):
            if name not in raw:
                raise DataError(f"{where}: missing field '{name}'")
        if not isinstance(raw["question_id"], str) or not isinstance(raw["question"], str):
            raise DataError(f"{where}: 'question_id' and 'question' must be strings")
        answers = raw["answers"]
        if not isinstance(answers, dict) or not answers:
            raise DataError(f"{where}: question {raw['question_id']} has no reference answers")
        for name, texts in answers.items():
            if not isinstance(texts, list) or not texts:
                raise DataError(
                    f"{where}: reference set '{name}' of {raw['question_id']} has no answers"
                )
            if not all(isinstance(t, str) for t in texts):
                raise DataError(f"{where}: reference set '{name}' holds a non-string answer")
        info = QuestionInfo(
            question_id=raw["question_id"],
            question=raw["question"],
            category=str(raw.get("category", "")),
            note=str(raw.get("note", "")),
            keywords=raw["keywords"],
            reference_sets=tuple(answers),
            rules=parse_rules(raw["keywords"], f"{where} ({raw['question_id']})"),
        )
        return info, answers
